import Crypto
import Foundation

/// One student's trips as an iCalendar feed (RFC 5545): a VCALENDAR with one all-day VEVENT per
/// kept trip, and none (a valid, empty calendar) when the student has no trip.
///
/// Each event runs from the day the trip was set (the pin's last change, which setting a trip is)
/// to its last day: `DTSTART;VALUE=DATE` and an exclusive `DTEND;VALUE=DATE` (the day the home
/// pin shows again), both in the trip place's time zone when it is known. `LOCATION` is the
/// place's text as kept and `GEO` its point as kept, which is already no finer than the level the
/// student chose. The `UID` is derived from the pin and the trip, so a calendar app polling the feed
/// sees the same event until the trip changes. Lines end with CRLF, are folded at 75 octets on
/// UTF-8 boundaries, and TEXT values are escaped.
public struct OwnTripsCalendar: Sendable {
    /// The media type of the feed.
    public static let mediaType = "text/calendar; charset=utf-8"
    /// The longest line in octets, without its CRLF (RFC 5545, 3.1).
    static let lineOctets = 75

    /// One trip of the feed.
    public struct Event: Sendable {
        /// The pin whose trip it is.
        public var pinId: String
        public var trip: Trip
        /// When the trip was set (the pin's last change).
        public var setAt: Date
        /// The time zone the trip's days are counted in; nil: the nearest UTC midnight to its end
        /// is taken as its exclusive end.
        public var zone: TimeZone?
        /// What the calendar shows as the event's title ("Trip: Lisbon").
        public var summary: String

        public init(pinId: String, trip: Trip, setAt: Date, zone: TimeZone?, summary: String) {
            self.pinId = pinId
            self.trip = trip
            self.setAt = setAt
            self.zone = zone
            self.summary = summary
        }
    }

    public var events: [Event]
    /// The calendar's name in calendar apps (`X-WR-CALNAME`).
    public var name: String
    /// When the feed was written (every event's `DTSTAMP`).
    public var stamp: Date

    public init(events: [Event], name: String, stamp: Date) {
        self.events = events
        self.name = name
        self.stamp = stamp
    }

    /// The feed's text, every line ending in CRLF.
    public func text() -> String {
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//On The Map for IRC//Trips//EN", "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH", "X-WR-CALNAME:" + Self.escape(name),
        ]
        for event in events {
            let (start, end) = Self.days(of: event)
            lines += [
                "BEGIN:VEVENT",
                "UID:" + Self.uid(of: event),
                "DTSTAMP:" + Self.timestamp(stamp),
                "DTSTART;VALUE=DATE:" + start,
                "DTEND;VALUE=DATE:" + end,
                "SUMMARY:" + Self.escape(event.summary),
                "LOCATION:" + Self.escape(event.trip.mapString),
            ]
            if event.trip.coordinate.isValid {
                lines.append(
                    "GEO:" + Self.decimal(event.trip.coordinate.latitude) + ";"
                        + Self.decimal(event.trip.coordinate.longitude))
            }
            lines += ["TRANSP:TRANSPARENT", "END:VEVENT"]
        }
        lines.append("END:VCALENDAR")
        return lines.map { Self.fold($0) + "\r\n" }.joined()
    }

    /// A TEXT value escaped (RFC 5545, 3.3.11): backslash, semicolon and comma get a backslash, a
    /// line break (CRLF, LF or CR) becomes `\n`, and other control characters are dropped.
    static func escape(_ text: String) -> String {
        var out = ""
        var scalars = text.unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            switch scalar {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\r":
                out += "\\n"
                if pending == "\n" { pending = scalars.next() }
            case "\n": out += "\\n"
            case "\t": out += " "
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `line` folded (RFC 5545, 3.1): no physical line longer than 75 octets, each continuation
    /// starting with one space (which counts), never splitting a UTF-8 sequence.
    static func fold(_ line: String) -> String {
        guard line.utf8.count > lineOctets else { return line }
        var out = ""
        var used = 0
        for scalar in line.unicodeScalars {
            let size = String(scalar).utf8.count
            if used + size > lineOctets {
                out += "\r\n "
                used = 1
            }
            out.unicodeScalars.append(scalar)
            used += size
        }
        return out
    }

    /// The event's days: its first and its exclusive end, as `yyyyMMdd`.
    static func days(of event: Event) -> (start: String, end: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = event.zone ?? TimeZone(identifier: "UTC")!
        let endDay: Date
        if event.zone != nil {
            // A trip ends at a midnight of its place; one that does not ends during its last day,
            // and the day after it is the exclusive end.
            let day = calendar.startOfDay(for: event.trip.endsAt)
            endDay = day == event.trip.endsAt ? day : calendar.date(byAdding: .day, value: 1, to: day) ?? day
        } else {
            // The trip ends at a midnight of its place: the nearest UTC midnight is its day.
            endDay = calendar.startOfDay(for: event.trip.endsAt.addingTimeInterval(12 * 3600))
        }
        var startDay = calendar.startOfDay(for: min(event.setAt, event.trip.endsAt))
        if startDay >= endDay {
            startDay = calendar.date(byAdding: .day, value: -1, to: endDay) ?? endDay
        }
        return (dayText(startDay, calendar), dayText(endDay, calendar))
    }

    static func dayText(_ day: Date, _ calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: day)
        return String(format: "%04d%02d%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }

    /// A UTC date-time, `yyyyMMdd'T'HHmmss'Z'`.
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1, parts.hour ?? 0,
            parts.minute ?? 0, parts.second ?? 0)
    }

    /// The same for the same pin and trip (place, point and end), different for another.
    static func uid(of event: Event) -> String {
        let identity = [
            event.pinId, event.trip.mapString, "\(event.trip.coordinate.latitude)",
            "\(event.trip.coordinate.longitude)", "\(Int64(event.trip.endsAt.timeIntervalSince1970))",
        ].joined(separator: "\u{1F}")
        let digest = SHA256.hash(data: Array(identity.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
        return "trip-\(digest)@onthemap"
    }

    /// A FLOAT value: plain decimal notation, never an exponent.
    static func decimal(_ value: Double) -> String {
        let plain = "\(value)"
        guard plain.contains("e") || plain.contains("E") else { return plain }
        var fixed = String(format: "%.12f", value)
        while fixed.hasSuffix("0") { fixed.removeLast() }
        if fixed.hasSuffix(".") { fixed.removeLast() }
        return fixed
    }
}
