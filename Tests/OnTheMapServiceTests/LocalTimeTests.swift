import Foundation
import Testing

@testable import OnTheMapService

private func zone(_ identifier: String) throws -> TimeZone {
    try #require(TimeZone(identifier: identifier), "\(identifier) is not in the system's tzdata")
}

@Suite("Local clocks and shared daytime")
struct LocalTimeTests {
    @Test("The clock's words agree with Foundation's own formatting in the same zone at the same instant")
    func clockMatchesFoundation() throws {
        let instants = try [
            "2026-12-24T21:14:00Z", "2026-07-01T00:05:00Z", "2026-03-29T00:59:00Z", "2026-03-29T01:00:00Z",
            "2026-11-01T06:30:00Z",
        ].map(instant)
        for identifier in [
            "Europe/London", "Asia/Kolkata", "America/New_York", "Australia/Adelaide", "America/St_Johns",
            "Pacific/Marquesas", "Asia/Kathmandu", "Pacific/Kiritimati",
        ] {
            let timeZone = try zone(identifier)
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = timeZone
            formatter.dateFormat = "HH:mm 'on' EEEE|d MMM"
            for moment in instants {
                let clock = LocalClock(timeZone: timeZone, instant: moment)
                #expect("\(clock.timeAndWeekdayText)|\(clock.shortDateText)" == formatter.string(from: moment))
                #expect(clock.secondsFromUTC == timeZone.secondsFromGMT(for: moment))
            }
        }
    }

    @Test("Calendar-day arithmetic agrees with Foundation's Gregorian calendar, leap days and centuries included")
    func dayArithmetic() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try zone("UTC")
        let epoch = LocalDay(year: 1970, month: 1, day: 1)
        // From 1600 (Foundation counts Julian days before 1582) to 2400.
        for offset in stride(from: -135_000, through: 157_000, by: 97) {
            let moment = Date(timeIntervalSince1970: Double(offset) * 86_400 + 43_200)
            let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: moment)
            let day = epoch.adding(days: offset)
            #expect(day == LocalDay(year: parts.year!, month: parts.month!, day: parts.day!), "\(offset)")
            #expect(day.weekday == parts.weekday, "\(offset)")
            #expect(epoch.days(to: day) == offset)
        }
        #expect(LocalDay(year: 2028, month: 2, day: 28).adding(days: 1) == LocalDay(year: 2028, month: 2, day: 29))
        #expect(LocalDay(year: 2100, month: 2, day: 28).adding(days: 1) == LocalDay(year: 2100, month: 3, day: 1))
        #expect(LocalDay(year: 2000, month: 2, day: 29).exists && !LocalDay(year: 2100, month: 2, day: 29).exists)
    }

    @Test("Offsets are written UTC+0, UTC+5:30, UTC-3, UTC-9:30, UTC+14")
    func offsetWords() throws {
        #expect(LocalClock.offsetText(secondsFromUTC: 0) == "UTC+0")
        #expect(LocalClock.offsetText(secondsFromUTC: 19_800) == "UTC+5:30")
        #expect(LocalClock.offsetText(secondsFromUTC: 20_700) == "UTC+5:45")
        #expect(LocalClock.offsetText(secondsFromUTC: -10_800) == "UTC-3")
        #expect(LocalClock.offsetText(secondsFromUTC: -34_200) == "UTC-9:30")
        #expect(LocalClock.offsetText(secondsFromUTC: 50_400) == "UTC+14")
        let christmasEve = try instant("2026-12-24T21:14:00Z")
        let london = LocalClock(timeZone: try zone("Europe/London"), instant: christmasEve)
        #expect(london.timeAndWeekdayText == "21:14 on Thursday")
        #expect(london.offsetText == "UTC+0")
        #expect(london.shortDateText == "24 Dec")
        let kolkata = LocalClock(timeZone: try zone("Asia/Kolkata"), instant: christmasEve)
        #expect(kolkata.timeAndWeekdayText == "02:44 on Friday")
        #expect(kolkata.shortDateText == "25 Dec")
        #expect(kolkata.offsetText == "UTC+5:30")
    }

    @Test("Daytime is local 08:00 to 22:59, on each side of a daylight-saving change")
    func daytimeBounds() throws {
        let london = try zone("Europe/London")
        #expect(!Daytime.isDaytime(in: london, at: try instant("2026-01-15T07:59:59Z")))
        #expect(Daytime.isDaytime(in: london, at: try instant("2026-01-15T08:00:00Z")))
        #expect(Daytime.isDaytime(in: london, at: try instant("2026-01-15T22:59:59Z")))
        #expect(!Daytime.isDaytime(in: london, at: try instant("2026-01-15T23:00:00Z")))
        // In July London keeps UTC+1: 07:00Z is 08:00 there, 22:00Z is 23:00.
        #expect(Daytime.isDaytime(in: london, at: try instant("2026-07-15T07:00:00Z")))
        #expect(!Daytime.isDaytime(in: london, at: try instant("2026-07-15T22:00:00Z")))
        #expect(Daytime.isDaytime(in: try zone("Asia/Kolkata"), at: try instant("2026-07-15T02:30:00Z")))
        #expect(!Daytime.isDaytime(in: try zone("Asia/Kolkata"), at: try instant("2026-07-15T02:29:00Z")))
    }

    @Test("Shared daytime of London and New York, the day before and the day of London's change to summer time")
    func overlapAcrossDaylightSaving() throws {
        let (london, newYork) = (try zone("Europe/London"), try zone("America/New_York"))
        // 28 Mar 2026: London on UTC+0, New York already on UTC-4.
        let before = Daytime.sharedToday(asker: london, other: newYork, now: try instant("2026-03-28T10:00:00Z"))
        #expect(before.map { $0.text(asker: london, other: newYork) } == ["12:00–22:59 your time, 08:00–18:59 theirs"])
        #expect(before.first?.minutes == 11 * 60)
        // 29 Mar 2026: London moves to UTC+1 at 01:00Z, so the shared time is an hour shorter.
        let after = Daytime.sharedToday(asker: london, other: newYork, now: try instant("2026-03-29T10:00:00Z"))
        #expect(after.map { $0.text(asker: london, other: newYork) } == ["13:00–22:59 your time, 08:00–17:59 theirs"])
        #expect(after.first?.start == (try instant("2026-03-29T12:00:00Z")))
        #expect(after.first?.end == (try instant("2026-03-29T22:00:00Z")))
        // Asked from Tokyo, whose 29 Mar starts while London is still on UTC+0.
        let tokyo = try zone("Asia/Tokyo")
        let fromTokyo = Daytime.sharedToday(asker: tokyo, other: london, now: try instant("2026-03-29T03:00:00Z"))
        #expect(fromTokyo.map { $0.text(asker: tokyo, other: london) } == ["16:00–22:59 your time, 08:00–14:59 theirs"])
    }

    @Test("Shared daytime can come in two parts, over the other's midnight, and may be over for today")
    func overlapInTwoPartsOrNone() throws {
        let (london, auckland) = (try zone("Europe/London"), try zone("Pacific/Auckland"))
        let now = try instant("2026-01-15T12:00:00Z")
        let shared = Daytime.sharedToday(asker: london, other: auckland, now: now)
        #expect(
            shared.map { $0.text(asker: london, other: auckland) } == [
                "08:00–09:59 your time, 21:00–22:59 theirs", "19:00–22:59 your time, 08:00–11:59 theirs",
            ])
        let rest = Daytime.sharedToday(asker: london, other: auckland, now: now, includingPast: false)
        #expect(rest.map { $0.rangeText(in: london) } == ["19:00–22:59"])
        // At 20:30 the second part has begun: what is left starts now.
        let evening = Daytime.sharedToday(
            asker: london, other: auckland, now: try instant("2026-01-15T20:30:00Z"), includingPast: false)
        #expect(evening.map { $0.rangeText(in: london) } == ["20:30–22:59"])
        // At 23:30 in London nothing of today is left.
        let late = Daytime.sharedToday(
            asker: london, other: auckland, now: try instant("2026-01-15T23:30:00Z"), includingPast: false)
        #expect(late.isEmpty)
        // Same zone: the whole daytime.
        let same = Daytime.sharedToday(asker: london, other: london, now: now)
        #expect(same.map { $0.text(asker: london, other: london) } == ["08:00–22:59 your time, 08:00–22:59 theirs"])
    }
}
