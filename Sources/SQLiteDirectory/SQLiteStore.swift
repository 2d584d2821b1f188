import Foundation
import GRDB
import OnTheMapService

/// The SQLite connection pool of a directory: runs reads and writes and turns SQLite's errors
/// into `ServiceError`s. Times are stored as whole milliseconds since 1970.
struct SQLiteStore: Sendable {
    let pool: DatabasePool

    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.read(body)
        } catch let error as DatabaseError {
            throw Self.serviceError(error)
        }
    }

    @discardableResult
    func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.write(body)
        } catch let error as DatabaseError {
            if error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
                || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY
            {
                throw ServiceError.rejectedInput("That already exists.")
            }
            throw Self.serviceError(error)
        }
    }

    static func serviceError(_ error: DatabaseError) -> ServiceError {
        let message = error.message ?? "error"
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return .unavailable(
                "SQLite: \(message) (another connection has held a lock for over "
                    + "\(Int(SQLiteStudentDirectory.busyTimeout)) s)")
        case .SQLITE_READONLY, .SQLITE_IOERR, .SQLITE_FULL, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_CORRUPT,
            .SQLITE_NOTADB:
            return .unavailable("SQLite: \(message)")
        default:
            return .backendFailure(status: Int(error.extendedResultCode.rawValue), message: "SQLite: \(message)")
        }
    }

    /// The next pin revision: one more than any save or removal so far (both are indexed by revision).
    static let nextRevision = """
        (SELECT MAX(r) + 1 FROM (SELECT COALESCE(MAX(revision), 0) AS r FROM student_locations
            UNION ALL SELECT COALESCE(MAX(revision), 0) FROM pin_removals))
        """

    /// Removes the pins matching `condition` (a WHERE clause on `student_locations`), leaving a
    /// tombstone for the change feed; returns the removed pins. A tombstone holds the objectId and
    /// its revision alone: the `unique_key` column stays empty, so no removed pin can be tied back
    /// to its account.
    @discardableResult
    static func removePins(_ db: Database, where condition: String, arguments: StatementArguments) throws
        -> [StudentLocation]
    {
        let doomed = try Row.fetchAll(
            db, sql: "SELECT * FROM student_locations WHERE \(condition)", arguments: arguments
        ).map(SQLiteStudentDirectory.location)
        for pin in doomed {
            // The tombstone first: its revision must be above the removed pin's own, which
            // counts towards the next revision only while the pin is still there.
            try db.execute(
                sql: """
                    INSERT INTO pin_removals (object_id, unique_key, revision) VALUES (?, '', \(nextRevision))
                    ON CONFLICT(object_id) DO UPDATE SET unique_key = '', revision = excluded.revision
                    """,
                arguments: [pin.objectId])
            try db.execute(sql: "DELETE FROM student_locations WHERE object_id = ?", arguments: [pin.objectId])
        }
        return doomed
    }

    /// Reads everything stored about the account `lookup` finds (in the caller's transaction).
    static func accountRecord(_ db: Database, _ lookup: AccountLookup) throws -> AccountRecord? {
        let row: Row?
        switch lookup {
        case .key(let key):
            row = try Row.fetchOne(
                db,
                sql: "SELECT account_key, email, first_name, last_name, created_at FROM accounts WHERE account_key = ?",
                arguments: [key])
        case .email(let email):
            guard let normalized = try? DirectoryInput.normalizedEmail(email) else { return nil }
            row = try Row.fetchOne(
                db, sql: "SELECT account_key, email, first_name, last_name, created_at FROM accounts WHERE email = ?",
                arguments: [normalized])
        }
        guard let row else { return nil }
        let account = LocalAccount(
            accountKey: row["account_key"], email: row["email"], firstName: row["first_name"],
            lastName: row["last_name"], createdAt: date(milliseconds: row["created_at"]))
        let pin = try Row.fetchOne(
            db, sql: "SELECT * FROM student_locations WHERE unique_key = ?", arguments: [account.accountKey]
        ).map(SQLiteStudentDirectory.location)
        let sessions = try Row.fetchAll(
            db, sql: "SELECT created_at, expires_at FROM sessions WHERE account_key = ? ORDER BY created_at",
            arguments: [account.accountKey]
        ).map {
            AccountRecord.SessionTimes(
                createdAt: date(milliseconds: $0["created_at"]), expiresAt: date(milliseconds: $0["expires_at"]))
        }
        return AccountRecord(
            account: account, pin: pin, sessions: sessions,
            servicesLinks: try servicesLinks(db, accountKey: account.accountKey))
    }

    /// Appends an account event (see `AccountEventFeed`) in the caller's transaction, and drops
    /// the events older than `AccountEvent.memory`.
    static func appendAccountEvent(
        _ db: Database, _ kind: AccountEvent.Kind, accountKey: String, network: String = "", foldedAccount: String = ""
    ) throws {
        let now = milliseconds(Date())
        try db.execute(
            sql: "DELETE FROM account_events WHERE at < ?", arguments: [now - Int64(AccountEvent.memory * 1000)])
        try db.execute(
            sql: """
                INSERT INTO account_events (kind, account_digest, network, folded_account, at)
                VALUES (?, ?, ?, ?, ?)
                """,
            arguments: [kind.rawValue, AccountEvent.digest(accountKey: accountKey), network, foldedAccount, now])
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    static func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}

extension SQLiteStore: AccountStorage {
    func credentials(email: String) async throws -> AccountCredentials? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT account_key, password_hash FROM accounts WHERE email = ?", arguments: [email]
            ).map { AccountCredentials(accountKey: $0["account_key"], passwordHash: $0["password_hash"]) }
        }
    }

    func startSession(_ session: StoredSession, replacementHash: String?) async throws {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM sessions WHERE account_key = ? AND expires_at <= ?",
                arguments: [session.accountKey, Self.milliseconds(session.createdAt)])
            try db.execute(
                sql: "INSERT INTO sessions (token_digest, account_key, created_at, expires_at) VALUES (?, ?, ?, ?)",
                arguments: [
                    session.tokenDigest, session.accountKey, Self.milliseconds(session.createdAt),
                    Self.milliseconds(session.expiresAt),
                ])
            if let replacementHash {
                try db.execute(
                    sql: "UPDATE accounts SET password_hash = ? WHERE account_key = ?",
                    arguments: [replacementHash, session.accountKey])
            }
        }
    }

    func session(digest: String) async throws -> StoredSession? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT account_key, created_at, expires_at FROM sessions WHERE token_digest = ?",
                arguments: [digest]
            ).map { row in
                StoredSession(
                    tokenDigest: digest, accountKey: row["account_key"],
                    createdAt: Self.date(milliseconds: row["created_at"]),
                    expiresAt: Self.date(milliseconds: row["expires_at"]))
            }
        }
    }

    func hasAccount(key: String) async throws -> Bool {
        try await read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM accounts WHERE account_key = ?", arguments: [key]) != nil
        }
    }

    func deleteSession(digest: String) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE token_digest = ?", arguments: [digest])
        }
    }

    func deleteSessions(accountKey: String) async throws -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE account_key = ?", arguments: [accountKey])
            return db.changesCount
        }
    }

    func insertAccount(_ account: LocalAccount, passwordHash: String) async throws -> LocalAccount? {
        try await write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM accounts WHERE email = ?", arguments: [account.email]) != nil {
                return nil
            }
            try db.execute(
                sql: """
                    INSERT INTO accounts (account_key, email, first_name, last_name, password_hash, created_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    account.accountKey, account.email, account.firstName, account.lastName, passwordHash,
                    Self.milliseconds(account.createdAt),
                ])
            return account
        }
    }

    func deleteAccount(email: String) async throws -> Bool {
        try await write { db in
            guard
                let key = try String.fetchOne(
                    db, sql: "SELECT account_key FROM accounts WHERE email = ?", arguments: [email])
            else { return false }
            try Self.removePins(db, where: "unique_key = ?", arguments: [key])
            try db.execute(sql: "DELETE FROM sessions WHERE account_key = ?", arguments: [key])
            try db.execute(sql: "DELETE FROM services_links WHERE account_key = ?", arguments: [key])
            try db.execute(sql: "DELETE FROM accounts WHERE account_key = ?", arguments: [key])
            return true
        }
    }

    func replacePassword(email: String, passwordHash: String) async throws -> Bool {
        try await write { db in
            guard
                let key = try String.fetchOne(
                    db, sql: "SELECT account_key FROM accounts WHERE email = ?", arguments: [email])
            else { return false }
            try db.execute(
                sql: "UPDATE accounts SET password_hash = ? WHERE account_key = ?", arguments: [passwordHash, key])
            try db.execute(sql: "DELETE FROM sessions WHERE account_key = ?", arguments: [key])
            return true
        }
    }

    func servicesLink(network: String, foldedAccount: String) async throws -> ServicesAccountLink? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM services_links WHERE network = ? AND folded_account = ?",
                arguments: [network, foldedAccount]
            ).map(Self.servicesLink)
        }
    }

    func servicesLinks(accountKey: String) async throws -> [ServicesAccountLink] {
        try await read { db in
            try Self.servicesLinks(db, accountKey: accountKey)
        }
    }

    func insertServicesLink(_ link: ServicesAccountLink) async throws -> ServicesLinkInsertion {
        try await write { db in
            guard
                try Bool.fetchOne(db, sql: "SELECT 1 FROM accounts WHERE account_key = ?", arguments: [link.accountKey])
                    != nil
            else { return .noAccount }
            if let taken = try Row.fetchOne(
                db, sql: "SELECT * FROM services_links WHERE network = ? AND folded_account = ?",
                arguments: [link.network, link.foldedAccount]
            ).map(Self.servicesLink) {
                return taken.accountKey == link.accountKey ? .alreadyLinked(taken) : .servicesAccountTaken(taken)
            }
            if let own = try Row.fetchOne(
                db, sql: "SELECT * FROM services_links WHERE account_key = ? AND network = ?",
                arguments: [link.accountKey, link.network]
            ).map(Self.servicesLink) {
                return .classAccountLinked(own)
            }
            try db.execute(
                sql: """
                    INSERT INTO services_links (account_key, network, services_account, folded_account, created_at)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [
                    link.accountKey, link.network, link.servicesAccount, link.foldedAccount,
                    Self.milliseconds(link.createdAt),
                ])
            return .stored
        }
    }

    func deleteServicesLink(accountKey: String, network: String) async throws -> ServicesAccountLink? {
        try await write { db in
            let link = try Row.fetchOne(
                db, sql: "SELECT * FROM services_links WHERE account_key = ? AND network = ?",
                arguments: [accountKey, network]
            ).map(Self.servicesLink)
            if let link {
                try db.execute(
                    sql: "DELETE FROM services_links WHERE account_key = ? AND network = ?",
                    arguments: [accountKey, network])
                try Self.appendAccountEvent(
                    db, .unlinked, accountKey: accountKey, network: network, foldedAccount: link.foldedAccount)
            }
            return link
        }
    }

    static func servicesLinks(_ db: Database, accountKey: String) throws -> [ServicesAccountLink] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM services_links WHERE account_key = ? ORDER BY network", arguments: [accountKey]
        ).map(servicesLink)
    }

    static func servicesLink(_ row: Row) -> ServicesAccountLink {
        ServicesAccountLink(
            accountKey: row["account_key"], network: row["network"], servicesAccount: row["services_account"],
            foldedAccount: row["folded_account"], createdAt: date(milliseconds: row["created_at"]))
    }
}
