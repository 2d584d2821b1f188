import Foundation

/// Daytime: local 08:00 to 22:59, the hours in which a classmate may be written to and expect
/// an answer. Every function takes the instant it works on, so answers do not depend on the clock.
public enum Daytime {
    /// The first daytime hour (08:00).
    public static let firstHour = 8
    /// The hour daytime ends at (23:00, so 22:59 is the last daytime minute).
    public static let endHour = 23

    /// Whether it is daytime (local 08:00–22:59) in `zone` at `instant`.
    public static func isDaytime(in zone: TimeZone, at instant: Date) -> Bool {
        let hour = Calendar.gregorian(in: zone).component(.hour, from: instant)
        return (firstHour..<endHour).contains(hour)
    }

    /// The daytime of local `day` in `zone`, from its 08:00 to its 23:00. On a daylight-saving day
    /// it is an hour shorter or longer when the change falls inside it.
    public static func interval(on day: LocalDay, in zone: TimeZone) -> DateInterval {
        let start = day.instant(hour: firstHour, in: zone)
        let end = day.instant(hour: endHour, in: zone)
        return DateInterval(start: start, end: max(start, end))
    }

    /// The times of the asker's local day (the calendar day it is at `now` in `asker`'s zone) when
    /// it is daytime in both zones, in order. With `includingPast` (the default) the whole day is
    /// given, and there is always some (each side's daytime is 15 hours, each night 9); without it
    /// only what is left from `now` on, which may be nothing.
    public static func sharedToday(
        asker: TimeZone, other: TimeZone, now: Date, includingPast: Bool = true
    ) -> [SharedDaytime] {
        let askerDay = LocalClock(timeZone: asker, instant: now).localDay
        let askerDaytime = interval(on: askerDay, in: asker)
        // The other's local days that can meet the asker's daytime: offsets differ by at most 26
        // hours, so from the day before the other's date at its start to the day after at its end.
        let first = LocalClock(timeZone: other, instant: askerDaytime.start).localDay.adding(days: -1)
        let last = LocalClock(timeZone: other, instant: askerDaytime.end).localDay.adding(days: 1)
        var shared: [SharedDaytime] = []
        var day = first
        while day <= last {
            let theirs = interval(on: day, in: other)
            let start = max(theirs.start, askerDaytime.start, includingPast ? askerDaytime.start : now)
            let end = min(theirs.end, askerDaytime.end)
            if start < end { shared.append(SharedDaytime(start: start, end: end)) }
            day = day.adding(days: 1)
        }
        return shared
    }
}

/// A stretch of time when it is daytime for two people: from `start` up to (not including) `end`.
public struct SharedDaytime: Sendable, Hashable {
    public let start: Date
    public let end: Date

    public init(start: Date, end: Date) {
        self.start = start
        self.end = end
    }

    /// Its first and last minute on the clocks of `zone`: "14:00" and "18:59".
    public func localTimes(in zone: TimeZone) -> (first: LocalClock, last: LocalClock) {
        (LocalClock(timeZone: zone, instant: start), LocalClock(timeZone: zone, instant: end.addingTimeInterval(-1)))
    }

    /// "14:00–18:59" on the clocks of `zone`.
    public func rangeText(in zone: TimeZone) -> String {
        let (first, last) = localTimes(in: zone)
        return "\(first.timeText)–\(last.timeText)"
    }

    /// "14:00–18:59 your time, 22:00–02:59 theirs".
    public func text(asker: TimeZone, other: TimeZone) -> String {
        "\(rangeText(in: asker)) your time, \(rangeText(in: other)) theirs"
    }

    /// Its length in whole minutes.
    public var minutes: Int { Int(end.timeIntervalSince(start) / 60) }
}
