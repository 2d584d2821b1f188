import Foundation
import Logging
import OnTheMapService
import PostgresNIO

extension PostgresStudentDirectory {
    public func removeLocation(objectId: String) async throws -> StudentLocation? {
        try await removeOneLocation(objectId: objectId, uniqueKey: nil)
    }

    public func removeLocation(ofAccount uniqueKey: String, session: DirectorySession?) async throws
        -> StudentLocation?
    {
        try await accounts.requireMayRemove(uniqueKey: uniqueKey, session: session)
        return try await removeOneLocation(objectId: nil, uniqueKey: uniqueKey)
    }

    /// Removes the pin with `objectId` (or else of `uniqueKey`) in one transaction holding the pin
    /// write lock: its tombstone takes the next revision and listeners are notified on commit.
    private func removeOneLocation(objectId: String?, uniqueKey: String?) async throws -> StudentLocation? {
        try await store.guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await Self.lockPinWrites(connection, logger: logger)
                let found: [StudentLocation]
                if let objectId {
                    found = try await Self.locations(
                        connection.query(
                            """
                            SELECT \(unescaped: Self.locationColumns) FROM student_locations
                            WHERE object_id = \(objectId) FOR UPDATE
                            """, logger: logger))
                } else {
                    found = try await Self.locations(
                        connection.query(
                            """
                            SELECT \(unescaped: Self.locationColumns) FROM student_locations
                            WHERE unique_key = \(uniqueKey ?? "") FOR UPDATE
                            """, logger: logger))
                }
                guard let pin = found.first else { return nil }
                try await Self.removePins(uniqueKey: pin.uniqueKey, connection, logger: logger)
                return pin
            }
        }
    }

    /// Removes the pins of account `uniqueKey`, leaving a tombstone for the change feed and
    /// notifying listeners. Runs inside the caller's transaction, which holds the pin write lock.
    static func removePins(uniqueKey: String, _ connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            """
            WITH removed AS (
                DELETE FROM student_locations WHERE unique_key = \(uniqueKey) RETURNING object_id, unique_key)
            INSERT INTO pin_removals (object_id, unique_key, revision)
            SELECT object_id, unique_key, nextval('student_locations_revision') FROM removed
            ON CONFLICT (object_id) DO UPDATE SET unique_key = EXCLUDED.unique_key, revision = EXCLUDED.revision
            RETURNING object_id
            """, logger: logger)
        var removed: [String] = []
        for try await objectId in rows.decode(String.self) { removed.append(objectId) }
        for objectId in removed {
            try await connection.query("SELECT pg_notify(\(Self.pinChannel), \(objectId))", logger: logger)
        }
    }
}
