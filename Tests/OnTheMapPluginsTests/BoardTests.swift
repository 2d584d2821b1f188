import BotKit
import BotTesting
import ClassKit
import Foundation
import Localization
import OnTheMapPlugins
import OnTheMapService
import Testing

@Suite struct BoardTests {
    static func addClass(_ fixture: ClassFixture, count: Int, from start: Int = 1) async throws {
        for index in start..<(start + count) {
            try await fixture.addPin(
                email: "s\(index)@class.test", first: "Student", last: "No\(index)", place: "Place \(index)",
                at: Coordinate(latitude: Double(index % 80), longitude: Double(index % 170)))
        }
    }

    @Test func listPagesTenAtATimeAlwaysPrivately() async throws {
        let fixture = try ClassFixture()
        try await Self.addClass(fixture, count: 25)
        let page1 = await fixture.say("!list", as: "bob")
        let privateLines = page1.filter { $0.target == "bob" }.map(\.text)
        #expect(privateLines.count == 12)
        #expect(privateLines[0] == "The 25 most recent posts, page 1 of 3 (newest first):")
        #expect(privateLines[1].hasPrefix("1. Student No25 — Place 25 — "))
        #expect(privateLines[11] == "More: !list 2")
        #expect(
            page1.filter { $0.target == "#class" }.map(\.text) == [
                "bob: I sent you page 1 of 3 in a private message."
            ])

        let page3 = await fixture.dm("!list 3", as: "bob")
        #expect(page3.count == 6)
        #expect(page3[1].hasPrefix("21. Student No5 — "))
        #expect(page3.last?.hasPrefix("25. Student No1 — ") == true)

        await fixture.bot.assertError("!list 4", "There are only 3 pages: !list 1 to !list 3.")
        await fixture.bot.assertError("!list two", "The page is a number: !list 2")
        await fixture.bot.assertError("!list 0", "The page is a number: !list 2")
    }

    @Test func listOnAnEmptyMap() async throws {
        let fixture = try ClassFixture()
        #expect(await fixture.dm("!list", as: "bob").first?.hasPrefix("Nobody is on the map yet.") == true)
    }

    @Test func theClassMapKeepsTheHundredMostRecent() async throws {
        let fixture = try ClassFixture()
        try await Self.addClass(fixture, count: 105)
        await fixture.bot.assertError("!list 11", "There are only 10 pages: !list 1 to !list 10.")
        let last = await fixture.dm("!list 10", as: "bob")
        #expect(last.first == "The 100 most recent posts, page 10 of 10 (newest first):")
        #expect(last.last?.hasPrefix("100. Student No6 — ") == true)
    }

    @Test func refreshCountsNewPostsAndHasAChannelCooldown() async throws {
        let fixture = try ClassFixture(userLimits: true)
        try await Self.addClass(fixture, count: 4)
        _ = await fixture.dm("!list", as: "bob")  // loads the map
        try await Self.addClass(fixture, count: 3, from: 10)

        let first = await fixture.bot.say("!refresh", in: "#class", as: "bob")
        #expect(
            first.map(\.text) == ["bob: Refreshed: 7 posts on the map; 3 are new since the last refresh."])
        // Another user, same channel, 10 s later: the channel's cooldown.
        fixture.bot.clock.advance(by: .seconds(10))
        let blocked = await fixture.bot.say("!refresh", in: "#class", as: "carol")
        #expect(blocked.map(\.text) == ["carol: Please wait 20 seconds before using !refresh again."])
        // Another channel is not blocked.
        let elsewhere = await fixture.bot.say("!refresh", in: "#other", as: "carol")
        #expect(
            elsewhere.map(\.text) == [
                "carol: Refreshed: 7 posts on the map; none is new since the last refresh."
            ])
        fixture.bot.clock.advance(by: .seconds(21))
        try await Self.addClass(fixture, count: 1, from: 20)
        let again = await fixture.bot.say("!refresh", in: "#class", as: "carol")
        #expect(
            again.map(\.text) == ["carol: Refreshed: 8 posts on the map; 1 is new since the last refresh."])
    }

    @Test func refreshWhenTheServiceIsDown() async throws {
        let fixture = try ClassFixture()
        fixture.directory.setFault(.networkUnreachable("dns"))
        #expect(
            await fixture.dm("!refresh", as: "bob")
                == ["I could not reach the class directory just now; please try again in a minute."])
    }

    @Test func mapLinkOnlyWhenTheWebMapIsOn() async throws {
        let off = try ClassFixture()
        #expect(
            await off.say("!map", as: "bob").map(\.text)
                == ["bob: The web map is not turned on for this class; try !near, !where or !list instead."])
        let on = try ClassFixture(settings: ClassSettings(webMapURL: "https://map.class.example/"))
        #expect(
            await on.dm("!map", as: "bob") == [
                "The class map: https://map.class.example/ — as a picture: https://map.class.example/map.png"
            ])
    }

    @Test func helpListsTheClassCommands() async throws {
        let fixture = try ClassFixture()
        let help = await fixture.dm("!help", as: "bob")
        for command in [
            "!login*", "!where", "!near", "!units", "!post*", "!link*", "!list", "!refresh", "!map",
        ] {
            #expect(help.first?.contains(command) == true, "\(command)")
        }
        #expect(help.first?.contains("!register") == false)
    }
}

@Suite struct FormattingTests {
    @Test func distances() {
        #expect(Formatting.distance(kilometres: 0, in: .km, phrases: .english) == "0 km")
        #expect(Formatting.distance(kilometres: 0.4, in: .km, phrases: .english) == "0 km")
        #expect(Formatting.distance(kilometres: 12.3, in: .km, phrases: .english) == "12 km")
        #expect(Formatting.distance(kilometres: 1_234.4, in: .km, phrases: .english) == "1,234 km")
        #expect(Formatting.distance(kilometres: 1_234_567, in: .km, phrases: .english) == "1,234,567 km")
        #expect(Formatting.distance(kilometres: 1.609_344 * 100, in: .mi, phrases: .english) == "100 mi")
    }

    @Test func ages() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(Formatting.age(of: now.addingTimeInterval(-30), now: now, phrases: .english) == "just now")
        #expect(Formatting.age(of: now.addingTimeInterval(60), now: now, phrases: .english) == "just now")
        #expect(Formatting.age(of: now.addingTimeInterval(-60), now: now, phrases: .english) == "1 minute ago")
        #expect(Formatting.age(of: now.addingTimeInterval(-5 * 3600), now: now, phrases: .english) == "5 hours ago")
        #expect(Formatting.age(of: now.addingTimeInterval(-86_400), now: now, phrases: .english) == "1 day ago")
        #expect(Formatting.age(of: now.addingTimeInterval(-15 * 86_400), now: now, phrases: .english) == "2 weeks ago")
        #expect(Formatting.age(of: now.addingTimeInterval(-400 * 86_400), now: now, phrases: .english) == "1 year ago")
    }

    @Test func everyServiceErrorIsOneDistinctSentence() {
        let errors: [ServiceError] = [
            .networkUnreachable("x"), .invalidCredentials, .sessionExpired, .notFound("No pin."),
            .rejectedInput("Bad\r\ninput"), .backendFailure(status: 503, message: "secret detail"),
            .malformedResponse("junk"), .throttled(retryAfterSeconds: 90),
            .unsupported("No registration here."), .unavailable("SQLite: database is locked (secret detail)"),
        ]
        let sentences = errors.map { ServiceErrorWording.sentence(for: $0, in: .english) }
        #expect(Set(sentences).count == errors.count)
        for sentence in sentences {
            #expect(!sentence.isEmpty)
            #expect(!sentence.unicodeScalars.contains { $0.value < 0x20 })
            #expect(!sentence.contains("secret detail"))
        }
        #expect(sentences[3] == "Not found: No pin.")
        #expect(sentences[7] == "Too many attempts; please wait 90 seconds and try again.")
        #expect(sentences[9] == "The class directory is busy; nothing was changed. Please try again in a minute.")
    }
}
