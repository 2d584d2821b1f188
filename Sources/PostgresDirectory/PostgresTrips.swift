import Foundation
import Logging
import OnTheMapService
import PostgresNIO

extension PostgresStudentDirectory {
    public func setTrip(_ kept: KeptTrip, ofAccount uniqueKey: String, session: DirectorySession?) async throws
        -> StudentLocation
    {
        let trip = kept.trip
        try await accounts.requireMaySetTrip(trip, uniqueKey: uniqueKey, session: session)
        let now = options.clock()
        let place = trip.mapString.trimmingCharacters(in: .whitespaces)
        return try await store.guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await Self.lockPinWrites(connection, logger: logger)
                let saved = try await Self.locations(
                    connection.query(
                        """
                        UPDATE student_locations SET trip_map_string = \(place),
                            trip_latitude = \(trip.coordinate.latitude), trip_longitude = \(trip.coordinate.longitude),
                            trip_ends_at = \(trip.endsAt), updated_at = GREATEST(\(now), created_at),
                            revision = nextval('student_locations_revision')
                        WHERE unique_key = \(uniqueKey)
                        RETURNING \(unescaped: Self.locationColumns)
                        """, logger: logger))
                guard let pin = saved.first else { throw ServiceError.tripNeedsPin }
                try await connection.query("SELECT pg_notify(\(Self.pinChannel), \(pin.objectId))", logger: logger)
                return pin
            }
        }
    }

    public func endTrip(ofAccount uniqueKey: String, session: DirectorySession?) async throws -> Trip? {
        try await accounts.requireMayEndTrip(uniqueKey: uniqueKey, session: session)
        return try await store.guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await Self.lockPinWrites(connection, logger: logger)
                let found = try await Self.locations(
                    connection.query(
                        """
                        SELECT \(unescaped: Self.locationColumns) FROM student_locations
                        WHERE unique_key = \(uniqueKey) FOR UPDATE
                        """, logger: logger))
                guard let pin = found.first, let trip = pin.trip else { return nil }
                // The update time stays, so the trigger keeps no replaced version holding the trip.
                try await connection.query(
                    """
                    UPDATE student_locations SET trip_map_string = NULL, trip_latitude = NULL, trip_longitude = NULL,
                        trip_ends_at = NULL, revision = nextval('student_locations_revision')
                    WHERE object_id = \(pin.objectId)
                    """, logger: logger)
                try await connection.query("SELECT pg_notify(\(Self.pinChannel), \(pin.objectId))", logger: logger)
                return trip
            }
        }
    }
}
