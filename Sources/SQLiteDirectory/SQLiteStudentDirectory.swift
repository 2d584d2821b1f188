import Foundation
import GRDB
import OnTheMapService

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The embedded directory: accounts (password hashes only), sessions, pins and the bot's small
/// state, in one SQLite file in WAL mode. Several processes may open the same file.
///
/// Sessions passed to the pin and profile methods are checked (unknown or expired:
/// `.sessionExpired`); a session may only save its own account's pin. A nil session is a
/// trusted caller (the operator's tools, tests).
public final class SQLiteStudentDirectory: AccountDirectory, BotStateStore, Sendable {
    public let backendName = "sqlite"
    public var signUpURL: String? { options.signUpURL }

    private let pool: DatabasePool
    private let options: LocalDirectoryOptions

    /// How long a read or write waits for another connection's lock before it fails with
    /// `.unavailable`. The bot's own transactions and the operator's tools hold the lock for
    /// milliseconds, so a lock held this long is a fault (an open `BEGIN EXCLUSIVE`, a stuck
    /// process): the student hears so within seconds, and `/healthz` (3 s) can still name the cause.
    public static let busyTimeout: TimeInterval = 2

    /// The files of the database at `path` whose permissions were narrowed to the owner when it
    /// was opened (group or others could read them); empty when they already were.
    public let narrowedFiles: [String]

    /// Opens (creating when needed) the database file at `path` and brings its schema up to date.
    /// The file holds password hashes: it is created readable by its owner only (0600), and an
    /// existing file, `-wal` or `-shm` that group or others may read or write is narrowed to 0600
    /// (SQLite gives the `-wal` and `-shm` files the database file's permissions).
    public init(path: String, options: LocalDirectoryOptions = LocalDirectoryOptions()) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.foreignKeysEnabled = true
        do {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            narrowedFiles = try Self.restrictToOwner(path)
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
        } catch let error as DatabaseError {
            throw Self.serviceError(error)
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError.backendFailure(status: nil, message: "SQLite: cannot open the database: \(error)")
        }
        self.options = options
    }

    /// Creates the database file with mode 0600 when it does not exist, and narrows the database,
    /// `-wal` and `-shm` files to 0600 when group or others have any access; returns those narrowed.
    static func restrictToOwner(_ path: String) throws -> [String] {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            closeDescriptor(descriptor)
            return []
        }
        guard errno == EEXIST else {
            throw ServiceError.unavailable("SQLite: cannot create \(path): \(String(cString: strerror(errno)))")
        }
        var narrowed: [String] = []
        for file in [path, path + "-wal", path + "-shm"] {
            var status = stat()
            guard stat(file, &status) == 0, status.st_mode & 0o077 != 0 else { continue }
            guard chmod(file, 0o600) == 0 else {
                throw ServiceError.unavailable(
                    "SQLite: \(file) can be read by other users and its permissions cannot be narrowed to 0600: "
                        + String(cString: strerror(errno)))
            }
            narrowed.append(file)
        }
        return narrowed
    }

    /// Closes the database; later calls fail with `.backendFailure`.
    public func close() throws {
        do { try pool.close() } catch let error as DatabaseError { throw Self.serviceError(error) }
    }

    // MARK: - Schema

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE accounts (
                        account_key TEXT PRIMARY KEY NOT NULL,
                        email TEXT NOT NULL UNIQUE,
                        first_name TEXT NOT NULL,
                        last_name TEXT NOT NULL,
                        password_hash TEXT NOT NULL,
                        created_at INTEGER NOT NULL
                    );
                    CREATE TABLE sessions (
                        token_digest TEXT PRIMARY KEY NOT NULL,
                        account_key TEXT NOT NULL REFERENCES accounts(account_key) ON DELETE CASCADE,
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL
                    );
                    CREATE INDEX sessions_by_account ON sessions(account_key);
                    CREATE TABLE student_locations (
                        object_id TEXT PRIMARY KEY NOT NULL,
                        unique_key TEXT NOT NULL UNIQUE,
                        first_name TEXT NOT NULL,
                        last_name TEXT NOT NULL,
                        map_string TEXT NOT NULL,
                        media_url TEXT NOT NULL,
                        latitude REAL NOT NULL,
                        longitude REAL NOT NULL,
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL,
                        revision INTEGER NOT NULL
                    );
                    CREATE INDEX student_locations_recent ON student_locations(updated_at DESC, revision DESC);
                    CREATE TABLE bot_state (
                        key TEXT PRIMARY KEY NOT NULL,
                        value TEXT NOT NULL
                    );
                    """)
        }
        return migrator
    }

    // MARK: - Sessions

    public func logIn(email: String, password: String) async throws -> DirectorySession {
        try DirectoryInput.requireCredentials(email: email, password: password)
        let hasher = options.passwordHasher
        guard let normalized = try? DirectoryInput.normalizedEmail(email) else {
            await hasher.dummyVerifyInBackground(password)
            throw ServiceError.invalidCredentials
        }
        let account = try await read { db -> (String, String)? in
            try Row.fetchOne(
                db, sql: "SELECT account_key, password_hash FROM accounts WHERE email = ?", arguments: [normalized]
            ).map { ($0["account_key"], $0["password_hash"]) }
        }
        guard let (accountKey, storedHash) = account else {
            await hasher.dummyVerifyInBackground(password)
            throw ServiceError.invalidCredentials
        }
        guard await hasher.verifyInBackground(password, against: storedHash) else {
            throw ServiceError.invalidCredentials
        }
        let newHash = hasher.needsRehash(storedHash) ? try await hasher.hashInBackground(password) : nil

        let sessionId = SessionToken.make()
        let now = options.clock()
        let expiresAt = Self.millisecondDate(now.addingTimeInterval(options.sessionLifetime))
        let digest = SessionToken.digest(sessionId)
        try await write { db in
            try db.execute(
                sql: "DELETE FROM sessions WHERE account_key = ? AND expires_at <= ?",
                arguments: [accountKey, Self.milliseconds(now)])
            try db.execute(
                sql: "INSERT INTO sessions (token_digest, account_key, created_at, expires_at) VALUES (?, ?, ?, ?)",
                arguments: [digest, accountKey, Self.milliseconds(now), Self.milliseconds(expiresAt)])
            if let newHash {
                try db.execute(
                    sql: "UPDATE accounts SET password_hash = ? WHERE account_key = ?",
                    arguments: [newHash, accountKey])
            }
        }
        return DirectorySession(accountKey: accountKey, sessionId: sessionId, expiresAt: expiresAt)
    }

    public func logOut(_ session: DirectorySession) async throws {
        let digest = SessionToken.digest(session.sessionId)
        try await write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE token_digest = ?", arguments: [digest])
        }
    }

    /// Throws `.sessionExpired` unless `session` is live and belongs to its account.
    private func requireLive(_ session: DirectorySession?) async throws {
        guard let session else { return }
        let digest = SessionToken.digest(session.sessionId)
        let now = Self.milliseconds(options.clock())
        let row = try await read { db -> (String, Int64)? in
            try Row.fetchOne(
                db, sql: "SELECT account_key, expires_at FROM sessions WHERE token_digest = ?", arguments: [digest]
            ).map { ($0["account_key"], $0["expires_at"]) }
        }
        guard let (accountKey, expiresAt) = row, accountKey == session.accountKey else {
            throw ServiceError.sessionExpired
        }
        guard expiresAt > now else {
            try await write { db in
                try db.execute(sql: "DELETE FROM sessions WHERE token_digest = ?", arguments: [digest])
            }
            throw ServiceError.sessionExpired
        }
    }

    public func profile(accountKey: String, session: DirectorySession?) async throws -> StudentProfile {
        try await requireLive(session)
        let row = try await read { db -> (String, String)? in
            try Row.fetchOne(
                db, sql: "SELECT first_name, last_name FROM accounts WHERE account_key = ?", arguments: [accountKey]
            ).map { ($0["first_name"], $0["last_name"]) }
        }
        guard let (first, last) = row else { throw ServiceError.notFound("No account with this key.") }
        return StudentProfile(accountKey: accountKey, firstName: first, lastName: last)
    }

    // MARK: - Pins

    public func recentLocations(limit: Int, skip: Int) async throws -> [StudentLocation] {
        guard limit > 0 else { return [] }
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM student_locations ORDER BY updated_at DESC, revision DESC LIMIT ? OFFSET ?",
                arguments: [min(limit, 10_000), max(0, skip)]
            ).map(Self.location)
        }
    }

    public func location(ofAccount accountKey: String) async throws -> StudentLocation? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM student_locations WHERE unique_key = ?", arguments: [accountKey])
                .map(Self.location)
        }
    }

    /// The pin with this objectId, or nil.
    public func location(objectId: String) async throws -> StudentLocation? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM student_locations WHERE object_id = ?", arguments: [objectId])
                .map(Self.location)
        }
    }

    public func createLocation(_ draft: PinDraft, session: DirectorySession?) async throws -> StudentLocation {
        try DirectoryInput.validatePin(draft)
        try await requireLive(session)
        try Self.requireOwner(draft.uniqueKey, session: session)
        let now = Self.milliseconds(options.clock())
        let objectId = RandomID.make()
        return try await write { db in
            if try Bool.fetchOne(
                db, sql: "SELECT 1 FROM student_locations WHERE unique_key = ?", arguments: [draft.uniqueKey]) != nil
            {
                throw ServiceError.rejectedInput("This account already has a pin; update it instead.")
            }
            try db.execute(
                sql: """
                    INSERT INTO student_locations (object_id, unique_key, first_name, last_name, map_string,
                        media_url, latitude, longitude, created_at, updated_at, revision)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                        (SELECT COALESCE(MAX(revision), 0) + 1 FROM student_locations))
                    """,
                arguments: [
                    objectId, draft.uniqueKey, Self.trim(draft.firstName), Self.trim(draft.lastName),
                    Self.trim(draft.mapString), draft.mediaURL, draft.coordinate.latitude,
                    draft.coordinate.longitude, now, now,
                ])
            return try Self.fetchLocation(db, objectId: objectId)
        }
    }

    public func updateLocation(objectId: String, with draft: PinDraft, session: DirectorySession?) async throws
        -> StudentLocation
    {
        try DirectoryInput.validatePin(draft)
        try await requireLive(session)
        try Self.requireOwner(draft.uniqueKey, session: session)
        let now = Self.milliseconds(options.clock())
        return try await write { db in
            guard
                let owner = try String.fetchOne(
                    db, sql: "SELECT unique_key FROM student_locations WHERE object_id = ?", arguments: [objectId])
            else { throw ServiceError.notFound("No pin with this objectId.") }
            guard owner == draft.uniqueKey else {
                throw ServiceError.rejectedInput("This pin belongs to another account.")
            }
            try db.execute(
                sql: """
                    UPDATE student_locations SET first_name = ?, last_name = ?, map_string = ?, media_url = ?,
                        latitude = ?, longitude = ?, updated_at = MAX(?, created_at),
                        revision = (SELECT COALESCE(MAX(revision), 0) + 1 FROM student_locations)
                    WHERE object_id = ?
                    """,
                arguments: [
                    Self.trim(draft.firstName), Self.trim(draft.lastName), Self.trim(draft.mapString),
                    draft.mediaURL, draft.coordinate.latitude, draft.coordinate.longitude, now, objectId,
                ])
            return try Self.fetchLocation(db, objectId: objectId)
        }
    }

    /// Reads a table and takes the write lock (then lets it go): a file another process has locked,
    /// or that cannot be read or written, fails here with `.unavailable`.
    public func checkHealth() async throws {
        do {
            try await pool.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                defer { try? db.execute(sql: "ROLLBACK") }
                _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM bot_state")
            }
        } catch let error as DatabaseError {
            throw Self.serviceError(error)
        }
    }

    // MARK: - Accounts

    public func addAccount(email: String, password: String, firstName: String, lastName: String) async throws
        -> LocalAccount
    {
        let normalized = try DirectoryInput.normalizedEmail(email)
        try DirectoryInput.validateNewPassword(password)
        let (first, last) = try DirectoryInput.validateNames(firstName: firstName, lastName: lastName)
        let hash = try await options.passwordHasher.hashInBackground(password)
        let account = LocalAccount(
            accountKey: RandomID.make(), email: normalized, firstName: first, lastName: last,
            createdAt: Self.millisecondDate(options.clock()))
        try await write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM accounts WHERE email = ?", arguments: [normalized]) != nil {
                throw ServiceError.rejectedInput("An account with this email already exists.")
            }
            try db.execute(
                sql: """
                    INSERT INTO accounts (account_key, email, first_name, last_name, password_hash, created_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    account.accountKey, normalized, first, last, hash, Self.milliseconds(account.createdAt),
                ])
        }
        return account
    }

    public func listAccounts() async throws -> [LocalAccount] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT account_key, email, first_name, last_name, created_at FROM accounts ORDER BY email"
            ).map { row in
                LocalAccount(
                    accountKey: row["account_key"], email: row["email"], firstName: row["first_name"],
                    lastName: row["last_name"], createdAt: Self.date(milliseconds: row["created_at"]))
            }
        }
    }

    public func removeAccount(email: String) async throws {
        guard let normalized = try? DirectoryInput.normalizedEmail(email) else {
            throw ServiceError.notFound("No account with this email.")
        }
        try await write { db in
            guard
                let key = try String.fetchOne(
                    db, sql: "SELECT account_key FROM accounts WHERE email = ?", arguments: [normalized])
            else { throw ServiceError.notFound("No account with this email.") }
            try db.execute(sql: "DELETE FROM student_locations WHERE unique_key = ?", arguments: [key])
            try db.execute(sql: "DELETE FROM sessions WHERE account_key = ?", arguments: [key])
            try db.execute(sql: "DELETE FROM accounts WHERE account_key = ?", arguments: [key])
        }
    }

    // MARK: - Bot state

    public func state(_ key: String) async throws -> String? {
        try await read { db in
            try String.fetchOne(db, sql: "SELECT value FROM bot_state WHERE key = ?", arguments: [key])
        }
    }

    public func setState(_ key: String, _ value: String?) async throws {
        try await write { db in
            if let value {
                try db.execute(
                    sql: """
                        INSERT INTO bot_state (key, value) VALUES (?, ?)
                        ON CONFLICT(key) DO UPDATE SET value = excluded.value
                        """,
                    arguments: [key, value])
            } else {
                try db.execute(sql: "DELETE FROM bot_state WHERE key = ?", arguments: [key])
            }
        }
    }

    // MARK: - Helpers

    private static func closeDescriptor(_ descriptor: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #elseif canImport(Darwin)
            _ = Darwin.close(descriptor)
        #endif
    }

    private func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.read(body)
        } catch let error as DatabaseError {
            throw Self.serviceError(error)
        }
    }

    @discardableResult
    private func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
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
                "SQLite: \(message) (another connection has held a lock for over \(Int(busyTimeout)) s)")
        case .SQLITE_READONLY, .SQLITE_IOERR, .SQLITE_FULL, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_CORRUPT,
            .SQLITE_NOTADB:
            return .unavailable("SQLite: \(message)")
        default:
            return .backendFailure(status: Int(error.extendedResultCode.rawValue), message: "SQLite: \(message)")
        }
    }

    private static func requireOwner(_ uniqueKey: String, session: DirectorySession?) throws {
        if let session, session.accountKey != uniqueKey {
            throw ServiceError.rejectedInput("A pin can only be saved for your own account.")
        }
    }

    private static func fetchLocation(_ db: Database, objectId: String) throws -> StudentLocation {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM student_locations WHERE object_id = ?", arguments: [objectId])
        else { throw ServiceError.notFound("No pin with this objectId.") }
        return location(row)
    }

    private static func location(_ row: Row) -> StudentLocation {
        StudentLocation(
            objectId: row["object_id"], uniqueKey: row["unique_key"], firstName: row["first_name"],
            lastName: row["last_name"], mapString: row["map_string"], mediaURL: row["media_url"],
            coordinate: Coordinate(latitude: row["latitude"], longitude: row["longitude"]),
            createdAt: date(milliseconds: row["created_at"]), updatedAt: date(milliseconds: row["updated_at"]))
    }

    private static func trim(_ text: String) -> String { text.trimmingCharacters(in: .whitespaces) }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    static func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
    static func millisecondDate(_ date: Date) -> Date { Self.date(milliseconds: milliseconds(date)) }
}
