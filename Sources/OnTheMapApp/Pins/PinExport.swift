import Foundation
import OnTheMapService

/// The pins as the Udacity API returns them: `{"results": [ … ]}` with every `StudentLocation`
/// field, times in ISO-8601 UTC with milliseconds; what `pins import` reads back.
enum PinExport {
    private struct Document: Encodable {
        var results: [Record]
    }

    private struct Record: Encodable {
        var objectId, uniqueKey, firstName, lastName, mapString, mediaURL: String
        var latitude, longitude: Double
        var createdAt, updatedAt: String
    }

    static func json(_ pins: [StudentLocation]) throws -> Data {
        let document = Document(
            results: pins.map {
                Record(
                    objectId: $0.objectId, uniqueKey: $0.uniqueKey, firstName: $0.firstName, lastName: $0.lastName,
                    mapString: $0.mapString, mediaURL: $0.mediaURL, latitude: $0.coordinate.latitude,
                    longitude: $0.coordinate.longitude, createdAt: PinFile.formatDate($0.createdAt),
                    updatedAt: PinFile.formatDate($0.updatedAt))
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }
}
