import Foundation
import Logging
import OnTheMapService
import PostgresNIO

extension PostgresStudentDirectory {
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
