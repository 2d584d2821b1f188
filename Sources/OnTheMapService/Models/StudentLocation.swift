import Foundation

/// A point on the Earth in WGS-84 degrees.
public struct Coordinate: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// True when both values are finite and inside the valid latitude/longitude ranges.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude)
            && (-180...180).contains(longitude)
    }
}

/// One student's pin on the class map (the seeds' `StudentLocation`).
public struct StudentLocation: Sendable, Hashable, Codable, Identifiable {
    /// The backend's id of this pin.
    public var objectId: String
    /// The account key of the student who owns the pin (at most one pin per account).
    public var uniqueKey: String
    public var firstName: String
    public var lastName: String
    /// The place as the student typed it ("Seattle, WA").
    public var mapString: String
    /// The student's link (may be messy on shared backends: never trust it for display).
    public var mediaURL: String
    public var coordinate: Coordinate
    public var createdAt: Date
    public var updatedAt: Date
    /// The student's trip: a second place the map shows instead of ``mapString`` and
    /// ``coordinate`` until it ends (see ``shown(at:)``). A trip that has ended stays here until it
    /// is replaced or ended; nil when the student has none (always on the Udacity API).
    public var trip: Trip?
    /// The level the pin was kept at (see ``KeptPin``), as the directory stored it; nil for a pin
    /// kept before levels were stored and on a backend that keeps none (the Udacity API). Not part
    /// of the JSON contract.
    public var precision: PinPrecision?

    public var id: String { objectId }

    private enum CodingKeys: String, CodingKey {
        case objectId, uniqueKey, firstName, lastName, mapString, mediaURL, coordinate, createdAt, updatedAt, trip
    }

    public init(
        objectId: String, uniqueKey: String, firstName: String, lastName: String,
        mapString: String, mediaURL: String, coordinate: Coordinate, createdAt: Date,
        updatedAt: Date, trip: Trip? = nil, precision: PinPrecision? = nil
    ) {
        self.objectId = objectId
        self.uniqueKey = uniqueKey
        self.firstName = firstName
        self.lastName = lastName
        self.mapString = mapString
        self.mediaURL = mediaURL
        self.coordinate = coordinate
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.trip = trip
        self.precision = precision
    }

    /// The trip while it lasts at `now` (`now` before its ``Trip/endsAt``), else nil.
    public func activeTrip(at now: Date) -> Trip? {
        guard let trip, trip.isActive(at: now) else { return nil }
        return trip
    }

    /// What the map shows for this pin at `now`: the trip's place while it lasts, else the home place.
    public func shown(at now: Date) -> ShownPlace {
        if let trip = activeTrip(at: now) {
            return ShownPlace(mapString: trip.mapString, coordinate: trip.coordinate, isTrip: true)
        }
        return ShownPlace(mapString: mapString, coordinate: coordinate, isTrip: false)
    }

    /// "First Last", trimmed; never empty ("(no name)" when the backend gave none).
    public var fullName: String { Self.fullName(first: firstName, last: lastName) }

    /// What would save this pin again as it is. Its trip is nil, which keeps the stored trip as it
    /// is (one that has ended would be refused as a new one).
    public var draft: PinDraft {
        PinDraft(
            uniqueKey: uniqueKey, firstName: firstName, lastName: lastName, mapString: mapString, mediaURL: mediaURL,
            coordinate: coordinate)
    }

    /// "First Last", trimmed; "(no name)" when that leaves nothing.
    public static func fullName(first: String, last: String) -> String {
        let name = "\(first) \(last)".trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? "(no name)" : name
    }
}

/// A student's trip: a place the map shows instead of their home pin until ``endsAt``.
public struct Trip: Sendable, Hashable, Codable {
    /// The place as the student typed it ("Lisbon").
    public var mapString: String
    public var coordinate: Coordinate
    /// The instant the trip ends (the caller computes it, e.g. the end of a day in the trip's time
    /// zone); from then on the home pin shows again.
    public var endsAt: Date

    public init(mapString: String, coordinate: Coordinate, endsAt: Date) {
        self.mapString = mapString
        self.coordinate = coordinate
        self.endsAt = endsAt
    }

    /// Whether the trip still lasts at `now`.
    public func isActive(at now: Date) -> Bool { now < endsAt }
}

/// The place a pin shows on the map at some instant (see ``StudentLocation/shown(at:)``).
public struct ShownPlace: Sendable, Hashable {
    public var mapString: String
    public var coordinate: Coordinate
    /// True when the place is the student's trip, false when it is their home pin.
    public var isTrip: Bool

    public init(mapString: String, coordinate: Coordinate, isTrip: Bool) {
        self.mapString = mapString
        self.coordinate = coordinate
        self.isTrip = isTrip
    }
}

/// What a student submits to create or update their pin.
public struct PinDraft: Sendable, Hashable {
    public var uniqueKey: String
    public var firstName: String
    public var lastName: String
    public var mapString: String
    public var mediaURL: String
    public var coordinate: Coordinate
    /// A trip to set with the pin; nil keeps the trip the pin has (or none). A trip is ended with
    /// ``StudentDirectory/endTrip(ofAccount:session:)``.
    public var trip: Trip?

    public init(
        uniqueKey: String, firstName: String, lastName: String, mapString: String,
        mediaURL: String, coordinate: Coordinate, trip: Trip? = nil
    ) {
        self.uniqueKey = uniqueKey
        self.firstName = firstName
        self.lastName = lastName
        self.mapString = mapString
        self.mediaURL = mediaURL
        self.coordinate = coordinate
        self.trip = trip
    }
}

/// The JSON body of a `StudentLocation` write in the Udacity contract (`POST /StudentLocation`,
/// `PUT /StudentLocation/<objectId>`): what a client sends and a server reads.
public struct StudentLocationBody: Codable, Sendable, Hashable {
    public var uniqueKey: String
    public var firstName: String
    public var lastName: String
    public var mapString: String
    public var mediaURL: String
    public var latitude: Double
    public var longitude: Double
    /// This bot's extension of the contract: with a date ("2026-12-24", or what `!post … until`
    /// reads), the place is a trip shown instead of the account's home pin until the end of that
    /// day there. Absent in the contract's own bodies.
    public var until: String?

    public init(_ draft: PinDraft) {
        uniqueKey = draft.uniqueKey
        firstName = draft.firstName
        lastName = draft.lastName
        mapString = draft.mapString
        mediaURL = draft.mediaURL
        latitude = draft.coordinate.latitude
        longitude = draft.coordinate.longitude
    }
}
