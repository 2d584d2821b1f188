import Foundation
import OnTheMapService

/// The body of `/api/locations.json`: the pins of the map and its table, newest update first.
public struct MapLocationsDocument: Sendable, Codable, Equatable {
    /// One pin as the page shows it.
    public struct Pin: Sendable, Codable, Equatable {
        public var id: String
        /// "First Last", as the student gave it (plain text; the page never parses it as HTML).
        public var name: String
        /// The place as the student typed it.
        public var place: String
        /// The student's link exactly as given.
        public var link: String
        /// Whether `link` is an http(s) URL the page may open.
        public var linkOpens: Bool
        public var latitude: Double
        public var longitude: Double
        public var updatedAt: Date
    }

    /// Changes whenever a pin is added, moved or updated: the page redraws only then.
    public var version: String
    public var count: Int
    public var pins: [Pin]
    /// What to send as `since` next time to get only what changed (nil: the page cannot).
    public var cursor: String?

    public init(locations: [StudentLocation], cursor: String? = nil) {
        pins = Self.pins(locations)
        count = pins.count
        version = Self.version(of: locations)
        self.cursor = cursor
    }

    /// The pins with a valid coordinate, as the page shows them.
    static func pins(_ locations: [StudentLocation]) -> [Pin] {
        locations.filter { $0.coordinate.isValid }.map {
            Pin(
                id: $0.objectId, name: $0.fullName, place: $0.mapString, link: $0.mediaURL,
                linkOpens: Self.isWebLink($0.mediaURL), latitude: $0.coordinate.latitude,
                longitude: $0.coordinate.longitude, updatedAt: $0.updatedAt)
        }
    }

    /// Whether `link` is an absolute http or https URL with a host (nothing else is ever opened).
    public static func isWebLink(_ link: String) -> Bool {
        let trimmed = link.trimmingCharacters(in: .whitespaces)
        guard trimmed == link, !link.contains(where: { $0.isWhitespace || $0.isNewline }),
            let components = URLComponents(string: link), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { return false }
        return true
    }

    /// A stable fingerprint (FNV-1a, 64 bit) of every pin's id, update time and content.
    static func version(of locations: [StudentLocation]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for pin in locations {
            let millis = Int64((pin.updatedAt.timeIntervalSince1970 * 1000).rounded())
            let line =
                "\(pin.objectId)@\(millis)|\(pin.fullName)|\(pin.mapString)|\(pin.mediaURL)|"
                + "\(pin.coordinate.latitude),\(pin.coordinate.longitude)\n"
            for byte in line.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
        }
        return String(hash, radix: 16)
    }

    /// The JSON text, with `<`, `>` and `&` written as `\u003c`, `\u003e`, `\u0026` so it stays
    /// inert even if something treats it as HTML.
    public func encoded() throws -> Data {
        try Self.encode(self)
    }

    static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
            .replacingOccurrences(of: "&", with: "\\u0026")
            .replacingOccurrences(of: "<", with: "\\u003c")
            .replacingOccurrences(of: ">", with: "\\u003e")
        return Data(text.utf8)
    }

    /// Reads a document written by ``encoded()``.
    public static func decode(_ data: Data) throws -> MapLocationsDocument {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(MapLocationsDocument.self, from: data)
    }
}

/// The body of `/api/locations.json?since=<cursor>`: what changed after the cursor.
public struct MapLocationsChanges: Sendable, Codable, Equatable {
    /// The cursor asked from.
    public var since: String
    /// What to send as `since` next time.
    public var cursor: String
    /// How many pins the map has now.
    public var count: Int
    /// Pins added, moved or updated since, newest update first.
    public var changed: [MapLocationsDocument.Pin]
    /// The ids of pins removed since.
    public var removed: [String]

    public init(since: String, cursor: String, count: Int, changed: [StudentLocation], removed: [String]) {
        self.since = since
        self.cursor = cursor
        self.count = count
        self.changed = MapLocationsDocument.pins(changed)
        self.removed = removed
    }

    public func encoded() throws -> Data {
        try MapLocationsDocument.encode(self)
    }

    public static func decode(_ data: Data) throws -> MapLocationsChanges {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(MapLocationsChanges.self, from: data)
    }
}
