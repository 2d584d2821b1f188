import Foundation
import Localization

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

/// Why the `until` of a trip was refused. Each has a sentence for the person who typed it, in
/// their language (``sentence(in:)``); ``description`` is the English one.
public enum TripEndDateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// None of the accepted forms (the text, cleaned for echoing).
    case unreadable(String)
    /// A date the calendar does not have ("31 Feb"); `year` when it was typed.
    case noSuchDay(day: Int, month: Int, year: Int?)
    /// A day that has ended everywhere on Earth.
    case past(LocalDay)
    /// A day that has ended in the trip place's zone, though it is still that day in some other
    /// zones (often the asker's own): `today` is the date in the trip place.
    case alreadyEnded(LocalDay, today: LocalDay)
    /// A day more than `TripEndDateParser.maximumDaysAhead` days after today in the trip place.
    case tooFarAhead(LocalDay)

    public var description: String { sentence(in: .english) }

    /// The refusal in `phrases`' language.
    public func sentence(in phrases: Phrasebook) -> String {
        func date(_ day: LocalDay) -> String { phrases.date(day: day.day, month: day.month, year: day.year) }
        func short(_ day: LocalDay) -> String { phrases.shortDate(day: day.day, month: day.month) }
        switch self {
        case .unreadable(let text):
            return phrases(
                "trip.date.unreadable", ["text": text, "forms": TripEndDateParser.acceptedForms(in: phrases)])
        case .noSuchDay(let day, let month, let year):
            let words = TripDateWords.of(phrases.language)
            var shown = phrases("trip.date.dayAndMonth", ["day": day, "month": words.monthAbbreviation(month)])
            if let year { shown += " \(year)" }
            return phrases("trip.date.noSuchDay", ["date": shown])
        case .past(let day):
            return phrases("trip.date.past", ["date": date(day)])
        case .alreadyEnded(let day, let today):
            return phrases("trip.date.alreadyEnded", ["date": short(day), "today": short(today)])
        case .tooFarAhead(let day):
            return phrases("trip.date.tooFarAhead", ["date": date(day), "count": TripEndDateParser.maximumDaysAhead])
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
/// In another language the reader's words are read too (``TripDateWords``): month and weekday
/// names and their abbreviations as that language writes them (`24 dic`, `24 de diciembre`,
/// `24. Dez`, `domingo`, `12月24日`), and its words for today and tomorrow (`hoy`, `demain`).
///
/// The result is the last day of the trip; it must be today or later in the trip place and at
/// most `maximumDaysAhead` days ahead.
public enum TripEndDateParser {
    /// The furthest a trip may end, in days after today.
    public static let maximumDaysAhead = 90

    /// The forms, for messages: "2026-12-24, 24 Dec, Dec 24, a weekday (Sunday), today, tomorrow or in 3 days".
    public static var acceptedForms: String { acceptedForms(in: .english) }

    /// The forms in `phrases`' language, with its own month and weekday names.
    public static func acceptedForms(in phrases: Phrasebook) -> String {
        phrases(
            "trip.date.forms",
            [
                "iso": "2026-12-24", "dayAndMonth": phrases.shortDate(day: 24, month: 12),
                "weekday": phrases.weekday(1),
            ])
    }

    /// The longest text echoed back in an error.
    static let echoLimit = 40

    /// The trip's end for `text`, with today taken at `now` in `zone` (the trip place's zone).
    /// `language`'s words are read besides English ones.
    public static func parse(
        _ text: String, now: Date, in zone: TimeZone, language: Language = .english
    ) throws(TripEndDateError) -> TripEnd {
        let today = LocalClock(timeZone: zone, instant: now).localDay
        let words = Self.words(of: text)
        let native = language == .english ? nil : TripDateWords.of(language)
        var found = try Self.day(named: words, today: today, native: native)
        if found == nil, let native {
            found = try native.day(named: words, today: today)
        }
        guard let day = found else { throw .unreadable(Self.echo(text)) }
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
    private static func day(
        named words: [String], today: LocalDay, native: TripDateWords?
    ) throws(TripEndDateError) -> LocalDay? {
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
            return try dayAndMonth(words, today: today) { self.month($0) ?? native?.month($0) }
        default:
            return nil
        }
    }

    /// `2026-12-24`.
    static func isoDate(_ word: String) throws(TripEndDateError) -> LocalDay? {
        let parts = word.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, (1...2).contains(parts[1].count), (1...2).contains(parts[2].count),
            let year = Int(parts[0]), let month = Int(parts[1]), let dayNumber = Int(parts[2])
        else { return nil }
        let day = LocalDay(year: year, month: month, day: dayNumber)
        guard (1...12).contains(month) else { return nil }
        guard day.exists else { throw .noSuchDay(day: dayNumber, month: month, year: year) }
        return day
    }

    /// `24 Dec`, `Dec 24`, `24th December`, with an optional year after them.
    static func dayAndMonth(
        _ words: [String], today: LocalDay, monthNamed: (String) -> Int?
    ) throws(TripEndDateError) -> LocalDay? {
        let month: Int
        let dayNumber: Int
        if let found = monthNamed(words[0]), let number = dayOfMonth(words[1]) {
            (month, dayNumber) = (found, number)
        } else if let number = dayOfMonth(words[0]), let found = monthNamed(words[1]) {
            (month, dayNumber) = (found, number)
        } else {
            return nil
        }
        if words.count == 3 {
            guard words[2].count == 4, let year = Int(words[2]) else { return nil }
            let day = LocalDay(year: year, month: month, day: dayNumber)
            guard day.exists else { throw .noSuchDay(day: dayNumber, month: month, year: year) }
            return day
        }
        // Without a year: the nearest existing one to today, the later on a tie.
        let candidates = [today.year + 1, today.year, today.year - 1]
            .map { LocalDay(year: $0, month: month, day: dayNumber) }
            .filter(\.exists)
        guard
            let nearest = candidates.min(by: { abs(today.days(to: $0)) < abs(today.days(to: $1)) })
        else {
            throw .noSuchDay(day: dayNumber, month: month, year: nil)
        }
        return nearest
    }

    /// The next `weekday` (1 = Sunday) after `today`: 1 to 7 days ahead.
    static func nextWeekday(_ weekday: Int, after today: LocalDay) -> LocalDay {
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
    static func dayOfMonth(_ word: String) -> Int? {
        var digits = Substring(word)
        // "24." is how German writes the day.
        if digits.hasSuffix(".") { digits = digits.dropLast() }
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
    static func words(of text: String) -> [String] {
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

/// A language's own words for a trip's last day, read besides English ones: month and weekday
/// names as Foundation writes them in the language's locale (full and abbreviated, accents and case
/// ignored, a final full stop dropped), the words for today and tomorrow from the language's message
/// catalogue (`trip.date.today`, `trip.date.tomorrow`: alternatives separated by `|`), `de`/`del`
/// between day and month ("24 de diciembre"), and Japanese `12月24日`.
public struct TripDateWords: Sendable {
    let months: [String: Int]
    let weekdays: [String: Int]
    let monthAbbreviations: [String]
    let today: Set<String>
    let tomorrow: Set<String>

    /// The words of `language`, made once.
    public static func of(_ language: Language) -> TripDateWords {
        all[language] ?? all[.english] ?? TripDateWords(language: .english)
    }

    private static let all: [Language: TripDateWords] = Dictionary(
        uniqueKeysWithValues: Language.supported.map { ($0, TripDateWords(language: $0)) })

    init(language: Language) {
        let formatter = DateFormatter()
        formatter.locale = language.locale
        var months: [String: Int] = [:]
        for list in [
            formatter.monthSymbols, formatter.shortMonthSymbols, formatter.standaloneMonthSymbols,
            formatter.shortStandaloneMonthSymbols,
        ] {
            for (index, name) in list.enumerated() { months[Self.folded(name)] = index + 1 }
        }
        var weekdays: [String: Int] = [:]
        for list in [
            formatter.weekdaySymbols, formatter.shortWeekdaySymbols, formatter.standaloneWeekdaySymbols,
            formatter.shortStandaloneWeekdaySymbols,
        ] {
            for (index, name) in list.enumerated() { weekdays[Self.folded(name)] = index + 1 }
        }
        months[""] = nil
        weekdays[""] = nil
        self.months = months
        self.weekdays = weekdays
        let abbreviations: [String] = formatter.shortStandaloneMonthSymbols
        monthAbbreviations =
            language == .english || abbreviations.count != 12 ? LocalClock.monthAbbreviations : abbreviations
        let phrases = Catalogs.bundled.phrasebook(language)
        func alternatives(_ text: String) -> Set<String> {
            Set(text.split(separator: "|").map { Self.folded(String($0)) }.filter { !$0.isEmpty })
        }
        today = alternatives(phrases("trip.date.today"))
        tomorrow = alternatives(phrases("trip.date.tomorrow"))
    }

    /// The short name of `month` (1 to 12).
    func monthAbbreviation(_ month: Int) -> String {
        monthAbbreviations[max(1, min(12, month)) - 1]
    }

    /// The month `word` names, if any.
    func month(_ word: String) -> Int? { months[Self.folded(word)] }

    /// The day `words` (as ``TripEndDateParser`` splits them) name in this language, nil when none.
    func day(named words: [String], today day: LocalDay) throws(TripEndDateError) -> LocalDay? {
        let words = words.filter { $0 != "de" && $0 != "del" }
        switch words.count {
        case 1:
            let word = Self.folded(words[0])
            if today.contains(word) { return day }
            if tomorrow.contains(word) { return day.adding(days: 1) }
            if let weekday = weekdays[word] { return TripEndDateParser.nextWeekday(weekday, after: day) }
            return try Self.japaneseDate(words[0], today: day)
        case 2, 3:
            return try TripEndDateParser.dayAndMonth(words, today: day) { month($0) }
        default:
            return nil
        }
    }

    /// `12月24日` and `2026年12月24日`.
    static func japaneseDate(_ word: String, today: LocalDay) throws(TripEndDateError) -> LocalDay? {
        guard word.hasSuffix("日"), word.contains("月") else { return nil }
        var rest = Substring(word.dropLast())
        var year: String?
        if let mark = rest.firstIndex(of: "年") {
            year = String(rest[..<mark])
            rest = rest[rest.index(after: mark)...]
        }
        let parts = rest.split(separator: "月", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[0].allSatisfy(\.isASCII),
            let month = Int(parts[0]), (1...12).contains(month)
        else { return nil }
        var words = [String(parts[1]), LocalClock.monthAbbreviations[month - 1].lowercased()]
        if let year { words.append(year) }
        return try TripEndDateParser.dayAndMonth(words, today: today) { _ in month }
    }

    /// `word` lower-cased, without accents or a final full stop.
    static func folded(_ word: String) -> String {
        var folded = word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        while folded.hasSuffix(".") { folded.removeLast() }
        return folded
    }
}
