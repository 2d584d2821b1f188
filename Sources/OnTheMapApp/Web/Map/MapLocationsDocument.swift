import ClassKit
import Foundation
import NIOCore
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
        /// The zone of the place the pin shows: an IANA name ("Europe/Lisbon"), "several" for a
        /// country whose towns keep different times, absent when not known. The page shows the
        /// student's local time by it.
        public var timeZone: String?
        /// While the student is on a trip, the trip's last day there ("2026-12-24"); `place` and
        /// the coordinates are then the trip's.
        public var until: String?
    }

    /// Changes whenever a pin is added, moved or updated: the page redraws only then.
    public var version: String
    public var count: Int
    public var pins: [Pin]
    /// What to send as `since` next time to get only what changed (nil: the page cannot).
    public var cursor: String?

    /// The JSON of every pin with a valid coordinate, in the order given (newest update first), as
    /// they show at `now` (time zones are not looked up here: ``MapPinFeed`` does), and the cursor
    /// to ask for changes from, in one buffer (pins with the same objectId count once).
    public static func json(locations: [StudentLocation], cursor: String? = nil, now: Date = Date()) -> ByteBuffer {
        let store = PinStore(locations)
        let slots = locations.compactMap { store.slot(of: $0.objectId) }.map { Int32($0) }
        var writer = MapDocumentWriter(
            pins: .init(store: store, slots: slots, now: now, trips: MapPinFeed.ShownTrip.lasting(in: store, at: now)),
            shape: .document(cursor: cursor))
        return writer.whole()
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

    /// Reads a document written by ``json(locations:cursor:)``.
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

    /// The JSON of what changed after `since`: the pins added, moved or updated (newest update
    /// first) and the ids of those removed, in one buffer.
    public static func json(
        since: String, cursor: String, count: Int, changed: [StudentLocation], removed: [String], now: Date = Date()
    ) -> ByteBuffer {
        let store = PinStore(changed)
        let slots = changed.compactMap { store.slot(of: $0.objectId) }.map { Int32($0) }
        var writer = MapDocumentWriter(
            pins: .init(store: store, slots: slots, now: now, trips: MapPinFeed.ShownTrip.lasting(in: store, at: now)),
            shape: .changes(since: since, cursor: cursor, count: count, removed: removed))
        return writer.whole()
    }

    public static func decode(_ data: Data) throws -> MapLocationsChanges {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(MapLocationsChanges.self, from: data)
    }
}
