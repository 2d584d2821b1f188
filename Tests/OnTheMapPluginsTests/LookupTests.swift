import BotKit
import BotTesting
import Foundation
import OnTheMapPlugins
import OnTheMapService
import Testing

@Suite struct WhereTests {
    @Test func namesMatchIgnoringCaseAndAccents() async throws {
        let fixture = try ClassFixture()
        try await fixture.addPin(
            email: "jose@class.test", first: "José", last: "Álvarez", place: "Madrid, Spain",
            at: Coordinate(latitude: 40.4168, longitude: -3.7038), link: "https://jose.example")
        try await fixture.addPin(
            email: "ann@class.test", first: "Ann", last: "Lee", place: "Oslo",
            at: Coordinate(latitude: 59.91, longitude: 10.75))
        for query in ["jose", "ALVAREZ", "josé álvarez", "Jose Alvarez"] {
            let replies = await fixture.say("!where \(query)", as: "bob")
            #expect(replies.count == 1, "\(query)")
            #expect(
                replies.first?.text.hasPrefix("bob: José Álvarez — Madrid, Spain — https://jose.example — ")
                    == true)
            #expect(replies.first?.text.hasSuffix("just now") == true)
        }
        fixture.advance(seconds: 3 * 86_400 + 10)
        let later = await fixture.dm("!where lee", as: "bob")
        #expect(later == ["Ann Lee — Oslo — https://example.org/me — 3 days ago"])
    }

    @Test func noMatchSaysSoAndEmptyAsksForAName() async throws {
        let fixture = try ClassFixture()
        let none = await fixture.dm("!where Zebediah", as: "bob")
        #expect(none == ["Nobody called \"Zebediah\" is on the map (and no one logged in uses that nick)."])
        let empty = await fixture.dm("!where", as: "bob")
        #expect(empty.first?.hasPrefix("Whom should I look for?") == true)
    }

    @Test func aNickWithASessionFindsTheirPin() async throws {
        let fixture = try ClassFixture()
        try await fixture.addPin(
            email: "jane@class.test", first: "Jane", last: "Doe", place: "Bellevue, WA",
            at: Coordinate(latitude: 47.61, longitude: -122.2))
        _ = await fixture.logIn("jd42", email: "jane@class.test")
        let replies = await fixture.say("!where jd42", as: "bob")
        #expect(
            replies.map(\.text) == [
                "bob: jd42 is Jane Doe — Bellevue, WA — https://example.org/me — just now"
            ])
    }

    @Test func aChannelGetsAtMostThreeLinesThenAPointerToPrivate() async throws {
        let fixture = try ClassFixture()
        for index in 1...5 {
            try await fixture.addPin(
                email: "sam\(index)@class.test", first: "Sam", last: "Number\(index)", place: "Town \(index)",
                at: Coordinate(latitude: Double(index), longitude: Double(index)))
        }
        let channel = await fixture.say("!where sam", as: "bob")
        #expect(channel.count == 3)
        #expect(channel.allSatisfy { $0.target == "#class" })
        #expect(channel[0].text.hasPrefix("bob: Sam Number"))
        #expect(channel[2].text == "bob: 3 more: /msg MapBot !where sam")

        let privately = await fixture.dm("!where sam", as: "bob")
        #expect(privately.count == 5)
        #expect(Set(privately.map { $0.components(separatedBy: " — ")[0] }).count == 5)
    }

    @Test func backendTextIsSanitizedAndTrimmed() async throws {
        let fixture = try ClassFixture()
        let evilLink =
            "https://evil.example/\u{03}4,1red\r\nPRIVMSG #class :pwned" + String(repeating: "x", count: 600)
        fixture.directory.inject(
            StudentLocation(
                objectId: "evil", uniqueKey: "evil-key", firstName: "Eve\u{02}bold\u{202E}",
                lastName: "Hacker\u{1F}",
                mapString: "Paris\u{07}", mediaURL: evilLink,
                coordinate: Coordinate(latitude: 48.85, longitude: 2.35),
                createdAt: fixture.now, updatedAt: fixture.now))
        let replies = await fixture.say("!where hacker", as: "bob")
        let text = try #require(replies.first?.text)
        #expect(replies.count == 1)
        #expect(
            text.hasPrefix("bob: Evebold Hacker — Paris — https://evil.example/red PRIVMSG #class :pwned"))
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x202E })
        #expect(text.utf8.count <= Formatting.lineBudget + "bob: ".utf8.count)
        #expect(text.contains("…"))
    }

    @Test func aBackendFailureBecomesOneSentence() async throws {
        let fixture = try ClassFixture()
        fixture.directory.setFault(.networkUnreachable("timeout"))
        #expect(
            await fixture.dm("!where jane", as: "bob")
                == ["I could not reach the class directory just now; please try again in a minute."])
        fixture.directory.setFault(.backendFailure(status: 500, message: "boom"))
        #expect(
            await fixture.dm("!where jane", as: "bob")
                == [
                    "The class directory had a problem (error 500); nothing was changed. Please try again later."
                ])
    }
}

@Suite struct NearTests {
    /// Four classmates around Seattle and one far away.
    static func seattleClass(_ fixture: ClassFixture) async throws -> [StudentLocation] {
        [
            try await fixture.addPin(
                email: "jane@class.test", first: "Jane", last: "Doe", place: "Bellevue, WA",
                at: Coordinate(latitude: 47.6101, longitude: -122.2015), link: "https://jane.example"),
            try await fixture.addPin(
                email: "tom@class.test", first: "Tom", last: "Tacoma", place: "Tacoma, WA",
                at: Coordinate(latitude: 47.2529, longitude: -122.4443)),
            try await fixture.addPin(
                email: "pat@class.test", first: "Pat", last: "Portland", place: "Portland, OR",
                at: Coordinate(latitude: 45.5152, longitude: -122.6784)),
            try await fixture.addPin(
                email: "van@class.test", first: "Val", last: "Vancouver", place: "Vancouver, BC",
                at: Coordinate(latitude: 49.2827, longitude: -123.1207)),
            try await fixture.addPin(
                email: "syd@class.test", first: "Syd", last: "Ney", place: "Sydney",
                at: Coordinate(latitude: -33.8688, longitude: 151.2093)),
        ]
    }

    @Test func nearAPlaceInAChannelGivesTheThreeNearestWithDistances() async throws {
        let fixture = try ClassFixture()
        let pins = try await Self.seattleClass(fixture)
        let seattle = try await SharedGazetteer.coordinate(of: "Seattle")
        let expected = pins.sorted {
            GreatCircle.distanceKilometres(seattle, $0.coordinate)
                < GreatCircle.distanceKilometres(seattle, $1.coordinate)
        }
        let replies = await fixture.say("!near Seattle", as: "bob")
        // The first line says which place was understood; with it, the channel gets three lines.
        #expect(replies.count == 3)
        #expect(replies[0].text == "bob: Nearest to Seattle, Washington, United States:")
        for (reply, pin) in zip(replies.dropFirst(), expected.prefix(2)) {
            #expect(reply.target == "#class")
            let distance = expectedDistance(seattle, pin.coordinate)
            #expect(
                reply.text.hasPrefix("bob: \(pin.fullName) — \(distance) — \(pin.mapString) — "),
                "\(reply.text)")
        }
        #expect(
            replies[1].text
                == "bob: Jane Doe — \(expectedDistance(seattle, pins[0].coordinate)) — Bellevue, WA — https://jane.example"
        )
    }

    @Test func aNearMatchIsAskedAboutInTheFirstLineAndNonPlacesAreRefused() async throws {
        let fixture = try ClassFixture()
        _ = try await Self.seattleClass(fixture)
        let replies = await fixture.say("!near Seatle", as: "bob")
        #expect(replies.count == 3)
        #expect(replies[0].text == "bob: Did you mean Seattle, Washington, United States? Nearest to it:")
        #expect(replies[1].text.hasPrefix("bob: Jane Doe — "))
        // An exact name with namesakes answers for the likeliest and says how to ask for another.
        let portland = await fixture.dm("!near Portland", as: "bob")
        #expect(
            portland.first?.hasPrefix(
                "Nearest to Portland, Oregon, United States (another one? e.g. !near Portland, Maine") == true,
            "\(portland)")
        await fixture.bot.assertError(
            "!near online",
            "\"online\" is not a place on the map: it needs a city, region or country. Studying online? Give the city you are in, e.g. !near Lyon, France"
        )
        await fixture.bot.assertError(
            "!near javascript:alert(1)",
            "That looks like a link, not a place: the map needs a city, region or country, e.g. !near Lyon, France")
        let bayArea = await fixture.dm("!near Bay Area", as: "bob")
        #expect(bayArea.first == "Nearest to San Francisco Bay Area, California, United States:")
    }

    @Test func privatelyTheTopTenWithAHeaderAndThousandsSeparators() async throws {
        let fixture = try ClassFixture()
        let pins = try await Self.seattleClass(fixture)
        let seattle = try await SharedGazetteer.coordinate(of: "Seattle")
        let replies = await fixture.dm("!near Seattle", as: "bob")
        #expect(replies.count == 1 + pins.count)
        #expect(replies[0].hasPrefix("Nearest to Seattle"))
        let sydney = try #require(replies.last)
        let distance = expectedDistance(seattle, pins[4].coordinate)
        #expect(distance.contains(","))
        #expect(sydney == "Syd Ney — \(distance) — Sydney — https://example.org/me")
    }

    @Test func fromMyOwnPinLeavesMeOutAndTheSameSpotIsZero() async throws {
        let fixture = try ClassFixture()
        let pins = try await Self.seattleClass(fixture)
        try await fixture.addPin(
            email: "twin@class.test", first: "Twin", last: "Doe", place: "Bellevue",
            at: pins[0].coordinate)
        _ = await fixture.logIn("jane", email: "jane@class.test")
        let replies = await fixture.say("!near", as: "jane")
        #expect(replies.count == 3)
        #expect(replies[0].text == "jane: Twin Doe — 0 km — Bellevue — https://example.org/me")
        #expect(!replies.contains { $0.text.contains("Jane Doe") })
        #expect(
            replies[1].text.hasPrefix(
                "jane: Tom Tacoma — \(expectedDistance(pins[0].coordinate, pins[1].coordinate))"))
    }

    @Test func fromANicksPin() async throws {
        let fixture = try ClassFixture()
        let pins = try await Self.seattleClass(fixture)
        _ = await fixture.logIn("patty", email: "pat@class.test")
        let replies = await fixture.dm("!near patty", as: "bob")
        #expect(replies[0] == "Nearest to patty's pin (Portland, OR):")
        #expect(
            replies[1]
                == "Tom Tacoma — \(expectedDistance(pins[2].coordinate, pins[1].coordinate)) — Tacoma, WA — https://example.org/me"
        )
        #expect(!replies.contains { $0.hasPrefix("Pat Portland") })
    }

    @Test func milesFromConfigAndPerUser() async throws {
        let fixture = try ClassFixture(replacing: { [NearPlugin(services: .init($0), settings: .init(units: .mi))] })
        let pins = try await Self.seattleClass(fixture)
        let seattle = try await SharedGazetteer.coordinate(of: "Seattle")
        let inMiles = await fixture.say("!near Seattle", as: "bob")
        #expect(inMiles[1].text.contains("— \(expectedDistance(seattle, pins[0].coordinate, miles: true)) —"))

        await fixture.bot.assertResponse("!units km", "OK, I will show you distances in kilometres (km).", as: "bob")
        await fixture.bot.assertResponse(
            "!units", "Your distances are in km. Change with !units km or !units mi.", as: "bob")
        let inKm = await fixture.say("!near Seattle", as: "bob")
        #expect(inKm[1].text.contains("— \(expectedDistance(seattle, pins[0].coordinate)) —"))
        // Others still see the configured unit.
        let alice = await fixture.say("!near Seattle", as: "alice")
        #expect(alice[1].text.contains(" mi — "))
        await fixture.bot.assertError("!units parsecs", "Units are km or mi: !units km or !units mi.", as: "bob")
    }

    @Test func unknownPlacesMissingPinsAndEmptyMaps() async throws {
        let fixture = try ClassFixture()
        #expect(
            await fixture.dm("!near Seattle", as: "bob").first?.hasPrefix("Nobody is on the map yet.") == true
        )
        _ = try await Self.seattleClass(fixture)
        await fixture.bot.assertError(
            "!near Xyzzyplugh",
            "No place called \"Xyzzyplugh\" was found; try \"City, Country\", e.g. !near Lyon, France")
        await fixture.bot.assertError("!near", "Near what?…")
        try await fixture.addStudent("nopin@class.test", "No", "Pin")
        _ = await fixture.logIn("nopin", email: "nopin@class.test")
        #expect(await fixture.dm("!near", as: "nopin").first?.hasPrefix("You have no pin yet") == true)
    }
}
