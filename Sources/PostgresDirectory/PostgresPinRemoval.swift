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
    @discardableResult
    static func removePins(uniqueKey: String, _ connection: PostgresConnection, logger: Logger) async throws
        -> [StudentLocation]
    {
        try await removePins(
            connection.query(
                """
                WITH removed AS (
                    DELETE FROM student_locations WHERE unique_key = \(uniqueKey)
                    RETURNING \(unescaped: Self.locationColumns)),
                tombstones AS (
                    INSERT INTO pin_removals (object_id, unique_key, revision)
                    SELECT object_id, '', nextval('student_locations_revision') FROM removed
                    ON CONFLICT (object_id) DO UPDATE SET unique_key = '', revision = EXCLUDED.revision)
                SELECT \(unescaped: Self.locationColumns) FROM removed
                """, logger: logger), connection, logger: logger)
    }

    /// Reads the pins a removal returned and notifies listeners of each. A tombstone holds the
    /// objectId and its revision alone (its `unique_key` stays empty), so no removed pin can be tied
    /// back to its account.
    private static func removePins(
        _ rows: PostgresRowSequence, _ connection: PostgresConnection, logger: Logger
    ) async throws -> [StudentLocation] {
        let removed = try await locations(rows)
        for pin in removed {
            try await connection.query("SELECT pg_notify(\(Self.pinChannel), \(pin.objectId))", logger: logger)
        }
        return removed
    }

    public func removeLocations(updatedBefore date: Date) async throws -> [StudentLocation] {
        try await store.guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await Self.lockPinWrites(connection, logger: logger)
                return try await Self.removePins(
                    connection.query(
                        """
                        WITH removed AS (
                            DELETE FROM student_locations WHERE updated_at < \(date)
                            RETURNING \(unescaped: Self.locationColumns)),
                        tombstones AS (
                            INSERT INTO pin_removals (object_id, unique_key, revision)
                            SELECT object_id, '', nextval('student_locations_revision') FROM removed
                            ON CONFLICT (object_id) DO UPDATE SET unique_key = '', revision = EXCLUDED.revision)
                        SELECT \(unescaped: Self.locationColumns) FROM removed
                        """, logger: logger), connection, logger: logger)
            }
        }
    }

    public func accountRecord(_ lookup: AccountLookup) async throws -> AccountRecord? {
        try await store.guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await Self.accountRecord(lookup, connection, logger: logger, lock: false)
            }
        }
    }

    public func eraseAccount(accountKey: String) async throws -> AccountRecord? {
        try await store.guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await Self.lockPinWrites(connection, logger: logger)
                guard
                    let record = try await Self.accountRecord(.key(accountKey), connection, logger: logger, lock: true)
                else { return nil }
                try await Self.removePins(uniqueKey: accountKey, connection, logger: logger)
                try await connection.query(
                    "UPDATE pin_removals SET unique_key = '' WHERE unique_key = \(accountKey)", logger: logger)
                try await connection.query("DELETE FROM sessions WHERE account_key = \(accountKey)", logger: logger)
                try await connection.query(
                    "DELETE FROM services_links WHERE account_key = \(accountKey)", logger: logger)
                try await connection.query("DELETE FROM accounts WHERE account_key = \(accountKey)", logger: logger)
                try await Self.appendAccountEvent(.erased, accountKey: accountKey, connection, logger: logger)
                return record
            }
        }
    }

    /// Deletes the earlier versions of `pins` from the change feed, then vacuums the tables that
    /// hold student data (one `VACUUM` each: it cannot run in a transaction). `VACUUM` marks the
    /// dead rows' space free for reuse; it neither zeroes those bytes nor reaches the server's
    /// write-ahead log (docs/privacy.md says so).
    public func flushErasures(pins: [String]) async throws {
        try await store.guarded { [client = store.client, logger = store.logger] in
            if !pins.isEmpty {
                try await client.query("DELETE FROM pin_versions WHERE object_id = ANY(\(pins))", logger: logger)
            }
            // A VACUUM that fails (another one running, a role that does not own the table) leaves
            // the space to autovacuum: what was erased or coarsened is gone from every query already.
            for table in [
                "student_locations", "pin_versions", "pin_removals", "sessions", "accounts", "services_links",
            ] {
                _ = try? await client.query(PostgresQuery(unsafeSQL: "VACUUM \(table)"), logger: logger)
            }
        }
    }

    /// Everything stored about the account `lookup` finds, read in the caller's transaction
    /// (`lock`: its row locked until the transaction ends).
    static func accountRecord(
        _ lookup: AccountLookup, _ connection: PostgresConnection, logger: Logger, lock: Bool
    ) async throws -> AccountRecord? {
        let suffix = lock ? " FOR UPDATE" : ""
        let rows: PostgresRowSequence
        switch lookup {
        case .key(let key):
            rows = try await connection.query(
                """
                SELECT account_key, email, first_name, last_name, created_at FROM accounts
                WHERE account_key = \(key)\(unescaped: suffix)
                """, logger: logger)
        case .email(let email):
            guard let normalized = try? DirectoryInput.normalizedEmail(email) else { return nil }
            rows = try await connection.query(
                """
                SELECT account_key, email, first_name, last_name, created_at FROM accounts
                WHERE email = \(normalized)\(unescaped: suffix)
                """, logger: logger)
        }
        var found: LocalAccount?
        for try await (key, email, first, last, created) in rows.decode((String, String, String, String, Date).self) {
            found = LocalAccount(accountKey: key, email: email, firstName: first, lastName: last, createdAt: created)
        }
        guard let account = found else { return nil }
        let pin = try await locations(
            connection.query(
                "SELECT \(unescaped: Self.locationColumns) FROM student_locations WHERE unique_key = \(account.accountKey)",
                logger: logger)
        ).first
        var sessions: [AccountRecord.SessionTimes] = []
        for try await (created, expires) in try await connection.query(
            "SELECT created_at, expires_at FROM sessions WHERE account_key = \(account.accountKey) ORDER BY created_at",
            logger: logger
        ).decode((Date, Date).self) {
            sessions.append(AccountRecord.SessionTimes(createdAt: created, expiresAt: expires))
        }
        let links = try await PostgresStore.servicesLinks(
            connection.query(
                """
                SELECT account_key, network, services_account, folded_account, created_at FROM services_links
                WHERE account_key = \(account.accountKey) ORDER BY network
                """, logger: logger))
        return AccountRecord(account: account, pin: pin, sessions: sessions, servicesLinks: links)
    }
}
