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
                for record in records {
                    let draft = record.pin.draft
                    let (created, updated) = record.times(now: now)
                    let fields = Self.trimmedFields(draft)
                    let inserted = try await connection.query(
                        """
                        INSERT INTO student_locations (object_id, unique_key, first_name, last_name, map_string,
                            media_url, latitude, longitude, created_at, updated_at, revision,
                            trip_map_string, trip_latitude, trip_longitude, trip_ends_at, precision)
                        VALUES (\(RandomID.make()), \(draft.uniqueKey), \(fields.first), \(fields.last),
                            \(fields.place), \(draft.mediaURL), \(draft.coordinate.latitude),
                            \(draft.coordinate.longitude), \(created), \(updated), nextval('student_locations_revision'),
                            \(fields.trip?.mapString), \(draft.trip?.coordinate.latitude),
                            \(draft.trip?.coordinate.longitude), \(draft.trip?.endsAt), \(record.pin.precision.rawValue))
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
                    ).decode(Bool.self).first { _ in true }
                    if inserted == true { outcome.created += 1 } else { outcome.updated += 1 }
                }
                // One notification for the whole import: listeners read the change feed.
                try await connection.query("SELECT pg_notify(\(Self.pinChannel), '')", logger: logger)
                return outcome
            }
        }
    }
}
