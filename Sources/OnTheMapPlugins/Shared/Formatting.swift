import Foundation
import IRCProtocol
import Localization
import OnTheMapService

/// Kilometres or miles, for distances shown to students.
public enum UnitSystem: String, Sendable, Hashable, CaseIterable, Codable {
    case km, mi
}

/// How the class plugins write distances, ages and students on one IRC line.
public enum Formatting {
    /// The most bytes one reply line may have, leaving room for "nick: " and the IRC prefix.
    public static let lineBudget = 360
    static let nameBudget = 64
    static let placeBudget = 96
    static let linkBudget = 160

    /// A distance in whole units with the reader's separators: "0 km", "12 km", "1,234 mi",
    /// "1 234 km".
    public static func distance(kilometres: Double, in unit: UnitSystem, phrases: Phrasebook) -> String {
        let value = unit == .km ? kilometres : kilometres / 1.609_344
        let rounded = value.isFinite ? Int(value.rounded()) : 0
        return phrases(unit == .km ? "distance.km" : "distance.mi", ["distance": max(0, rounded)])
    }

    /// A distance no finer than the pins it is between (`precision`: the coarser of the two): exact
    /// pins get whole units; otherwise "same city" (or region, country) when both are the same
    /// place, else "~35 km", rounded to 5, 50 or 500 units for a city, region or country.
    public static func distance(
        kilometres: Double, in unit: UnitSystem, precision: PinPrecision, phrases: Phrasebook
    ) -> String {
        let step: Double
        let same: String
        switch precision {
        case .exact: return distance(kilometres: kilometres, in: unit, phrases: phrases)
        case .city: (step, same) = (5, "distance.sameCity")
        case .region: (step, same) = (50, "distance.sameRegion")
        case .country: (step, same) = (500, "distance.sameCountry")
        }
        guard kilometres.isFinite, kilometres >= 1 else { return phrases(same) }
        let value = unit == .km ? kilometres : kilometres / 1.609_344
        let rounded = max(step, (value / step).rounded() * step)
        return phrases(unit == .km ? "distance.aboutKm" : "distance.aboutMi", ["distance": Int(rounded)])
    }

    /// How long ago `date` was, seen from `now`: "just now", "5 minutes ago", "1 day ago".
    public static func age(of date: Date, now: Date, phrases: Phrasebook) -> String {
        let seconds = Int(now.timeIntervalSince(date))
        if seconds < 60 { return phrases("age.justNow") }
        let units: [(Int, String)] = [
            (365 * 86_400, "age.years"), (30 * 86_400, "age.months"), (7 * 86_400, "age.weeks"),
            (86_400, "age.days"), (3600, "age.hours"), (60, "age.minutes"),
        ]
        for (size, key) in units where seconds >= size {
            return phrases(key, ["count": seconds / size])
        }
        return phrases("age.justNow")
    }

    /// A student's name from the backend, made safe and short.
    public static func name(_ pin: StudentLocation) -> String {
        clean(pin.fullName, maxBytes: nameBudget, fallback: "(no name)")
    }

    /// A place typed by a student, made safe and short.
    public static func place(_ text: String) -> String {
        clean(text, maxBytes: placeBudget, fallback: "(no place)")
    }

    /// A place as the reader of `phrases` writes it (``Phrasebook/place(_:)``: "Munich, Bavière,
    /// Allemagne" in French), made safe and short: the text is cleaned, translated, then cut to
    /// the place's byte budget, so a longer translation keeps to the same budget.
    public static func place(_ text: String, phrases: Phrasebook) -> String {
        place(text, phrases: phrases, maxBytes: placeBudget)
    }

    /// ``place(_:phrases:)`` cut to `maxBytes`.
    static func place(_ text: String, phrases: Phrasebook, maxBytes: Int) -> String {
        let cleaned = clean(text, maxBytes: .max)
        guard !cleaned.isEmpty else { return "(no place)" }
        return clean(phrases.place(cleaned), maxBytes: maxBytes, fallback: "(no place)")
    }

    /// A student's link, made safe and short.
    public static func link(_ text: String) -> String {
        clean(text, maxBytes: linkBudget, fallback: "(no link)")
    }

    /// Untrusted text without control characters or formatting, one line, trimmed to `maxBytes`.
    public static func clean(_ text: String, maxBytes: Int, fallback: String = "") -> String {
        let cleaned = TextSanitizer.untrusted(text).split(whereSeparator: \.isWhitespace).joined(
            separator: " ")
        guard !cleaned.isEmpty else { return fallback }
        return TextSanitizer.truncated(cleaned, maxBytes: maxBytes)
    }

    /// Joins parts with " — " and makes sure the line fits one IRC message.
    public static func line(_ parts: [String]) -> String {
        TextSanitizer.truncated(parts.joined(separator: " — "), maxBytes: lineBudget)
    }

    /// `!where` / `!list`: "Jane Doe — Seattle, WA — https://… — 3 days ago".
    /// The place is the one shown at `now`: a trip's while it lasts (``StudentLocation/shown(at:)``).
    public static func student(_ pin: StudentLocation, now: Date, phrases: Phrasebook) -> String {
        line([
            name(pin), place(pin.shown(at: now).mapString, phrases: phrases), link(pin.mediaURL),
            age(of: pin.updatedAt, now: now, phrases: phrases),
        ])
    }

    /// `!near`: "Jane Doe — 12 km — Bellevue, WA — https://…".
    public static func neighbour(
        _ pin: StudentLocation, kilometres: Double, unit: UnitSystem, precision: PinPrecision = .exact,
        phrases: Phrasebook
    ) -> String {
        line([
            name(pin), distance(kilometres: kilometres, in: unit, precision: precision, phrases: phrases),
            place(pin.mapString, phrases: phrases), link(pin.mediaURL),
        ])
    }

    /// "Jane Doe" from a profile, safe to print.
    public static func displayName(_ profile: StudentProfile) -> String {
        let full = "\(profile.firstName) \(profile.lastName)".trimmingCharacters(in: .whitespaces)
        let name = full.isEmpty ? (profile.nickname ?? "") : full
        return clean(name, maxBytes: nameBudget, fallback: "student")
    }

    /// A coordinate for people: "47.6062, -122.3321".
    public static func coordinate(_ c: Coordinate) -> String {
        String(format: "%.4f, %.4f", c.latitude, c.longitude)
    }
}
