import Foundation

/// What the bot says in one language: each message of the catalogue with its placeholders filled,
/// numbers, dates and plurals written the language's way.
///
///     let phrases = Catalogs.bundled.phrasebook(.french)
///     phrases("lang.set", ["language": "français (fr)"])   // "D’accord : je vous réponds en français (fr)."
///     phrases.number(1234.5, fractionDigits: 1)            // "1 234,5"
///     phrases.place("Munich, Bavaria, Germany")             // "Munich, Bavière, Allemagne"
public struct Phrasebook: Sendable {
    public let language: Language
    public let catalogs: Catalogs

    public init(language: Language, catalogs: Catalogs) {
        self.language = language
        self.catalogs = catalogs
    }

    /// English, from the shipped catalogues.
    public static var english: Phrasebook { Catalogs.bundled.phrasebook(.english) }

    /// The message filed under `key`, its placeholders filled from `values`: the translation when
    /// the language has one, else the English text, else the key itself. A counted message takes
    /// the form its selector's number calls for in this language.
    public func callAsFunction(_ key: String, _ values: [String: any PhraseValue] = [:]) -> String {
        guard let message = catalogs.message(key, in: language) else { return key }
        let text: String
        switch message {
        case .text(let plain):
            text = plain
        case .counted(let selector, let forms):
            let count = values[selector]?.pluralCount ?? 0
            text = forms[language.pluralRule.category(of: count)] ?? forms[.other] ?? forms.values.first ?? key
        }
        return Placeholders.fill(text) { name in values[name]?.written(in: self) }
    }

    /// A place's name as this language writes it: "Munich, Bavaria, Germany" reads "Munich,
    /// Bavière, Allemagne" in French. Only a country at the end and the division before it are
    /// translated, when known (``PlaceNames``); anything else, and every name in English, stays as given.
    public func place(_ name: String) -> String {
        guard language != .english else { return name }
        return catalogs.placeNames.translate(name, into: language)
    }

    /// A wait in words: "1 second", "45 seconds", "3 minutes" (whole minutes from two on, rounded
    /// up); with `hours`, whole hours from two hours on ("5 hours").
    public func duration(seconds: Int, hours: Bool = false) -> String {
        let seconds = max(1, seconds)
        if hours, seconds >= 2 * 3600 { return self("duration.hours", ["count": seconds / 3600]) }
        if seconds >= 120 { return self("duration.minutes", ["count": (seconds + 59) / 60]) }
        return self("duration.seconds", ["count": seconds])
    }

    /// A whole number with the language's grouping ("1,234", "1 234", "1.234").
    public func number(_ value: Int) -> String {
        value.formatted(.number.locale(language.locale))
    }

    /// A number with exactly `fractionDigits` decimals and the language's separators ("1 234,5").
    public func number(_ value: Double, fractionDigits: Int) -> String {
        guard value.isFinite else { return number(0) }
        return value.formatted(
            .number.locale(language.locale).precision(.fractionLength(fractionDigits)))
    }

    /// The name of a weekday (1 = Sunday … 7 = Saturday), as a sentence's middle writes it.
    public func weekday(_ weekday: Int) -> String {
        Self.calendarDate(year: 2023, month: 1, day: max(1, min(7, weekday)))
            .formatted(Date.FormatStyle(timeZone: Self.utc).weekday(.wide).locale(language.locale))
    }

    /// A time of day on the 24-hour clock, the language's way ("21:14", "21 h 14" is not used).
    public func time(hour: Int, minute: Int) -> String {
        let date = Self.calendarDate(year: 2023, month: 1, day: 1, hour: hour, minute: minute)
        var style = Date.VerbatimFormatStyle(
            format: "\(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits)",
            timeZone: Self.utc, calendar: Self.gregorian)
        style.locale = language.locale
        return date.formatted(style)
    }

    /// A day and month, abbreviated ("24 Dec", "24 déc.", "12月24日").
    public func shortDate(day: Int, month: Int) -> String {
        Self.calendarDate(year: 2024, month: month, day: day)
            .formatted(Date.FormatStyle(timeZone: Self.utc).day().month(.abbreviated).locale(language.locale))
    }

    /// A day, month and year ("24 Dec 2026", "24 dic 2026", "2026年12月24日").
    public func date(day: Int, month: Int, year: Int) -> String {
        Self.calendarDate(year: year, month: month, day: day)
            .formatted(
                Date.FormatStyle(timeZone: Self.utc).day().month(.abbreviated).year().locale(language.locale))
    }

    private static let utc = TimeZone(identifier: "UTC") ?? .gmt
    private static let gregorian: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        return calendar
    }()

    private static func calendarDate(year: Int, month: Int, day: Int, hour: Int = 12, minute: Int = 0) -> Date {
        gregorian.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)) ?? Date()
    }
}

/// A value a message's placeholder shows: text as it is, numbers the language's way.
public protocol PhraseValue: Sendable {
    /// How the value reads in `phrases`' language.
    func written(in phrases: Phrasebook) -> String
    /// The number that chooses a counted message's form, when this value is one.
    var pluralCount: Int? { get }
}

extension String: PhraseValue {
    public func written(in phrases: Phrasebook) -> String { self }
    public var pluralCount: Int? { nil }
}

extension Substring: PhraseValue {
    public func written(in phrases: Phrasebook) -> String { String(self) }
    public var pluralCount: Int? { nil }
}

extension Int: PhraseValue {
    public func written(in phrases: Phrasebook) -> String { phrases.number(self) }
    public var pluralCount: Int? { self }
}

/// A number shown with a fixed count of decimals ("2,5").
public struct DecimalNumber: PhraseValue {
    public var value: Double
    public var fractionDigits: Int

    public init(_ value: Double, fractionDigits: Int) {
        self.value = value
        self.fractionDigits = fractionDigits
    }

    public func written(in phrases: Phrasebook) -> String { phrases.number(value, fractionDigits: fractionDigits) }
    public var pluralCount: Int? { fractionDigits == 0 && value.isFinite ? Int(value.rounded()) : nil }
}
