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

    public func removeLocations(updatedBefore date: Date) async throws -> [StudentLocation] {
        try await store.write { db in
            try SQLiteStore.removePins(
                db, where: "updated_at < ?", arguments: [SQLiteStore.milliseconds(date)])
        }
    }

    public func accountRecord(_ lookup: AccountLookup) async throws -> AccountRecord? {
        try await store.read { db in try SQLiteStore.accountRecord(db, lookup) }
    }

    public func eraseAccount(accountKey: String) async throws -> AccountRecord? {
        try await store.write { db in
            guard let record = try SQLiteStore.accountRecord(db, .key(accountKey)) else { return nil }
            try SQLiteStore.removePins(db, where: "unique_key = ?", arguments: [accountKey])
            try db.execute(sql: "UPDATE pin_removals SET unique_key = '' WHERE unique_key = ?", arguments: [accountKey])
            try db.execute(sql: "DELETE FROM sessions WHERE account_key = ?", arguments: [accountKey])
            try db.execute(sql: "DELETE FROM services_links WHERE account_key = ?", arguments: [accountKey])
            try db.execute(sql: "DELETE FROM accounts WHERE account_key = ?", arguments: [accountKey])
            try SQLiteStore.appendAccountEvent(db, .erased, accountKey: accountKey)
            return record
        }
    }

    /// Copies the write-ahead log into the database file and truncates the log to nothing
    /// (`wal_checkpoint(TRUNCATE)`): with `secure_delete` the erased rows are zeros in the file,
    /// and the log keeps no older copy of their pages. A checkpoint that another connection's read
    /// holds back is retried a few times; one still held back is left to SQLite's next one.
    public func flushErasures(pins: [String]) async throws {
        for attempt in 0..<5 {
            // A barrier: no read of the pool is in flight meanwhile, so none holds the log back.
            let busy = try await store.pool.barrierWriteWithoutTransaction { db in
                try Int.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") ?? 0
            }
            if busy == 0 { return }
            try? await Task.sleep(for: .milliseconds(20 * (attempt + 1)))
        }
    }

    public func setTrip(_ kept: KeptTrip, ofAccount uniqueKey: String, session: DirectorySession?) async throws
        -> StudentLocation
    {
        let trip = kept.trip
        try await accounts.requireMaySetTrip(trip, uniqueKey: uniqueKey, session: session)
        let now = SQLiteStore.milliseconds(options.clock())
        return try await store.write { db in
            guard
                let objectId = try String.fetchOne(
                    db, sql: "SELECT object_id FROM student_locations WHERE unique_key = ?", arguments: [uniqueKey])
            else { throw ServiceError.tripNeedsPin }
            try db.execute(
                sql: """
                    UPDATE student_locations SET trip_map_string = ?, trip_latitude = ?, trip_longitude = ?,
                        trip_ends_at = ?, updated_at = MAX(?, created_at), revision = \(SQLiteStore.nextRevision)
                    WHERE object_id = ?
                    """,
                arguments: StatementArguments(Self.tripFields(trip) + [now, objectId]))
            return try Self.fetchLocation(db, objectId: objectId)
        }
    }

    public func endTrip(ofAccount uniqueKey: String, session: DirectorySession?) async throws -> Trip? {
        try await accounts.requireMayEndTrip(uniqueKey: uniqueKey, session: session)
        return try await store.write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM student_locations WHERE unique_key = ?", arguments: [uniqueKey]),
                let trip = Self.location(row).trip
            else { return nil }
            // The update time stays: ending a trip is not a move, and no reader needs the trip again.
            try db.execute(
                sql: """
                    UPDATE student_locations SET trip_map_string = NULL, trip_latitude = NULL, trip_longitude = NULL,
                        trip_ends_at = NULL, revision = \(SQLiteStore.nextRevision)
                    WHERE unique_key = ?
                    """,
                arguments: [uniqueKey])
            return trip
        }
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
        let now = options.clock()
        try DirectoryInput.validateImport(records, now: now)
        return try await store.write { db in
            // One transaction, two statements compiled once for the whole file and bound through
            // SQLite's C API (SQLiteRowBinder): a pin is inserted, or updated when its account has one. Each takes the next revision, counted here from
            // the one the directory is at (the write lock is held throughout).
            var revision = try Int64.fetchOne(db, sql: "SELECT \(SQLiteStore.nextRevision)") ?? 1
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO student_locations (object_id, unique_key, first_name, last_name, map_string,
                        media_url, latitude, longitude, precision, created_at, updated_at, revision,
                        trip_map_string, trip_latitude, trip_longitude, trip_ends_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (unique_key) DO NOTHING
                    """)
            let update = try db.cachedStatement(
                sql: """
                    UPDATE student_locations SET first_name = ?, last_name = ?, map_string = ?, media_url = ?,
                        latitude = ?, longitude = ?, precision = ?, updated_at = MAX(?, created_at),
                        revision = ?, \(Self.keepingOrSettingTrip)
                    WHERE unique_key = ?
                    """)
            var outcome = PinImportOutcome(created: 0, updated: 0)
            let ids = RandomID.make(count: records.count)
            for (record, id) in zip(records, ids) {
                let draft = record.pin.draft
                let (created, updated) = record.times(now: now)
                let (first, last, place) = (
                    Self.trim(draft.firstName), Self.trim(draft.lastName), Self.trim(draft.mapString)
                )
                let precision = record.pin.precision.rawValue
                let trip = draft.trip
                let tripPlace = trip.map { Self.trim($0.mapString) }
                let tripEnd = trip.map { SQLiteStore.milliseconds($0.endsAt) }
                // The columns both statements set, in their order: the pin's, then its trip's.
                func pinFields(_ row: inout SQLiteRowBinder) {
                    row.text(first)
                    row.text(last)
                    row.text(place)
                    row.text(draft.mediaURL)
                    row.double(draft.coordinate.latitude)
                    row.double(draft.coordinate.longitude)
                    row.text(precision)
                }
                func tripFields(_ row: inout SQLiteRowBinder) {
                    row.text(tripPlace)
                    row.double(trip?.coordinate.latitude)
                    row.double(trip?.coordinate.longitude)
                    row.integer(tripEnd)
                }
                var row = SQLiteRowBinder(insert)
                row.text(id)
                row.text(draft.uniqueKey)
                pinFields(&row)
                row.integer(SQLiteStore.milliseconds(created))
                row.integer(SQLiteStore.milliseconds(updated))
                row.integer(revision)
                tripFields(&row)
                try row.run(in: db)
                if db.changesCount > 0 {
                    outcome.created += 1
                } else {
                    var row = SQLiteRowBinder(update)
                    pinFields(&row)
                    row.integer(SQLiteStore.milliseconds(updated))
                    row.integer(revision)
                    tripFields(&row)
                    row.text(draft.uniqueKey)
                    try row.run(in: db)
                    outcome.updated += 1
                }
                revision += 1
            }
            return outcome
        }
    }
}

extension SQLiteStudentDirectory: AccountEventFeed {
    public func accountEvents(after revision: Int64, limit: Int) async throws -> [AccountEvent] {
        try await store.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM account_events WHERE revision > ? ORDER BY revision LIMIT ?",
                arguments: [revision, max(1, min(limit, 10_000))]
            ).compactMap { row -> AccountEvent? in
                guard let kind = AccountEvent.Kind(rawValue: row["kind"]) else { return nil }
                return AccountEvent(
                    revision: row["revision"], kind: kind, accountDigest: row["account_digest"],
                    network: row["network"], foldedAccount: row["folded_account"],
                    at: SQLiteStore.date(milliseconds: row["at"]))
            }
        }
    }

    public func latestAccountEventRevision() async throws -> Int64 {
        try await store.read { db in
            // The sequence outlives the rows: an hour without events still continues the count.
            let kept = try Int64.fetchOne(db, sql: "SELECT MAX(revision) FROM account_events") ?? 0
            let counted =
                try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'account_events'") ?? 0
            return max(kept, counted)
        }
    }
}
