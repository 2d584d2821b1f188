import Foundation

/// The wall clock of a time zone at one instant, worded for IRC in English whatever the
/// system's locale: "21:14 on Tuesday", "UTC+5:30", "24 Dec". Conversion uses the system's time
/// zone data through Foundation (`TimeZone(identifier:)` reads /usr/share/zoneinfo).
public struct LocalClock: Sendable, Hashable {
    public let timeZone: TimeZone
    public let instant: Date
    public let year: Int
    /// 1 (January) to 12.
    public let month: Int
    public let day: Int
    /// 0 to 23.
    public let hour: Int
    public let minute: Int
    /// 1 (Sunday) to 7 (Saturday), as `Calendar` counts.
    public let weekday: Int
    /// The zone's offset from UTC at this instant (daylight-saving time included).
    public let secondsFromUTC: Int

    public static let weekdayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    public static let monthAbbreviations = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    public init(timeZone: TimeZone, instant: Date) {
        self.timeZone = timeZone
        self.instant = instant
        let parts = Calendar.gregorian(in: timeZone).dateComponents(
            [.year, .month, .day, .hour, .minute, .weekday], from: instant)
        year = parts.year ?? 1970
        month = parts.month ?? 1
        day = parts.day ?? 1
        hour = parts.hour ?? 0
        minute = parts.minute ?? 0
        weekday = parts.weekday ?? 1
        secondsFromUTC = timeZone.secondsFromGMT(for: instant)
    }

    /// "Tuesday".
    public var weekdayName: String { Self.weekdayNames[weekday - 1] }

    /// "21:14", "08:05".
    public var timeText: String { Self.twoDigits(hour) + ":" + Self.twoDigits(minute) }

    /// "21:14 on Tuesday".
    public var timeAndWeekdayText: String { "\(timeText) on \(weekdayName)" }

    /// "UTC+0", "UTC+5:30", "UTC-3", "UTC-9:30".
    public var offsetText: String { Self.offsetText(secondsFromUTC: secondsFromUTC) }

    /// "24 Dec".
    public var shortDateText: String { "\(day) \(Self.monthAbbreviations[month - 1])" }

    /// The local calendar day.
    public var localDay: LocalDay { LocalDay(year: year, month: month, day: day) }

    /// An offset from UTC as "UTC+0", "UTC+5:30" or "UTC-3" (minutes only when not whole hours;
    /// seconds, which only historical local mean times have, are left out).
    public static func offsetText(secondsFromUTC seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        let hours = minutes / 60
        let rest = minutes % 60
        return rest == 0 ? "UTC\(sign)\(hours)" : "UTC\(sign)\(hours):\(twoDigits(rest))"
    }

    static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

/// A calendar day, without a zone: a local date ("24 Dec 2026").
public struct LocalDay: Sendable, Hashable, Comparable {
    public let year: Int
    public let month: Int
    public let day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    public static func < (lhs: LocalDay, rhs: LocalDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// "24 Dec".
    public var shortText: String { "\(day) \(LocalClock.monthAbbreviations[month - 1])" }

    /// "24 Dec 2026".
    public var text: String { "\(shortText) \(year)" }

    /// "2026-12-24" (ISO 8601).
    public var isoText: String {
        "\(year)-\(LocalClock.twoDigits(month))-\(LocalClock.twoDigits(day))"
    }

    /// Whether the Gregorian calendar has this day (no 31 Feb).
    public var exists: Bool {
        guard (1...12).contains(month), day >= 1 else { return false }
        let lengths = [31, Self.isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= lengths[month - 1]
    }

    /// The day `count` days later (earlier when negative).
    public func adding(days count: Int) -> LocalDay {
        LocalDay(dayNumber: dayNumber + count)
    }

    /// Days from `self` to `other` (positive when `other` is later).
    public func days(to other: LocalDay) -> Int {
        other.dayNumber - dayNumber
    }

    /// 1 (Sunday) to 7 (Saturday).
    public var weekday: Int {
        // Day 0 (1 Jan 1970) was a Thursday.
        ((dayNumber % 7 + 7 + 4) % 7) + 1
    }

    /// Days since 1 Jan 1970 in the proleptic Gregorian calendar (negative before it): counted in
    /// 400-year eras of 146,097 days, with years starting on 1 March so that a leap day ends one.
    public var dayNumber: Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The day `dayNumber` days after 1 Jan 1970.
    public init(dayNumber: Int) {
        let shifted = dayNumber + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        self.init(year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: month, day: day)
    }

    /// The instant this day starts in `zone` (its first existing moment, where a
    /// daylight-saving change skips midnight).
    public func start(in zone: TimeZone) -> Date {
        Calendar.gregorian(in: zone).startOfDay(for: instant(hour: 12, in: zone))
    }

    /// The instant of local `hour`:00 on this day in `zone` (the first moment after a skipped hour).
    public func instant(hour: Int, in zone: TimeZone) -> Date {
        let calendar = Calendar.gregorian(in: zone)
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour)) ?? Date()
    }

    private static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }
}

extension Calendar {
    /// The Gregorian calendar in `zone`.
    static func gregorian(in zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }
}
