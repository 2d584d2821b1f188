import BotKit
import BotTesting
import Foundation
import OnTheMapPlugins
import Testing

@testable import ClassKit
@testable import OnTheMapService

/// `!time`, `!awake` and `!overlap` on a class whose clock the test sets, checked against
/// Foundation's own time zone conversion at the same instant.
@Suite struct TimeTests {
    /// Moves the class clock forward to the next 1 July at `hour`:`minute`:30 UTC (northern
    /// summer: London and New York keep daylight-saving time, Adelaide does not).
    static func moveToJuly(_ fixture: ClassFixture, hour: Int, minute: Int = 0) throws -> Date {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = try #require(TimeZone(identifier: "UTC"))
        let year = utc.component(.year, from: fixture.now)
        var target = try #require(
            utc.date(from: DateComponents(year: year, month: 7, day: 1, hour: hour, minute: minute, second: 30)))
        if target <= fixture.now {
            target = try #require(
                utc.date(from: DateComponents(year: year + 1, month: 7, day: 1, hour: hour, minute: minute, second: 30))
            )
        }
        fixture.advance(seconds: target.timeIntervalSince(fixture.now))
        return target
    }

    /// "21:14 on Tuesday" and "UTC+5:30" for `identifier` at `instant`, worded by Foundation.
    static func expected(_ identifier: String, at instant: Date) throws -> (time: String, offset: String) {
        let zone = try #require(TimeZone(identifier: identifier))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "HH:mm 'on' EEEE"
        let seconds = zone.secondsFromGMT(for: instant)
        let minutes = abs(seconds) / 60
        let offset =
            "UTC" + (seconds < 0 ? "-" : "+") + "\(minutes / 60)"
            + (minutes % 60 == 0 ? "" : String(format: ":%02d", minutes % 60))
        return (formatter.string(from: instant), offset)
    }

    static func addClass(_ fixture: ClassFixture) async throws {
        for (email, first, last, place) in [
            ("ada@class.test", "Ada", "Lovelace", "London, UK"),
            ("ravi@class.test", "Ravi", "Kumar", "Kolkata, India"),
            ("grace@class.test", "Grace", "Hopper", "New York, United States"),
            ("olivia@class.test", "Olivia", "Chen", "Adelaide, Australia"),
        ] {
            try await fixture.addPin(
                email: email, first: first, last: last, place: place,
                at: try await SharedGazetteer.coordinate(of: place))
        }
    }

    /// The pins of the class, to show a command changed none.
    static func pins(_ fixture: ClassFixture) async throws -> [StudentLocation] {
        try await fixture.sqlite.recentLocations(limit: 100, skip: 0)
    }

    @Test("!time gives each pin's local time and offset as Foundation computes them, DST and half hours included")
    func timeOfPinsInThreeZones() async throws {
        let fixture = try ClassFixture()
        try await Self.addClass(fixture)
        let now = try Self.moveToJuly(fixture, hour: 12)
        #expect(try #require(TimeZone(identifier: "Europe/London")).isDaylightSavingTime(for: now))
        #expect(try #require(TimeZone(identifier: "America/New_York")).isDaylightSavingTime(for: now))
        for (query, name, place, zone) in [
            ("Ada", "Ada Lovelace", "London, UK", "Europe/London"),
            ("Kumar", "Ravi Kumar", "Kolkata, India", "Asia/Kolkata"),
            ("grace hopper", "Grace Hopper", "New York, United States", "America/New_York"),
            ("Olivia", "Olivia Chen", "Adelaide, Australia", "Australia/Adelaide"),
        ] {
            let (time, offset) = try Self.expected(zone, at: now)
            let replies = await fixture.say("!time \(query)", as: "bob")
            #expect(replies.map(\.text) == ["bob: It is \(time) for \(name) (\(place), \(offset))"])
        }
        // The offsets themselves, so a wrong zone cannot agree with a wrong expectation.
        #expect(try Self.expected("Asia/Kolkata", at: now).offset == "UTC+5:30")
        #expect(try Self.expected("Australia/Adelaide", at: now).offset == "UTC+9:30")
        #expect(try Self.expected("America/New_York", at: now).offset == "UTC-4")
        #expect(try Self.expected("Europe/London", at: now).offset == "UTC+1")
        #expect(try Self.expected("Europe/London", at: now).time.hasPrefix("13:00"))
    }

    @Test("!time alone gives your own pin's time; without a login or a pin it says how")
    func ownTime() async throws {
        let fixture = try ClassFixture()
        try await Self.addClass(fixture)
        try await fixture.addStudent("new@class.test", "New", "Comer")
        let now = try Self.moveToJuly(fixture, hour: 20)
        let stranger = await fixture.dm("!time", as: "bob")
        #expect(stranger.first?.hasPrefix("For your own time, log in first:") == true, "\(stranger)")
        _ = await fixture.logIn("newbie", email: "new@class.test")
        let noPin = await fixture.dm("!time", as: "newbie")
        #expect(noPin.first?.hasPrefix("You have no pin yet, so I do not know your time:") == true, "\(noPin)")
        _ = await fixture.logIn("ravi", email: "ravi@class.test")
        let (time, offset) = try Self.expected("Asia/Kolkata", at: now)
        #expect(await fixture.dm("!time", as: "ravi") == ["It is \(time) for you (Kolkata, India, \(offset))"])
        // A logged-in nick is looked up too.
        #expect(
            await fixture.dm("!time ravi", as: "bob") == ["It is \(time) for Ravi Kumar (Kolkata, India, \(offset))"])
    }

    @Test("!time of a place gives that place's time; a stranger may ask a place on a class-only map")
    func timeOfAPlace() async throws {
        let fixture = try ClassFixture(visibility: .class)
        try await Self.addClass(fixture)
        let now = try Self.moveToJuly(fixture, hour: 3, minute: 14)
        let (time, offset) = try Self.expected("Asia/Tokyo", at: now)
        #expect(offset == "UTC+9")
        let answer = await fixture.dm("!time Tokyo", as: "bob")
        #expect(answer.count == 1)
        #expect(answer.first?.hasPrefix("It is \(time) in Tokyo") == true, "\(answer)")
        #expect(answer.first?.hasSuffix("(UTC+9)") == true, "\(answer)")
        // Classmates are for the class: a stranger is asked to log in.
        let classmate = await fixture.dm("!time Lovelace", as: "bob")
        #expect(classmate.first?.hasPrefix("The class map is for the class: log in first") == true, "\(classmate)")
        #expect(await fixture.dm("!awake", as: "bob").first?.hasPrefix("The class map is for the class") == true)
    }

    @Test("A pin kept at a country with several zones says so rather than guess")
    func multiZoneCountry() async throws {
        let fixture = try ClassFixture()
        let seattle = try #require(try await SharedGazetteer.geocoder.geocode("Seattle", limit: 1).first)
        let country = await fixture.services.privacyGate.shown(seattle, at: .country)
        try await fixture.addPin(
            email: "sam@class.test", first: "Sam", last: "Park", place: country.displayName, at: country.coordinate)
        let answer = await fixture.dm("!time Sam", as: "bob")
        #expect(
            answer == [
                "Sam Park's pin is at \(country.displayName), a country with several time zones, so I cannot tell the time there."
            ])
        // And a place that is such a country.
        let place = await fixture.dm("!time United States", as: "bob")
        #expect(place.first?.contains("has several time zones") == true, "\(place)")
    }

    @Test("!awake counts classmates in daytime and lists those nearest your time, 3 lines in a channel")
    func awake() async throws {
        let fixture = try ClassFixture()
        try await Self.addClass(fixture)
        try await fixture.addPin(
            email: "paris@class.test", first: "Pierre", last: "Durand", place: "Paris, France",
            at: try await SharedGazetteer.coordinate(of: "Paris, France"))
        // 12:00 UTC in July: London 13:00, Paris 14:00, Kolkata 17:30, New York 08:00 (all daytime);
        // Adelaide 21:30 (daytime too). At 01:00 UTC: London 02:00, Paris 03:00, Kolkata 06:30,
        // New York 21:00, Adelaide 10:30.
        let now = try Self.moveToJuly(fixture, hour: 1)
        _ = await fixture.logIn("ada", email: "ada@class.test")
        let channel = await fixture.say("!awake", as: "ada")
        let newYork = try Self.expected("America/New_York", at: now).time
        let adelaide = try Self.expected("Australia/Adelaide", at: now).time
        #expect(
            channel.map(\.text) == [
                "ada: It is daytime (08:00–22:59) now for 2 of 4 classmates; nearest your time first:",
                "ada: Grace Hopper — \(newYork) — New York, United States",
                "ada: Olivia Chen — \(adelaide) — Adelaide, Australia",
            ])
        // Seven hours later, 08:00 UTC: all but New York (04:00) are in daytime; nearest London
        // first (Paris +1 hour, Kolkata +4:30, Adelaide +8:30). A channel gets three lines.
        fixture.advance(seconds: 7 * 3600)
        let later = await fixture.say("!awake", as: "ada").map(\.text)
        #expect(later.count == 3)
        #expect(later.first == "ada: It is daytime (08:00–22:59) now for 3 of 4 classmates; nearest your time first:")
        #expect(later.dropFirst().first?.hasPrefix("ada: Pierre Durand — ") == true, "\(later)")
        #expect(later.last?.hasPrefix("ada: Ravi Kumar — ") == true, "\(later)")
        let privately = await fixture.dm("!awake", as: "ada")
        #expect(privately.count == 4)
        #expect(privately.last?.hasPrefix("Olivia Chen — ") == true, "\(privately)")
    }

    @Test("!overlap gives the daytime left today in both clocks, or none today")
    func overlap() async throws {
        let fixture = try ClassFixture()
        try await Self.addClass(fixture)
        _ = try Self.moveToJuly(fixture, hour: 12)
        _ = await fixture.logIn("ada", email: "ada@class.test")
        // London 13:00: London's daytime ends at 22:00 UTC; New York's began at 12:00 UTC.
        #expect(
            await fixture.dm("!overlap Grace", as: "ada") == [
                "Daytime you and Grace Hopper still share today: 13:00–22:59 your time, 08:00–17:59 theirs"
            ])
        // Kolkata's daytime (02:30–17:30 UTC) from now on: 13:00–18:29 in London.
        #expect(
            await fixture.dm("!overlap ravi kumar", as: "ada") == [
                "Daytime you and Ravi Kumar still share today: 13:00–18:29 your time, 17:30–22:59 theirs"
            ])
        // 21:30 UTC, London 22:30: Kolkata is at 03:00, and London's day ends before Kolkata's starts.
        fixture.advance(seconds: 9.5 * 3600)
        _ = await fixture.logIn("ada", email: "ada@class.test")
        #expect(
            await fixture.dm("!overlap Ravi", as: "ada") == ["Daytime you and Ravi Kumar still share today: none today"]
        )
    }

    @Test("Every bad input gets a sentence and changes nothing")
    func badInputs() async throws {
        let fixture = try ClassFixture()
        try await Self.addClass(fixture)
        try await fixture.addStudent("new@class.test", "New", "Comer")
        let before = try await Self.pins(fixture)
        #expect(
            await fixture.dm("!time Zebediahqx", as: "bob") == [
                "Nobody called \"Zebediahqx\" is on the map and no place of that name was found; try a classmate's name, a nick or \"City, Country\", e.g. !time Tokyo, Japan"
            ])
        let overlapStranger = await fixture.dm("!overlap Ada", as: "bob")
        #expect(overlapStranger.first?.hasPrefix("For your own time, log in first:") == true, "\(overlapStranger)")
        _ = await fixture.logIn("newbie", email: "new@class.test")
        let noPin = await fixture.dm("!overlap Ada", as: "newbie")
        #expect(noPin.first?.hasPrefix("You have no pin yet, so I do not know your time:") == true, "\(noPin)")
        _ = await fixture.logIn("ada", email: "ada@class.test")
        #expect(await fixture.dm("!overlap", as: "ada").first?.hasPrefix("With whom?") == true)
        #expect(
            await fixture.dm("!overlap Zebediah", as: "ada") == [
                "Nobody else called \"Zebediah\" is on the map (and no one logged in uses that nick)."
            ])
        #expect(
            await fixture.dm("!overlap Ada", as: "ada") == [
                "Nobody else called \"Ada\" is on the map (and no one logged in uses that nick)."
            ])
        // Control characters typed never reach the answer.
        let hostile = await fixture.dm("!time Zeb\u{1}edi\u{3}ah", as: "bob")
        #expect(hostile.allSatisfy { !$0.contains("\u{1}") && !$0.contains("\u{3}") }, "\(hostile)")
        #expect(try await Self.pins(fixture) == before)
    }
}
