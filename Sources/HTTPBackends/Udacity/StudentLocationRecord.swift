import Foundation
import OnTheMapService

/// Lenient reading of one `StudentLocation` record of the shared API.
enum StudentLocationRecord {
    /// The pin of a record: missing text fields become empty strings, numbers given as strings
    /// are accepted, links are kept as given. Records without an objectId or without valid
    /// coordinates give nil (they cannot be shown on a map).
    static func parse(_ record: JSONValue) -> StudentLocation? {
        guard let fields = record.objectValue else { return nil }
        guard let objectId = fields["objectId"]?.text, !objectId.isEmpty,
            let latitude = fields["latitude"]?.number, let longitude = fields["longitude"]?.number
        else { return nil }
        let coordinate = Coordinate(latitude: latitude, longitude: longitude)
        guard coordinate.isValid else { return nil }
        func text(_ key: String) -> String { fields[key]?.text ?? "" }
        let createdAt = fields["createdAt"]?.text.flatMap(ISO8601Timestamp.parse)
        let updatedAt = fields["updatedAt"]?.text.flatMap(ISO8601Timestamp.parse)
        let epoch = Date(timeIntervalSince1970: 0)
        return StudentLocation(
            objectId: objectId, uniqueKey: text("uniqueKey"), firstName: text("firstName"),
            lastName: text("lastName"), mapString: text("mapString"), mediaURL: text("mediaURL"),
            coordinate: coordinate, createdAt: createdAt ?? updatedAt ?? epoch,
            updatedAt: updatedAt ?? createdAt ?? epoch)
    }
}
