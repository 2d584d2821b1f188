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

    public var id: String { objectId }

    public init(
        objectId: String, uniqueKey: String, firstName: String, lastName: String,
        mapString: String, mediaURL: String, coordinate: Coordinate, createdAt: Date,
        updatedAt: Date
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
    }

    /// "First Last", trimmed; never empty ("(no name)" when the backend gave none).
    public var fullName: String { Self.fullName(first: firstName, last: lastName) }

    /// What would save this pin again as it is.
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

/// What a student submits to create or update their pin.
public struct PinDraft: Sendable, Hashable {
    public var uniqueKey: String
    public var firstName: String
    public var lastName: String
    public var mapString: String
    public var mediaURL: String
    public var coordinate: Coordinate

    public init(
        uniqueKey: String, firstName: String, lastName: String, mapString: String,
        mediaURL: String, coordinate: Coordinate
    ) {
        self.uniqueKey = uniqueKey
        self.firstName = firstName
        self.lastName = lastName
        self.mapString = mapString
        self.mediaURL = mediaURL
        self.coordinate = coordinate
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
