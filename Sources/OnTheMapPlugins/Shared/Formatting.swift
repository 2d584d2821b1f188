import Foundation
import IRCProtocol
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

    /// A distance in whole units with thousands separators: "0 km", "12 km", "1,234 mi".
    public static func distance(kilometres: Double, in unit: UnitSystem) -> String {
        let value = unit == .km ? kilometres : kilometres / 1.609_344
        let rounded = value.isFinite ? Int(value.rounded()) : 0
        return "\(grouped(max(0, rounded))) \(unit.rawValue)"
    }

    /// A distance no finer than the pins it is between (`precision`: the coarser of the two): exact
    /// pins get whole units; otherwise "same city" (or region, country) when both are the same
    /// place, else "~35 km", rounded to 5, 50 or 500 units for a city, region or country.
    public static func distance(kilometres: Double, in unit: UnitSystem, precision: PinPrecision) -> String {
        let step: Double
        let place: String
        switch precision {
        case .exact: return distance(kilometres: kilometres, in: unit)
        case .city: (step, place) = (5, "city")
        case .region: (step, place) = (50, "region")
        case .country: (step, place) = (500, "country")
        }
        guard kilometres.isFinite, kilometres >= 1 else { return "same \(place)" }
        let value = unit == .km ? kilometres : kilometres / 1.609_344
        let rounded = max(step, (value / step).rounded() * step)
        return "~\(grouped(Int(rounded))) \(unit.rawValue)"
    }

    /// 1234567 → "1,234,567".
    public static func grouped(_ number: Int) -> String {
        let digits = String(number)
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }

    /// How long ago `date` was, seen from `now`: "just now", "5 minutes ago", "1 day ago".
    public static func age(of date: Date, now: Date) -> String {
        let seconds = Int(now.timeIntervalSince(date))
        if seconds < 60 { return "just now" }
        let units: [(Int, String)] = [
            (365 * 86_400, "year"), (30 * 86_400, "month"), (7 * 86_400, "week"), (86_400, "day"),
            (3600, "hour"), (60, "minute"),
        ]
        for (size, name) in units where seconds >= size {
            let count = seconds / size
            return "\(count) \(name)\(count == 1 ? "" : "s") ago"
        }
        return "just now"
    }

    /// A student's name from the backend, made safe and short.
    public static func name(_ pin: StudentLocation) -> String {
        clean(pin.fullName, maxBytes: nameBudget, fallback: "(no name)")
    }

    /// A place typed by a student, made safe and short.
    public static func place(_ text: String) -> String {
        clean(text, maxBytes: placeBudget, fallback: "(no place)")
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
    public static func student(_ pin: StudentLocation, now: Date) -> String {
        line([name(pin), place(pin.shown(at: now).mapString), link(pin.mediaURL), age(of: pin.updatedAt, now: now)])
    }

    /// `!near`: "Jane Doe — 12 km — Bellevue, WA — https://…".
    public static func neighbour(
        _ pin: StudentLocation, kilometres: Double, unit: UnitSystem, precision: PinPrecision = .exact
    ) -> String {
        line([
            name(pin), distance(kilometres: kilometres, in: unit, precision: precision), place(pin.mapString),
            link(pin.mediaURL),
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
