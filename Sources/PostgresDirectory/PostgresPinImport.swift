import Foundation
import Logging
import OnTheMapService
import PostgresNIO

extension PostgresStudentDirectory {
    public func importLocations(_ records: [PinImportRecord]) async throws -> PinImportOutcome {
        let now = options.clock()
        try DirectoryInput.validateImport(records, now: now)
        return try await store.guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await Self.lockPinWrites(connection, logger: logger)
                var outcome = PinImportOutcome(created: 0, updated: 0)
                var start = records.startIndex
                while start < records.endIndex {
                    let end = min(start + Self.importBatch, records.endIndex)
                    let created = try await Self.upsert(records[start..<end], now: now, on: connection, logger: logger)
                    outcome.created += created
                    outcome.updated += end - start - created
                    start = end
                }
                // One notification for the whole import: listeners read the change feed.
                try await connection.query("SELECT pg_notify(\(Self.pinChannel), '')", logger: logger)
                return outcome
            }
        }
    }

    /// Rows written by one statement of an import: the columns go as arrays (one round trip for
    /// thousands of pins, where a statement each took one round trip a pin).
    static let importBatch = 5_000

    /// Inserts `records`, or updates the pins their uniqueKeys already have (a trip not in the
    /// file is kept); returns how many were new.
    private static func upsert(
        _ records: ArraySlice<PinImportRecord>, now: Date, on connection: PostgresConnection, logger: Logger
    ) async throws -> Int {
        var ids: [String] = [], keys: [String] = [], firsts: [String] = [], lasts: [String] = []
        var places: [String] = [], media: [String] = [], latitudes: [Double] = [], longitudes: [Double] = []
        var createdTimes: [Date] = [], updatedTimes: [Date] = [], precisions: [String] = []
        // Arrays cannot hold NULL here: a row without a trip has placeholders, and hasTrip false.
        var hasTrip: [Bool] = [], tripPlaces: [String] = [], tripLatitudes: [Double] = []
        var tripLongitudes: [Double] = [], tripEnds: [Date] = []
        for record in records {
            let draft = record.pin.draft
            let (created, updated) = record.times(now: now)
            let fields = trimmedFields(draft)
            ids.append(RandomID.make())
            keys.append(draft.uniqueKey)
            firsts.append(fields.first)
            lasts.append(fields.last)
            places.append(fields.place)
            media.append(draft.mediaURL)
            latitudes.append(draft.coordinate.latitude)
            longitudes.append(draft.coordinate.longitude)
            createdTimes.append(created)
            updatedTimes.append(updated)
            precisions.append(record.pin.precision.rawValue)
            hasTrip.append(fields.trip != nil)
            tripPlaces.append(fields.trip?.mapString ?? "")
            tripLatitudes.append(fields.trip?.coordinate.latitude ?? 0)
            tripLongitudes.append(fields.trip?.coordinate.longitude ?? 0)
            tripEnds.append(fields.trip?.endsAt ?? now)
        }
        var created = 0
        for try await inserted in try await connection.query(
            """
            INSERT INTO student_locations (object_id, unique_key, first_name, last_name, map_string,
                media_url, latitude, longitude, created_at, updated_at, revision,
                trip_map_string, trip_latitude, trip_longitude, trip_ends_at, precision)
            SELECT r.object_id, r.unique_key, r.first_name, r.last_name, r.map_string, r.media_url, r.latitude,
                r.longitude, r.created_at, r.updated_at, nextval('student_locations_revision'),
                CASE WHEN r.has_trip THEN r.trip_map_string END, CASE WHEN r.has_trip THEN r.trip_latitude END,
                CASE WHEN r.has_trip THEN r.trip_longitude END, CASE WHEN r.has_trip THEN r.trip_ends_at END,
                r.precision
            FROM unnest(\(ids), \(keys), \(firsts), \(lasts), \(places), \(media), \(latitudes), \(longitudes),
                \(createdTimes), \(updatedTimes), \(precisions), \(hasTrip), \(tripPlaces), \(tripLatitudes),
                \(tripLongitudes), \(tripEnds))
                AS r(object_id, unique_key, first_name, last_name, map_string, media_url, latitude, longitude,
                    created_at, updated_at, precision, has_trip, trip_map_string, trip_latitude, trip_longitude,
                    trip_ends_at)
            ON CONFLICT (unique_key) DO UPDATE SET first_name = EXCLUDED.first_name,
                last_name = EXCLUDED.last_name, map_string = EXCLUDED.map_string,
                media_url = EXCLUDED.media_url, latitude = EXCLUDED.latitude,
                longitude = EXCLUDED.longitude, precision = EXCLUDED.precision,
                updated_at = GREATEST(EXCLUDED.updated_at, student_locations.created_at),
                revision = EXCLUDED.revision,
                trip_map_string = COALESCE(EXCLUDED.trip_map_string, student_locations.trip_map_string),
                trip_latitude = COALESCE(EXCLUDED.trip_latitude, student_locations.trip_latitude),
                trip_longitude = COALESCE(EXCLUDED.trip_longitude, student_locations.trip_longitude),
                trip_ends_at = COALESCE(EXCLUDED.trip_ends_at, student_locations.trip_ends_at)
            RETURNING (xmax = 0)
            """, logger: logger
        ).decode(Bool.self) where inserted {
            created += 1
        }
        return created
    }
}
