import BotKit
import BotTesting
import ClassKit
import Foundation
import OnTheMapService
import Testing

/// `!privacy` and the precision pins are kept at, through the real router and a SQLite class.
@Suite struct PrivacyLevelTests {
    static let address = "1600 Amphitheatre Parkway, Mountain View, CA"
    /// A street corner in Seattle, about 5 km north of the city's point.
    static let fremont = Coordinate(latitude: 47.6505, longitude: -122.3493)

    static func loggedInJane(_ privacy: PrivacyPolicy = PrivacyPolicy()) async throws -> ClassFixture {
        // The policy's own visibility (class by default): `!privacy` tells who sees the pins.
        let fixture = try ClassFixture(
            settings: ClassSettings(announceChannels: ["#class"], privacy: privacy), visibility: privacy.visibility)
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        #expect(await fixture.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
        return fixture
    }

    static func janesPin(_ fixture: ClassFixture) async throws -> StudentLocation? {
        try await fixture.sqlite.location(ofAccount: fixture.sqlite.listAccounts()[0].accountKey)
    }

    static func janesKey(_ fixture: ClassFixture) async throws -> String {
        try await fixture.sqlite.listAccounts()[0].accountKey
    }

    @Test func aStreetAddressPostedIsStoredAsItsCity() async throws {
        let fixture = try await Self.loggedInJane()
        let answer = await fixture.dm("!post \(Self.address) | https://jane.example", as: "jane")
        #expect(
            answer.first?.hasPrefix("You are on the map: Jane Doe — Mountain View, California, United States") == true)
        let pin = try #require(try await Self.janesPin(fixture))
        let city = try await SharedGazetteer.coordinate(of: "Mountain View, CA")
        #expect(pin.mapString == "Mountain View, California, United States")
        #expect(pin.coordinate == city)
        // The level is stored with the pin.
        #expect(pin.precision == .city)
        #expect(await fixture.dm("!where Jane Doe", as: "jane").first?.contains("Amphitheatre") == false)
    }

    @Test func exactKeepsWhatWasTypedAndRegionCoarsensThePinAtOnce() async throws {
        let fixture = try await Self.loggedInJane()
        #expect(
            await fixture.dm("!privacy exact", as: "jane") == [
                "OK: your pin will be kept at exact level (the place as typed) when you post one."
            ])
        _ = await fixture.dm("!post \(Self.address) | https://jane.example", as: "jane")
        #expect(try await Self.janesPin(fixture)?.mapString == Self.address)
        #expect(try await Self.janesPin(fixture)?.precision == .exact)

        let coarser = await fixture.dm("!privacy region", as: "jane")
        #expect(
            coarser == [
                "OK: your pin is now kept at region level (state or province): others see California, United States; the finer place is no longer stored."
            ])
        let region = try #require(try await Self.janesPin(fixture))
        #expect(region.mapString == "California, United States")
        #expect(region.precision == .region)
        #expect(region.coordinate == (try await SharedGazetteer.coordinate(of: "California")))

        // Finer again: nothing finer was kept, so the pin stays until the student posts again.
        let finer = await fixture.dm("!privacy city", as: "jane")
        #expect(
            finer.first?.hasPrefix(
                "OK: your next pin will be kept at city level (the town). The one you have stays at region level")
                == true)
        #expect(try await Self.janesPin(fixture) == region)
        let key = try await Self.janesKey(fixture)
        #expect(try await fixture.sqlite.state("precision/\(key)") == "city")
    }

    @Test func badLevelsAndForbiddenLevelsChangeNothing() async throws {
        let fixture = try await Self.loggedInJane(PrivacyPolicy(finestPrecision: .city))
        _ = await fixture.dm("!post Seattle, WA | https://jane.example", as: "jane")
        let before = try await Self.janesPin(fixture)
        #expect(
            await fixture.dm("!privacy street", as: "jane") == [
                "The levels are city, region, country or exact: !privacy region, for example."
            ])
        #expect(
            await fixture.dm("!privacy exact", as: "jane") == [
                "This class keeps pins no finer than city level (the town): choose city, region or country."
            ])
        #expect(await fixture.dm("!privacy city region", as: "jane").first?.hasPrefix("The levels are") == true)
        #expect(try await Self.janesPin(fixture) == before)
        let key = try await Self.janesKey(fixture)
        #expect(try await fixture.sqlite.state("precision/\(key)") == nil)
        #expect(
            await fixture.dm("!privacy region", as: "stranger") == [
                "Log in first to choose your own level: /msg MapBot !login <email> <password>."
            ])
    }

    @Test func privacyExplainsWhoSeesWhatInThreeLines() async throws {
        let fixture = try await Self.loggedInJane()
        let stranger = await fixture.dm("!privacy", as: "stranger")
        #expect(stranger.count == 3)
        #expect(stranger[0].hasPrefix("Pins are kept at city level (the town)"))
        #expect(stranger[1].hasPrefix("Who sees them: only students signed in to this class"))
        #expect(
            stranger[2].hasPrefix(
                "Change yours: !privacy city|region|country|exact; your name in full or as first name and last initial: !privacy name full|first."
            ))
        _ = await fixture.dm("!post Seattle, WA | https://jane.example", as: "jane")
        let mine = await fixture.dm("!privacy", as: "jane")
        #expect(mine.count == 3)
        #expect(
            mine[0]
                == "Your pin shows Seattle, Washington, United States (city level (the town)); pins you post are kept at city level (the town); a place of fewer than 15,000 people shows as the nearest town of at least that size in its region."
        )
        let open = try ClassFixture(
            settings: ClassSettings(privacy: PrivacyPolicy(visibility: .public)))
        #expect(await open.dm("!privacy", as: "stranger")[1].hasPrefix("Who sees them: anyone on IRC"))
    }

    @Test func nearGivesDistancesNoFinerThanThePins() async throws {
        let fixture = try await Self.loggedInJane()
        _ = await fixture.dm("!post Seattle, WA | https://jane.example", as: "jane")
        let bellevue = try await SharedGazetteer.coordinate(of: "Bellevue, WA")
        let seattle = try await SharedGazetteer.coordinate(of: "Seattle, WA")
        try await fixture.addPin(
            email: "bob@class.test", first: "Bob", last: "Smith", place: "Bellevue, Washington, United States",
            at: bellevue)
        try await fixture.addPin(
            email: "eve@class.test", first: "Eve", last: "Exact", place: "Fremont, Seattle",
            at: Self.fremont)
        try await fixture.addPin(
            email: "sam@class.test", first: "Sam", last: "Same", place: "Seattle, Washington, United States",
            at: seattle)
        let lines = await fixture.dm("!near", as: "jane")
        // Jane's pin is a city: every distance from it is rounded, whatever the other pin is.
        #expect(lines.contains { $0.hasPrefix("Sam Same — same city — ") })
        let fremont = GreatCircle.distanceKilometres(seattle, Self.fremont)
        #expect(lines.contains { $0.hasPrefix("Eve Exact — ~\(max(5, Int((fremont / 5).rounded()) * 5)) km — ") })
        let kilometres = GreatCircle.distanceKilometres(seattle, bellevue)
        let rounded = Int((kilometres / 5).rounded()) * 5
        #expect(lines.contains { $0.hasPrefix("Bob Smith — ~\(max(5, rounded)) km — ") })
        // From a place typed, an exact pin shows its distance; a city pin only roughly.
        let fromPlace = await fixture.dm("!near Tacoma, WA", as: "jane")
        let tacoma = try await SharedGazetteer.coordinate(of: "Tacoma, WA")
        let exact = GreatCircle.distanceKilometres(tacoma, Self.fremont)
        #expect(fromPlace.contains { $0.hasPrefix("Eve Exact — \(Int(exact.rounded())) km — ") })
        #expect(fromPlace.contains { $0.hasPrefix("Sam Same — ~") })
    }

    /// A level chosen through one bot instance holds at once on another sharing the directory: a
    /// pin made there is never finer than the student's latest choice.
    @Test func aChoiceMadeOnOneInstanceHoldsOnAnother() async throws {
        let fixture = try ClassFixture()
        let first = PrivacyChoices(store: fixture.sqlite)
        let second = PrivacyChoices(store: fixture.sqlite)
        #expect(try await second.chosen(by: "k1") == nil)
        try await first.set(.country, for: "k1")
        #expect(try await second.chosen(by: "k1") == .country)
        try await first.forget("k1")
        #expect(try await second.chosen(by: "k1") == nil)
    }

    /// `!privacy name first` shows the student as "Jane D." wherever a pin's name shows (the pin
    /// itself, which the map, its API and announcements read; lookups by classmates), keeps the
    /// choice for later pins and across instances, and `!privacy name full` brings the whole name
    /// back; the account keeps the full name, which `!mydata` shows the student alone.
    @Test func aStudentChoosesHowTheirNameShows() async throws {
        let fixture = try await Self.loggedInJane()
        #expect(
            await fixture.dm("!privacy name", as: "jane") == [
                "Others see your name as Jane Doe (in full). Change it: !privacy name full|first."
            ])
        #expect(
            await fixture.dm("!privacy name first", as: "jane") == [
                "OK: others will see your name as Jane D. when you post a pin."
            ])
        let posted = await fixture.dm("!post Seattle, WA | https://jane.example", as: "jane")
        #expect(posted.first?.hasPrefix("You are on the map: Jane D. — Seattle") == true, "\(posted)")
        let pin = try #require(try await Self.janesPin(fixture))
        #expect(pin.firstName == "Jane" && pin.lastName == "D.")
        let found = await fixture.dm("!where Jane", as: "jane")
        #expect(found.first?.hasPrefix("Jane is Jane D. — Seattle") == true, "\(found)")
        let key = try await Self.janesKey(fixture)
        #expect(try await fixture.sqlite.state("name/\(key)") == "first")
        let mine = await fixture.dm("!mydata", as: "jane")
        #expect(
            mine.first?.hasSuffix("Jane Doe (created …); others see it as Jane D. (your choice).") == false
                && mine.first?.hasPrefix("Account: jane@class.test, Jane Doe (created ") == true
                && mine.first?.hasSuffix("; others see it as Jane D. (your choice).") == true, "\(mine)")

        #expect(
            await fixture.dm("!privacy name full", as: "jane") == [
                "OK: others now see you as Jane Doe on IRC, on the map and through its API; your account keeps your full name, which only you see."
            ])
        #expect(try await Self.janesPin(fixture)?.lastName == "Doe")
        #expect(try await fixture.sqlite.state("name/\(key)") == nil)
        #expect(
            await fixture.dm("!privacy name first", as: "jane") == [
                "OK: others now see you as Jane D. on IRC, on the map and through its API; your account keeps your full name, which only you see."
            ])
        let kept = try #require(try await Self.janesPin(fixture))
        #expect(kept.lastName == "D." && kept.mapString == pin.mapString && kept.precision == pin.precision)
        #expect(
            await fixture.dm("!privacy name middle", as: "jane") == [
                "Usage: !privacy name full (your whole name) or !privacy name first (your first name and last initial)."
            ])
        #expect(try await fixture.sqlite.state("name/\(key)") == "first")
    }
}
