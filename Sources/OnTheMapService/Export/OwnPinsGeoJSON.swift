import Foundation

/// One student's pin as a GeoJSON document (RFC 7946): a FeatureCollection with the home place as
/// a Point and, when a trip is kept, the trip as a second Point. The coordinates are
/// `[longitude, latitude]` exactly as the directory keeps them, which is already no finer than the
/// level the student chose (``PinCoarsener``): nothing finer is added. Nothing of another student
/// is ever in it.
public struct OwnPinsGeoJSON: Sendable {
    /// The media type of the document.
    public static let mediaType = "application/geo+json"

    /// The student's pin; nil: an empty collection.
    public var pin: StudentLocation?
    /// The level the home place is kept at, when known.
    public var homePrecision: PinPrecision?
    /// The level the trip is kept at, when known.
    public var tripPrecision: PinPrecision?

    public init(pin: StudentLocation?, homePrecision: PinPrecision? = nil, tripPrecision: PinPrecision? = nil) {
        self.pin = pin
        self.homePrecision = homePrecision
        self.tripPrecision = tripPrecision
    }

    struct Collection: Encodable {
        let type = "FeatureCollection"
        var features: [Feature]
    }

    struct Feature: Encodable {
        let type = "Feature"
        var id: String
        var geometry: Point
        var properties: Properties
    }

    struct Point: Encodable {
        let type = "Point"
        var coordinates: [Double]
    }

    struct Properties: Encodable {
        /// "home" or "trip".
        var kind: String
        var mapString: String
        var mediaURL: String?
        var precision: String?
        var createdAt: Date?
        var updatedAt: Date?
        var endsAt: Date?

        enum CodingKeys: String, CodingKey {
            case kind, mapString, mediaURL, precision, createdAt, updatedAt, endsAt
        }

        // Absent values are written as null, so every feature of a kind has the same keys.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind, forKey: .kind)
            try container.encode(mapString, forKey: .mapString)
            try container.encode(precision, forKey: .precision)
            if kind == "home" {
                try container.encode(mediaURL, forKey: .mediaURL)
                try container.encode(createdAt, forKey: .createdAt)
                try container.encode(updatedAt, forKey: .updatedAt)
            } else {
                try container.encode(endsAt, forKey: .endsAt)
            }
        }
    }

    /// The features: the home place, then the trip when one is kept.
    var features: [Feature] {
        guard let pin else { return [] }
        var features = [
            Feature(
                id: pin.objectId,
                geometry: Point(coordinates: [pin.coordinate.longitude, pin.coordinate.latitude]),
                properties: Properties(
                    kind: "home", mapString: pin.mapString, mediaURL: pin.mediaURL, precision: homePrecision?.rawValue,
                    createdAt: pin.createdAt, updatedAt: pin.updatedAt))
        ]
        if let trip = pin.trip {
            features.append(
                Feature(
                    id: pin.objectId + "-trip",
                    geometry: Point(coordinates: [trip.coordinate.longitude, trip.coordinate.latitude]),
                    properties: Properties(
                        kind: "trip", mapString: trip.mapString, precision: tripPrecision?.rawValue,
                        endsAt: trip.endsAt)))
        }
        return features
    }

    /// The document, UTF-8 JSON; times are RFC 3339 in UTC. Throws only for a coordinate that is
    /// not a finite number (which no directory stores).
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(Collection(features: features))
    }
}
