import BotKit
import BotTesting
import ClassKit
import Foundation
import OnTheMapPlugins
import OnTheMapService
import Testing

/// `!post <place> until <date>` and `!unpost trip`, on the class's own clock: what the class sees
/// while a trip lasts and after it.
@Suite struct TripTests {
    static let lisbonZone = TimeZone(identifier: "Europe/Lisbon")!

    /// The day `days` after today in Lisbon at `now`, and how `until` writes it.
    static func lisbonDay(_ days: Int, from now: Date) -> (day: LocalDay, iso: String) {
        let day = LocalClock(timeZone: lisbonZone, instant: now).localDay.adding(days: days)
        return (day, String(format: "%04d-%02d-%02d", day.year, day.month, day.day))
    }

    /// Jane Doe (home pin in Seattle, logged in as "jane") and Bob Roe (pin in Madrid), with a fast announcer.
    static func janeAndBob(folder: TemporaryDirectory? = nil, trips: Bool = true) async throws -> ClassFixture {
        let fixture = try ClassFixture(folder: folder, replacing: AnnounceTests.fastAnnouncer, trips: trips)
        try await fixture.addPin(
            email: "jane@class.test", first: "Jane", last: "Doe", place: "Seattle, WA",
            at: try await SharedGazetteer.coordinate(of: "Seattle, WA"), link: "https://jane.example")
        try await fixture.addPin(
            email: "bob@class.test", first: "Bob", last: "Roe", place: "Madrid",
            at: try await SharedGazetteer.coordinate(of: "Madrid"), link: "https://bob.example")
        #expect(await fixture.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
        return fixture
    }

    static func janesPin(_ fixture: ClassFixture) async throws -> StudentLocation {
        try #require(try await fixture.sqlite.recentLocations(limit: 10, skip: 0).first { $0.firstName == "Jane" })
    }

    /// A trip's whole life: posted with its sentence, announced once, shown by `!where`, `!near`
    /// and `!list` while it lasts, then the home pin everywhere once the clock passes its last day
    /// (with no event at the end and no second announcement).
    @Test func aTripIsShownUntilItsLastDayEndsThenTheHomePinAgain() async throws {
        let fixture = try await Self.janeAndBob()
        let (day, iso) = Self.lisbonDay(3, from: fixture.now)
        try await AnnounceTests.withAnnouncer(fixture) {
            try await AnnounceTests.waitUntilStarted(fixture)
            try await AnnounceTests.settle(fixture)
            fixture.advance(seconds: 60)  // the trip is saved a minute after the pin
            let answer = await fixture.dmLines("!post Lisbon until \(iso)", as: "jane")
            let trip = try #require(try await Self.janesPin(fixture).trip)
            #expect(trip.mapString.hasPrefix("Lisbon"))
            #expect(
                answer.filter { $0.target == "jane" }.map(\.text) == [
                    "You are in \(trip.mapString) until \(day.shortText); your home pin comes back after that."
                ])
            // It lasts through the whole of its last day in Lisbon.
            #expect(trip.endsAt == day.adding(days: 1).start(in: Self.lisbonZone))
            let away = "Jane Doe is in \(trip.mapString) until \(day.shortText)"
            // Announced once, with the answer; the announcer does not say it again.
            #expect(answer.filter { $0.target == "#class" }.map(\.text) == ["\(away) — https://jane.example"])

            #expect(await fixture.dm("!where jane doe", as: "carol") == ["\(away) — https://jane.example"])
            // From Porto, Jane in Lisbon is nearer than Bob in Madrid.
            let near = await fixture.dm("!near Porto", as: "carol")
            #expect(near.count >= 3)
            #expect(near[1].hasPrefix("Jane Doe — "))
            #expect(near[1].contains(trip.mapString))
            #expect(near[2].hasPrefix("Bob Roe — "))
            #expect(await fixture.dm("!list", as: "carol").contains { $0.contains("Jane Doe — \(trip.mapString)") })

            // A trip saved elsewhere (the web page, the API) is announced by the announcer, its last
            // day in the trip place's own zone.
            let bob = try #require(
                try await fixture.sqlite.recentLocations(limit: 10, skip: 0).first { $0.firstName == "Bob" })
            let bobsTrip = Trip(
                mapString: "Porto", coordinate: try await SharedGazetteer.coordinate(of: "Porto"),
                endsAt: day.start(in: Self.lisbonZone))
            _ = try await fixture.sqlite.setTrip(asTyped: bobsTrip, ofAccount: bob.uniqueKey, session: nil)
            let lines = try await AnnounceTests.channelLines(fixture, count: 1)
            #expect(lines == ["Bob Roe is in Porto until \(day.adding(days: -1).shortText) — https://bob.example"])

            // Past the end of the last day in Lisbon: the home pin, with nothing announced.
            fixture.advance(seconds: trip.endsAt.timeIntervalSince(fixture.now) + 1)
            try await AnnounceTests.settle(fixture)
            // Nothing more in the channel than Bob's trip (no command has read the lines since).
            #expect(fixture.bot.transport.sent.filter { $0.target == "#class" }.count == 1)
            #expect(
                await fixture.dm("!where jane doe", as: "carol").first?.hasPrefix("Jane Doe — Seattle, WA — ") == true)
            let nearLater = await fixture.dm("!near Porto", as: "carol")
            #expect(nearLater.count >= 3)
            #expect(nearLater[1].hasPrefix("Bob Roe — "))
            #expect(nearLater[2].hasPrefix("Jane Doe — "))
            #expect(nearLater[2].contains("Seattle"))
        }
    }

    /// A trip's end is read from the place as kept, never the one typed: for a student at country
    /// level, a trip to Los Angeles is kept as the United States and lasts until the last midnight
    /// among the country's zones (Hawaii's), so its end does not give away Los Angeles' offset.
    @Test func aTripEndsByThePlaceAsKept() async throws {
        let fixture = try await Self.janeAndBob()
        _ = await fixture.dm("!privacy country", as: "jane")
        let (_, iso) = Self.lisbonDay(5, from: fixture.now)
        _ = await fixture.dm("!post Los Angeles until \(iso)", as: "jane")
        let trip = try #require(try await Self.janesPin(fixture).trip)
        #expect(trip.mapString == "United States", "\(trip)")
        let parts = iso.split(separator: "-").compactMap { Int($0) }
        let day = LocalDay(year: parts[0], month: parts[1], day: parts[2])
        let hawaii = day.adding(days: 1).start(in: TimeZone(identifier: "Pacific/Honolulu")!)
        let losAngeles = day.adding(days: 1).start(in: TimeZone(identifier: "America/Los_Angeles")!)
        #expect(trip.endsAt >= hawaii && trip.endsAt != losAngeles, "\(trip.endsAt)")
    }

    /// A trip is kept by the directory: a new bot on the same SQLite file shows it.
    @Test func aTripOutlivesARestart() async throws {
        let folder = try TemporaryDirectory(prefix: "trip-restart")
        let first = try await Self.janeAndBob(folder: folder)
        let (day, iso) = Self.lisbonDay(5, from: first.now)
        #expect(await first.dm("!post Lisbon until \(iso)", as: "jane").first?.hasPrefix("You are in Lisbon") == true)
        try first.sqlite.close()

        let second = try ClassFixture(folder: folder)
        let answer = await second.dm("!where jane doe", as: "carol")
        #expect(answer.count == 1)
        #expect(answer.first?.hasPrefix("Jane Doe is in Lisbon") == true)
        #expect(answer.first?.contains("until \(day.shortText) — ") == true)
    }

    /// What is kept says the trip: `!mydata` has a line for it (and how to end it), the export
    /// carries its place and end.
    @Test func myDataAndTheExportSayATripIsKept() async throws {
        let fixture = try await Self.janeAndBob()
        let (_, iso) = Self.lisbonDay(2, from: fixture.now)
        _ = await fixture.dm("!post Lisbon until \(iso)", as: "jane")
        let pin = try await Self.janesPin(fixture)
        let trip = try #require(pin.trip)
        let lines = await fixture.dm("!mydata", as: "jane")
        let tripLine = try #require(lines.first { $0.hasPrefix("Trip: ") }, "\(lines)")
        #expect(tripLine.hasPrefix("Trip: \(trip.mapString) ("), "\(tripLine)")
        #expect(tripLine.contains(", until ") && tripLine.hasSuffix("; !unpost trip ends it."), "\(tripLine)")
        let export = try #require(
            try await StudentDataExport.make(.key(pin.uniqueKey), accounts: fixture.sqlite, store: nil))
        #expect(export.pin?.trip?.mapString == trip.mapString && export.pin?.trip?.endsAt == trip.endsAt)
        #expect(export.pin?.mapString == "Seattle, WA")
    }

    /// A coarser `!privacy` takes the trip along: a lasting trip is re-stored at that level (its
    /// end kept) and shown so; an ended one finer than the level is erased.
    @Test func aCoarserPrivacyLevelCoarsensTheTripToo() async throws {
        let fixture = try await Self.janeAndBob()
        let (_, iso) = Self.lisbonDay(2, from: fixture.now)
        _ = await fixture.dm("!post Lisbon until \(iso)", as: "jane")
        let before = try #require(try await Self.janesPin(fixture).trip)
        _ = await fixture.dm("!privacy country", as: "jane")
        let after = try #require(try await Self.janesPin(fixture).trip)
        #expect(after.mapString == "Portugal" && after.endsAt == before.endsAt, "\(after)")
        let shown = await fixture.dm("!where jane doe", as: "carol")
        #expect(shown.first?.hasPrefix("Jane Doe is in Portugal until ") == true, "\(shown)")

        let other = try await Self.janeAndBob()
        _ = await other.dm("!post Lisbon until \(iso)", as: "jane")
        other.advance(
            seconds: try #require(try await Self.janesPin(other).trip).endsAt.timeIntervalSince(other.now) + 1)
        let answer = await other.dm("!privacy country", as: "jane")
        #expect(try await Self.janesPin(other).trip == nil, "the ended trip is erased: \(answer)")
    }

    /// `!unpost trip` ends the trip at once (the home pin shows again); without a trip it says so.
    @Test func unpostTripEndsItEarly() async throws {
        let fixture = try await Self.janeAndBob()
        #expect(
            await fixture.dm("!unpost trip", as: "jane") == ["You have no trip to end; your pin shows Seattle, WA."])
        let (_, iso) = Self.lisbonDay(2, from: fixture.now)
        _ = await fixture.dm("!post Lisbon until \(iso)", as: "jane")
        #expect(try await Self.janesPin(fixture).trip != nil)
        #expect(await fixture.dm("!unpost trip", as: "jane") == ["Your trip ended; your pin shows Seattle, WA again."])
        #expect(try await Self.janesPin(fixture).trip == nil)
        #expect(await fixture.dm("!where jane doe", as: "carol").first?.hasPrefix("Jane Doe — Seattle, WA — ") == true)
        #expect(
            await fixture.dm("!unpost trip", as: "jane") == ["You have no trip to end; your pin shows Seattle, WA."])
    }

    /// Each bad `until`, an unknown place, and a student without a home pin get their sentence,
    /// and no trip is saved.
    @Test func everyBadTripIsRefusedWithASentenceAndChangesNothing() async throws {
        let fixture = try await Self.janeAndBob()
        let (past, pastISO) = Self.lisbonDay(-2, from: fixture.now)
        let (far, farISO) = Self.lisbonDay(91, from: fixture.now)
        let refusals: [(String, String)] = [
            ("!post Lisbon until \(pastISO)", "\(past.text) is in the past: a trip must end today or later."),
            (
                "!post Lisbon until \(farISO)",
                "\(far.text) is more than 90 days ahead: a trip can last 90 days at most."
            ),
            (
                "!post Lisbon until whenever",
                "I can't read \"whenever\" as a date: write 2026-12-24, 24 Dec, Dec 24, a weekday (Sunday), today, tomorrow or in 3 days."
            ),
            ("!post Lisbon until 30 Feb", "There is no 30 Feb in the calendar."),
            (
                "!post Lisbon until",
                "Until when? !post <place> until <date>, with the date as 2026-12-24, 24 Dec, Dec 24, a weekday (Sunday), today, tomorrow or in 3 days."
            ),
            (
                "!post Qwzxvbnm until tomorrow",
                "No place called \"Qwzxvbnm\" was found; try \"City, Country\", e.g. !post Lisbon until 24 Dec"
            ),
        ]
        for (command, sentence) in refusals {
            #expect(await fixture.dm(command, as: "jane") == [sentence], "\(command)")
            #expect(try await Self.janesPin(fixture).trip == nil, "\(command)")
        }
        #expect(await fixture.dm("!where jane doe", as: "carol").first?.hasPrefix("Jane Doe — Seattle, WA — ") == true)

        let sam = try await fixture.addStudent("sam@class.test", "Sam", "Nopin")
        _ = await fixture.logIn("sam", email: "sam@class.test")
        #expect(
            await fixture.dm("!post Lisbon until tomorrow", as: "sam") == [
                "A trip shows instead of your home pin, and you have none yet: post your home place first with !post <place>, then !post Lisbon until 24 Dec."
            ])
        #expect(try await fixture.sqlite.location(ofAccount: sam.accountKey) == nil)
    }

    /// A class whose directory keeps one pin per student (the Udacity API, assembled without trips)
    /// says so plainly to `!post … until` and `!unpost trip`, and stores nothing.
    @Test func aDirectoryWithoutTripsSaysSo() async throws {
        let fixture = try await Self.janeAndBob(trips: false)
        let sentence =
            "This class directory (the Udacity-compatible API) keeps one pin per student, so it has no trips: your pin shows your home place."
        #expect(await fixture.dm("!post Lisbon until tomorrow", as: "jane") == [sentence])
        #expect(await fixture.dm("!unpost trip", as: "jane") == [sentence])
        #expect(try await Self.janesPin(fixture).trip == nil)
    }
}
