import Foundation
import GRDB
import OnTheMapService

extension SQLiteStudentDirectory {
    public func removeLocation(objectId: String) async throws -> StudentLocation? {
        try await removeLocation(where: "object_id = ?", value: objectId)
    }

    public func removeLocation(ofAccount uniqueKey: String, session: DirectorySession?) async throws
        -> StudentLocation?
    {
        try await accounts.requireMayRemove(uniqueKey: uniqueKey, session: session)
        return try await removeLocation(where: "unique_key = ?", value: uniqueKey)
    }

    /// Removes the one pin matching `condition` in one transaction, with its tombstone.
    private func removeLocation(where condition: String, value: String) async throws -> StudentLocation? {
        try await store.write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM student_locations WHERE \(condition)", arguments: [value])
            else { return nil }
            let pin = Self.location(row)
            try SQLiteStore.removePins(db, where: "object_id = ?", arguments: [pin.objectId])
            return pin
        }
    }
}

extension SQLiteStudentDirectory {
    public func importLocations(_ records: [PinImportRecord]) async throws -> PinImportOutcome {
        try DirectoryInput.validateImport(records)
        let now = options.clock()
        return try await store.write { db in
            var outcome = PinImportOutcome(created: 0, updated: 0)
            for record in records {
                let draft = record.draft
                let (created, updated) = record.times(now: now)
                let fields: [any DatabaseValueConvertible] = [
                    Self.trim(draft.firstName), Self.trim(draft.lastName), Self.trim(draft.mapString), draft.mediaURL,
                    draft.coordinate.latitude, draft.coordinate.longitude,
                ]
                if try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM student_locations WHERE unique_key = ?", arguments: [draft.uniqueKey])
                    != nil
                {
                    try db.execute(
                        sql: """
                            UPDATE student_locations SET first_name = ?, last_name = ?, map_string = ?, media_url = ?,
                                latitude = ?, longitude = ?, updated_at = MAX(?, created_at),
                                revision = \(SQLiteStore.nextRevision)
                            WHERE unique_key = ?
                            """,
                        arguments: StatementArguments(fields + [SQLiteStore.milliseconds(updated), draft.uniqueKey]))
                    outcome.updated += 1
                } else {
                    try db.execute(
                        sql: """
                            INSERT INTO student_locations (object_id, unique_key, first_name, last_name, map_string,
                                media_url, latitude, longitude, created_at, updated_at, revision)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, \(SQLiteStore.nextRevision))
                            """,
                        arguments: StatementArguments(
                            [RandomID.make(), draft.uniqueKey] + fields
                                + [SQLiteStore.milliseconds(created), SQLiteStore.milliseconds(updated)]))
                    outcome.created += 1
                }
            }
            return outcome
        }
    }
}
