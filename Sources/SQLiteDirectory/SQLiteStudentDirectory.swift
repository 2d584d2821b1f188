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
/// Logins, sessions and accounts follow ``AccountPolicy`` (the SQL it needs is ``SQLiteStore``'s);
/// the pin and profile methods check their session with it.
public final class SQLiteStudentDirectory: AccountDirectory, TripDirectory, BotStateStore, Sendable {
    public let backendName = "sqlite"
    public var signUpURL: String? { options.signUpURL }

    let store: SQLiteStore
    let accounts: AccountPolicy<SQLiteStore>
    let options: LocalDirectoryOptions

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
        // Deleted content is overwritten with zeros, in tables and indices alike, whatever the
        // SQLite build's default: an erased student's email or name stays nowhere in the file.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        do {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            narrowedFiles = try Self.restrictToOwner(path)
            let pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
            store = SQLiteStore(pool: pool)
        } catch let error as DatabaseError {
            throw SQLiteStore.serviceError(error)
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError.backendFailure(status: nil, message: "SQLite: cannot open the database: \(error)")
        }
        self.options = options
        accounts = AccountPolicy(storage: store, options: options)
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
        do { try store.pool.close() } catch let error as DatabaseError { throw SQLiteStore.serviceError(error) }
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
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    CREATE TABLE pin_removals (
                        object_id TEXT PRIMARY KEY NOT NULL,
                        unique_key TEXT NOT NULL,
                        revision INTEGER NOT NULL
                    );
                    CREATE INDEX pin_removals_by_revision ON pin_removals(revision);
                    CREATE INDEX student_locations_by_revision ON student_locations(revision);
                    """)
        }
        migrator.registerMigration("v3") { db in
            // Tombstones hold the objectId alone (see SQLiteStore.removePins).
            try db.execute(sql: "UPDATE pin_removals SET unique_key = ''")
        }
        migrator.registerMigration("v4") { db in
            // A class account's services account per IRC network (see ServicesAccountLink).
            try db.execute(
                sql: """
                    CREATE TABLE services_links (
                        account_key TEXT NOT NULL REFERENCES accounts(account_key) ON DELETE CASCADE,
                        network TEXT NOT NULL,
                        services_account TEXT NOT NULL,
                        folded_account TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (account_key, network),
                        UNIQUE (network, folded_account)
                    );
                    """)
        }
        migrator.registerMigration("v5") { db in
            // A pin's trip (see StudentLocation.trip): all four set, or all four NULL.
            try db.execute(
                sql: """
                    ALTER TABLE student_locations ADD COLUMN trip_map_string TEXT;
                    ALTER TABLE student_locations ADD COLUMN trip_latitude REAL;
                    ALTER TABLE student_locations ADD COLUMN trip_longitude REAL;
                    ALTER TABLE student_locations ADD COLUMN trip_ends_at INTEGER;
                    """)
        }
        migrator.registerMigration("v6") { db in
            // The account events running bots act on (see AccountEventFeed), kept an hour; the
            // account is named by a digest of its key.
            try db.execute(
                sql: """
                    CREATE TABLE account_events (
                        revision INTEGER PRIMARY KEY AUTOINCREMENT,
                        kind TEXT NOT NULL,
                        account_digest TEXT NOT NULL,
                        network TEXT NOT NULL,
                        folded_account TEXT NOT NULL,
                        at INTEGER NOT NULL
                    );
                    CREATE INDEX account_events_by_age ON account_events(at);
                    """)
        }
        migrator.registerMigration("v7") { db in
            // The level each pin is kept at (see KeptPin); NULL for a pin kept before levels were
            // stored.
            try db.execute(sql: "ALTER TABLE student_locations ADD COLUMN precision TEXT")
        }
        return migrator
    }

    // MARK: - Sessions

    public func logIn(email: String, password: String) async throws -> DirectorySession {
        try await accounts.logIn(email: email, password: password)
    }

    public func session(id sessionId: String) async throws -> DirectorySession? {
        try await accounts.liveSession(id: sessionId)
    }

    public func logOut(_ session: DirectorySession) async throws {
        try await accounts.logOut(session)
    }

    public func endSessions(accountKey: String) async throws -> Int {
        try await accounts.endSessions(accountKey: accountKey)
    }

    public func profile(accountKey: String, session: DirectorySession?) async throws -> StudentProfile {
        try await accounts.requireLive(session)
        let row = try await store.read { db -> (String, String)? in
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
        return try await store.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM student_locations ORDER BY updated_at DESC, revision DESC LIMIT ? OFFSET ?",
                arguments: [min(limit, 10_000), max(0, skip)]
            ).map(Self.location)
        }
    }

    public func locationChanges(after revision: Int64, limit: Int) async throws -> PinChangePage? {
        let limit = max(1, min(limit, 10_000))
        return try await store.read { db in
            let saved = try Row.fetchAll(
                db, sql: "SELECT * FROM student_locations WHERE revision > ? ORDER BY revision LIMIT ?",
                arguments: [revision, limit]
            ).map { (revision: $0["revision"] as Int64, pin: Self.location($0)) }
            let removed = try Row.fetchAll(
                db, sql: "SELECT object_id, revision FROM pin_removals WHERE revision > ? ORDER BY revision LIMIT ?",
                arguments: [revision, limit]
            ).map { (revision: $0["revision"] as Int64, objectId: $0["object_id"] as String) }
            return PinChangePage.merging(saved: saved, removed: removed, after: revision, limit: limit)
        }
    }

    public func location(ofAccount accountKey: String) async throws -> StudentLocation? {
        try await store.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM student_locations WHERE unique_key = ?", arguments: [accountKey])
                .map(Self.location)
        }
    }

    /// The pin with this objectId, or nil.
    public func location(objectId: String) async throws -> StudentLocation? {
        try await store.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM student_locations WHERE object_id = ?", arguments: [objectId])
                .map(Self.location)
        }
    }

    public func createLocation(_ pin: KeptPin, session: DirectorySession?) async throws -> StudentLocation {
        let draft = pin.draft
        try await accounts.requireMaySave(draft, session: session)
        let now = SQLiteStore.milliseconds(options.clock())
        let objectId = RandomID.make()
        return try await store.write { db in
            if try Bool.fetchOne(
                db, sql: "SELECT 1 FROM student_locations WHERE unique_key = ?", arguments: [draft.uniqueKey]) != nil
            {
                throw ServiceError.rejectedInput("This account already has a pin; update it instead.")
            }
            try db.execute(
                sql: """
                    INSERT INTO student_locations (object_id, unique_key, first_name, last_name, map_string,
                        media_url, latitude, longitude, created_at, updated_at, revision, precision,
                        trip_map_string, trip_latitude, trip_longitude, trip_ends_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, \(SQLiteStore.nextRevision), ?, ?, ?, ?, ?)
                    """,
                arguments: StatementArguments(
                    [
                        objectId, draft.uniqueKey, Self.trim(draft.firstName), Self.trim(draft.lastName),
                        Self.trim(draft.mapString), draft.mediaURL, draft.coordinate.latitude,
                        draft.coordinate.longitude, now, now, pin.precision.rawValue,
                    ] + Self.tripFields(draft.trip)))
            return try Self.fetchLocation(db, objectId: objectId)
        }
    }

    public func updateLocation(objectId: String, with pin: KeptPin, session: DirectorySession?) async throws
        -> StudentLocation
    {
        let draft = pin.draft
        try await accounts.requireMaySave(draft, session: session)
        let now = SQLiteStore.milliseconds(options.clock())
        return try await store.write { db in
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
                        latitude = ?, longitude = ?, updated_at = MAX(?, created_at), precision = ?,
                        revision = \(SQLiteStore.nextRevision), \(Self.keepingOrSettingTrip)
                    WHERE object_id = ?
                    """,
                arguments: StatementArguments(
                    [
                        Self.trim(draft.firstName), Self.trim(draft.lastName), Self.trim(draft.mapString),
                        draft.mediaURL, draft.coordinate.latitude, draft.coordinate.longitude, now,
                        pin.precision.rawValue,
                    ] + Self.tripFields(draft.trip) + [objectId]))
            return try Self.fetchLocation(db, objectId: objectId)
        }
    }

    /// Reads a table and takes the write lock (then lets it go): a file another process has locked,
    /// or that cannot be read or written, fails here with `.unavailable`.
    public func checkHealth() async throws {
        do {
            try await store.pool.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                defer { try? db.execute(sql: "ROLLBACK") }
                _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM bot_state")
            }
        } catch let error as DatabaseError {
            throw SQLiteStore.serviceError(error)
        }
    }

    // MARK: - Accounts

    public func addAccount(email: String, password: String, firstName: String, lastName: String) async throws
        -> LocalAccount
    {
        try await accounts.addAccount(email: email, password: password, firstName: firstName, lastName: lastName)
    }

    public func listAccounts() async throws -> [LocalAccount] {
        try await store.read { db in
            try Row.fetchAll(
                db, sql: "SELECT account_key, email, first_name, last_name, created_at FROM accounts ORDER BY email"
            ).map { row in
                LocalAccount(
                    accountKey: row["account_key"], email: row["email"], firstName: row["first_name"],
                    lastName: row["last_name"], createdAt: SQLiteStore.date(milliseconds: row["created_at"]))
            }
        }
    }

    public func removeAccount(email: String) async throws {
        try await accounts.removeAccount(email: email)
    }

    public func changePassword(email: String, newPassword: String) async throws {
        try await accounts.changePassword(email: email, newPassword: newPassword)
    }

    public func resumeSession(digest: String, accountKey: String) async throws -> DirectorySession? {
        try await accounts.resumeSession(digest: digest, accountKey: accountKey)
    }

    // MARK: - Bot state

    public func state(_ key: String) async throws -> String? {
        try await store.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM bot_state WHERE key = ?", arguments: [key])
        }
    }

    public func setState(_ key: String, _ value: String?) async throws {
        try await store.write { db in
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

    public func stateKeys(prefix: String) async throws -> [String] {
        try await store.read { db in
            try String.fetchAll(db, sql: "SELECT key FROM bot_state ORDER BY key").filter { $0.hasPrefix(prefix) }
        }
    }

    public func states(prefix: String) async throws -> [String: String] {
        try await store.read { db in
            var values: [String: String] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT key, value FROM bot_state WHERE substr(key, 1, length(?)) = ?",
                arguments: [prefix, prefix])
            while let row = try rows.next() { values[row["key"]] = row["value"] }
            return values
        }
    }

    public func takeState(_ key: String) async throws -> String? {
        // One write transaction: SQLite runs one writer at a time, so no other taker reads the row
        // between the read and the delete.
        try await store.write { db in
            let value = try String.fetchOne(db, sql: "SELECT value FROM bot_state WHERE key = ?", arguments: [key])
            if value != nil { try db.execute(sql: "DELETE FROM bot_state WHERE key = ?", arguments: [key]) }
            return value
        }
    }

    public func openSession(accountKey: String) async throws -> DirectorySession? {
        try await accounts.openSession(accountKey: accountKey)
    }

    // MARK: - Services accounts

    @discardableResult
    public func linkServicesAccount(
        accountKey: String, network: String, servicesAccount: String, foldedAccount: String
    ) async throws -> ServicesAccountLink {
        try await accounts.linkServicesAccount(
            accountKey: accountKey, network: network, servicesAccount: servicesAccount, foldedAccount: foldedAccount)
    }

    public func unlinkServicesAccount(accountKey: String, network: String) async throws -> ServicesAccountLink? {
        try await store.deleteServicesLink(accountKey: accountKey, network: network)
    }

    public func servicesLink(network: String, foldedAccount: String) async throws -> ServicesAccountLink? {
        try await accounts.servicesLink(network: network, foldedAccount: foldedAccount)
    }

    public func servicesLinks(accountKey: String) async throws -> [ServicesAccountLink] {
        try await store.servicesLinks(accountKey: accountKey)
    }

    // MARK: - Helpers

    private static func closeDescriptor(_ descriptor: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #elseif canImport(Darwin)
            _ = Darwin.close(descriptor)
        #endif
    }

    static func fetchLocation(_ db: Database, objectId: String) throws -> StudentLocation {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM student_locations WHERE object_id = ?", arguments: [objectId])
        else { throw ServiceError.notFound("No pin with this objectId.") }
        return location(row)
    }

    static func location(_ row: Row) -> StudentLocation {
        var trip: Trip?
        if let place: String = row["trip_map_string"], let latitude: Double = row["trip_latitude"],
            let longitude: Double = row["trip_longitude"], let endsAt: Int64 = row["trip_ends_at"]
        {
            trip = Trip(
                mapString: place, coordinate: Coordinate(latitude: latitude, longitude: longitude),
                endsAt: SQLiteStore.date(milliseconds: endsAt))
        }
        return StudentLocation(
            objectId: row["object_id"], uniqueKey: row["unique_key"], firstName: row["first_name"],
            lastName: row["last_name"], mapString: row["map_string"], mediaURL: row["media_url"],
            coordinate: Coordinate(latitude: row["latitude"], longitude: row["longitude"]),
            createdAt: SQLiteStore.date(milliseconds: row["created_at"]),
            updatedAt: SQLiteStore.date(milliseconds: row["updated_at"]), trip: trip,
            precision: (row["precision"] as String?).flatMap(PinPrecision.init(rawValue:)))
    }

    /// The values of the four trip columns (place, latitude, longitude, end) for `trip`: all NULL
    /// for none.
    static func tripFields(_ trip: Trip?) -> [(any DatabaseValueConvertible)?] {
        guard let trip else { return [nil, nil, nil, nil] }
        return [
            trim(trip.mapString), trip.coordinate.latitude, trip.coordinate.longitude,
            SQLiteStore.milliseconds(trip.endsAt),
        ]
    }

    /// The SET clause of an update that takes the ``tripFields(_:)`` of a draft: four NULLs keep the
    /// trip the pin has, four values replace it.
    static let keepingOrSettingTrip = """
        trip_map_string = COALESCE(?, trip_map_string), trip_latitude = COALESCE(?, trip_latitude),
            trip_longitude = COALESCE(?, trip_longitude), trip_ends_at = COALESCE(?, trip_ends_at)
        """

    static func trim(_ text: String) -> String { DirectoryInput.trimmedOfSpaces(text) }
}
