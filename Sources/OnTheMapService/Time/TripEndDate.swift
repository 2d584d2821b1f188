import Foundation

/// The last day of a trip, and the instant the trip's pin ends: the start of the next day in the
/// trip place's zone (so the pin lasts through the whole of its last local day).
public struct TripEnd: Sendable, Hashable {
    /// The last local day of the trip.
    public let lastDay: LocalDay
    /// The trip place's zone.
    public let timeZone: TimeZone
    /// The first instant after the trip: the start of the day after `lastDay` in `timeZone`.
    public let endsAt: Date

    public init(lastDay: LocalDay, timeZone: TimeZone) {
        self.lastDay = lastDay
        self.timeZone = timeZone
        endsAt = lastDay.adding(days: 1).start(in: timeZone)
    }
}

/// Why the `until` of a trip was refused. Each has a sentence for the person who typed it.
public enum TripEndDateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// None of the accepted forms (the text, cleaned for echoing).
    case unreadable(String)
    /// A date the calendar does not have ("31 Feb").
    case noSuchDay(String)
    /// A day that has ended everywhere on Earth.
    case past(LocalDay)
    /// A day that has ended in the trip place's zone, though it is still that day in some other
    /// zones (often the asker's own): `today` is the date in the trip place.
    case alreadyEnded(LocalDay, today: LocalDay)
    /// A day more than `TripEndDateParser.maximumDaysAhead` days after today in the trip place.
    case tooFarAhead(LocalDay)

    public var description: String {
        switch self {
        case .unreadable(let text):
            return "I can't read \"\(text)\" as a date: write \(TripEndDateParser.acceptedForms)."
        case .noSuchDay(let text):
            return "There is no \(text) in the calendar."
        case .past(let day):
            return "\(day.text) is in the past: a trip must end today or later."
        case .alreadyEnded(let day, let today):
            return "\(day.shortText) has already ended at the trip's place (it is \(today.shortText) there): "
                + "a trip must end today or later in its own time zone."
        case .tooFarAhead(let day):
            return "\(day.text) is more than \(TripEndDateParser.maximumDaysAhead) days ahead: "
                + "a trip can last \(TripEndDateParser.maximumDaysAhead) days at most."
        }
    }
}

/// Reads the `until <date>` of a trip, relative to an instant (`now`) in the trip place's zone.
///
/// Accepted forms, case-insensitive:
/// * `2026-12-24`;
/// * `24 Dec`, `Dec 24`, `24 December`, `24th Dec`, with an optional year (`24 Dec 2026`,
///   `Dec 24, 2026`). Without a year, the date of the current, next or previous year that is
///   nearest to today (so `24 Dec` in late November is this December's, `2 Jan` in December is
///   next January's, and `20 Nov` on 27 Nov is refused as past, not taken as next year's);
/// * a weekday (`Sunday`, `sun`, `next Sunday`): the next such day after today, 1 to 7 days ahead,
///   today excluded (on a Sunday, `Sunday` is a week ahead; `today` names today);
/// * `today`, `tomorrow`, `in 3 days`, `in 1 day`, `in 2 weeks`.
///
/// The result is the last day of the trip; it must be today or later in the trip place and at
/// most `maximumDaysAhead` days ahead.
public enum TripEndDateParser {
    /// The furthest a trip may end, in days after today.
    public static let maximumDaysAhead = 90

    /// The forms, for messages: "2026-12-24, 24 Dec, Dec 24, a weekday (Sunday), today, tomorrow or in 3 days".
    public static let acceptedForms = "2026-12-24, 24 Dec, Dec 24, a weekday (Sunday), today, tomorrow or in 3 days"

    /// The longest text echoed back in an error.
    static let echoLimit = 40

    /// The trip's end for `text`, with today taken at `now` in `zone` (the trip place's zone).
    public static func parse(_ text: String, now: Date, in zone: TimeZone) throws(TripEndDateError) -> TripEnd {
        let today = LocalClock(timeZone: zone, instant: now).localDay
        let words = Self.words(of: text)
        guard let day = try Self.day(named: words, today: today) else {
            throw .unreadable(Self.echo(text))
        }
        if day < today {
            // A date that has ended here may still be current somewhere (UTC-12 is the last zone to leave a day).
            if let latest = TimeZone(secondsFromGMT: -12 * 3600), now < day.adding(days: 1).start(in: latest) {
                throw .alreadyEnded(day, today: today)
            }
            throw .past(day)
        }
        guard today.days(to: day) <= maximumDaysAhead else { throw .tooFarAhead(day) }
        return TripEnd(lastDay: day, timeZone: zone)
    }

    /// The day `words` name, nil when they are no accepted form.
    private static func day(named words: [String], today: LocalDay) throws(TripEndDateError) -> LocalDay? {
        switch words.count {
        case 1:
            if words[0] == "today" { return today }
            if words[0] == "tomorrow" { return today.adding(days: 1) }
            if let weekday = weekday(words[0]) { return nextWeekday(weekday, after: today) }
            return try isoDate(words[0])
        case 2 where words[0] == "next":
            guard let weekday = weekday(words[1]) else { return nil }
            return nextWeekday(weekday, after: today)
        case 3 where words[0] == "in":
            guard let count = Int(words[1]), words[1].count <= 4, count >= 0 else { return nil }
            switch words[2] {
            case "day" where count == 1, "days": return today.adding(days: count)
            case "week" where count == 1, "weeks": return today.adding(days: 7 * count)
            default: return nil
            }
        case 2, 3:
            return try dayAndMonth(words, today: today)
        default:
            return nil
        }
    }

    /// `2026-12-24`.
    private static func isoDate(_ word: String) throws(TripEndDateError) -> LocalDay? {
        let parts = word.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, (1...2).contains(parts[1].count), (1...2).contains(parts[2].count),
            let year = Int(parts[0]), let month = Int(parts[1]), let dayNumber = Int(parts[2])
        else { return nil }
        let day = LocalDay(year: year, month: month, day: dayNumber)
        guard (1...12).contains(month) else { return nil }
        guard day.exists else { throw .noSuchDay(day.text) }
        return day
    }

    /// `24 Dec`, `Dec 24`, `24th December`, with an optional year after them.
    private static func dayAndMonth(_ words: [String], today: LocalDay) throws(TripEndDateError) -> LocalDay? {
        let month: Int
        let dayNumber: Int
        if let found = self.month(words[0]), let number = dayOfMonth(words[1]) {
            (month, dayNumber) = (found, number)
        } else if let number = dayOfMonth(words[0]), let found = self.month(words[1]) {
            (month, dayNumber) = (found, number)
        } else {
            return nil
        }
        let name = "\(dayNumber) \(LocalClock.monthAbbreviations[month - 1])"
        if words.count == 3 {
            guard words[2].count == 4, let year = Int(words[2]) else { return nil }
            let day = LocalDay(year: year, month: month, day: dayNumber)
            guard day.exists else { throw .noSuchDay(day.text) }
            return day
        }
        // Without a year: the nearest existing one to today, the later on a tie.
        let candidates = [today.year + 1, today.year, today.year - 1]
            .map { LocalDay(year: $0, month: month, day: dayNumber) }
            .filter(\.exists)
        guard
            let nearest = candidates.min(by: { abs(today.days(to: $0)) < abs(today.days(to: $1)) })
        else {
            throw .noSuchDay(name)
        }
        return nearest
    }

    /// The next `weekday` (1 = Sunday) after `today`: 1 to 7 days ahead.
    private static func nextWeekday(_ weekday: Int, after today: LocalDay) -> LocalDay {
        let ahead = (weekday - today.weekday + 7) % 7
        return today.adding(days: ahead == 0 ? 7 : ahead)
    }

    private static func weekday(_ word: String) -> Int? {
        for (index, name) in LocalClock.weekdayNames.enumerated() {
            let lower = name.lowercased()
            if word == lower || word == String(lower.prefix(3)) { return index + 1 }
        }
        return nil
    }

    private static func month(_ word: String) -> Int? {
        let names = [
            "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
            "november", "december",
        ]
        for (index, name) in names.enumerated() where word == name || word == String(name.prefix(3)) {
            return index + 1
        }
        return word == "sept" ? 9 : nil
    }

    /// `24`, `24th`, `1st`, `2nd`, `3rd`: 1 to 31.
    private static func dayOfMonth(_ word: String) -> Int? {
        var digits = Substring(word)
        for suffix in ["st", "nd", "rd", "th"] where digits.hasSuffix(suffix) {
            digits = digits.dropLast(2)
            break
        }
        guard (1...2).contains(digits.count), digits.allSatisfy(\.isASCII), let number = Int(digits),
            (1...31).contains(number)
        else { return nil }
        return number
    }

    /// Lower-cased words, split at spaces and commas, a final full stop dropped.
    private static func words(of text: String) -> [String] {
        var cleaned = text.lowercased().trimmingCharacters(in: .whitespacesAndNewlines)
        if cleaned.hasSuffix(".") { cleaned.removeLast() }
        return cleaned.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }).map(String.init)
    }

    /// `text` fit to quote back: control characters (CR, LF, NUL...) dropped, at most `echoLimit` characters.
    static func echo(_ text: String) -> String {
        let shown = text.unicodeScalars.filter { scalar in
            let isControl = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            return !isControl && !scalar.properties.isDefaultIgnorableCodePoint
        }
        let visible = String(String.UnicodeScalarView(shown)).trimmingCharacters(in: .whitespaces)
        return visible.count > echoLimit ? String(visible.prefix(echoLimit)) + "…" : visible
    }
}

extension Trip {
    /// The trip's last day in `zone`, its place's (the day before the one its end starts); in UTC
    /// when no single zone is known.
    public func lastDay(in zone: TimeZone?) -> LocalDay {
        LocalClock(timeZone: zone ?? TimeZone(secondsFromGMT: 0)!, instant: endsAt.addingTimeInterval(-1)).localDay
    }
}
