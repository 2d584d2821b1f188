import Foundation
import Logging
import OnTheMapService
import PostgresNIO

/// The shared directory in PostgreSQL: the same accounts, sessions, pins and bot state as the
/// SQLite directory, for several bot instances at once. Every saved pin is announced with
/// `NOTIFY onthemap_pins, '<objectId>'`, which ``pinChanges()`` listens to.
///
/// Lifecycle: ``connect(url:options:operationTimeout:logger:)`` starts the connection pool and
/// brings the schema up to date (under an advisory lock, so instances starting together do not
/// race); ``shutdown()`` stops it. Sessions are checked as in the SQLite directory.
public final class PostgresStudentDirectory: AccountDirectory, PinChangeNotifying, BotStateStore, Sendable {
    public let backendName = "postgres"
    public var signUpURL: String? { options.signUpURL }
    /// The server, for logs (without the password).
    public let url: PostgresConnectionURL

    /// The channel of pin notifications.
    public static let pinChannel = "onthemap_pins"
    static let migrationLockKey: Int64 = 0x4F6E_5468_654D_6170  // "OnTheMap"

    private let client: PostgresClient
    private let runTask: Task<Void, Never>
    private let listeners = ListenerTasks()
    private let options: LocalDirectoryOptions
    private let operationTimeout: Duration
    private let logger: Logger

    /// Creates the directory and starts its connection pool, without touching the database.
    /// Most callers want ``connect(url:options:operationTimeout:logger:)``.
    public init(
        url: PostgresConnectionURL, options: LocalDirectoryOptions = LocalDirectoryOptions(),
        operationTimeout: Duration = .seconds(10), logger: Logger = Logger(label: "onthemap.postgres")
    ) {
        self.url = url
        self.options = options
        self.operationTimeout = operationTimeout
        self.logger = logger
        var configuration = url.clientConfiguration
        configuration.options.connectTimeout = operationTimeout
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.runTask = Task { await client.run() }
    }

    /// Parses `url`, starts the pool and runs the migrations. Throws `.rejectedInput` for a bad URL,
    /// `.networkUnreachable` when the server cannot be reached.
    public static func connect(
        url: String, options: LocalDirectoryOptions = LocalDirectoryOptions(),
        operationTimeout: Duration = .seconds(10), logger: Logger = Logger(label: "onthemap.postgres")
    ) async throws -> PostgresStudentDirectory {
        let parsed = try PostgresConnectionURL(url)
        let directory = PostgresStudentDirectory(
            url: parsed, options: options, operationTimeout: operationTimeout, logger: logger)
        do {
            try await directory.migrate()
        } catch {
            await directory.shutdown()
            throw error
        }
        logger.info("PostgreSQL directory ready", metadata: ["server": "\(parsed)"])
        return directory
    }

    /// Ends every `pinChanges()` stream and closes the pool.
    public func shutdown() async {
        await listeners.cancelAll()
        runTask.cancel()
        await runTask.value
    }

    // MARK: - Schema

    static let migrations: [(version: String, statements: [String])] = [
        (
            "v1",
            [
                """
                CREATE TABLE accounts (
                    account_key TEXT PRIMARY KEY,
                    email TEXT NOT NULL UNIQUE,
                    first_name TEXT NOT NULL,
                    last_name TEXT NOT NULL,
                    password_hash TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL
                )
                """,
                """
                CREATE TABLE sessions (
                    token_digest TEXT PRIMARY KEY,
                    account_key TEXT NOT NULL REFERENCES accounts(account_key) ON DELETE CASCADE,
                    created_at TIMESTAMPTZ NOT NULL,
                    expires_at TIMESTAMPTZ NOT NULL
                )
                """,
                "CREATE INDEX sessions_by_account ON sessions(account_key)",
                "CREATE SEQUENCE student_locations_revision",
                """
                CREATE TABLE student_locations (
                    object_id TEXT PRIMARY KEY,
                    unique_key TEXT NOT NULL UNIQUE,
                    first_name TEXT NOT NULL,
                    last_name TEXT NOT NULL,
                    map_string TEXT NOT NULL,
                    media_url TEXT NOT NULL,
                    latitude DOUBLE PRECISION NOT NULL,
                    longitude DOUBLE PRECISION NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL,
                    updated_at TIMESTAMPTZ NOT NULL,
                    revision BIGINT NOT NULL
                )
                """,
                "CREATE INDEX student_locations_recent ON student_locations(updated_at DESC, revision DESC)",
                "CREATE TABLE bot_state (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            ]
        )
    ]

    /// Brings the schema up to date; safe to run again and from several instances at once.
    public func migrate() async throws {
        try await guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLockKey))", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS onthemap_schema_migrations (
                        version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                    """, logger: logger)
                var applied: Set<String> = []
                for try await version in try await connection.query(
                    "SELECT version FROM onthemap_schema_migrations", logger: logger
                ).decode(String.self) {
                    applied.insert(version)
                }
                for migration in Self.migrations where !applied.contains(migration.version) {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        "INSERT INTO onthemap_schema_migrations (version) VALUES (\(migration.version))",
                        logger: logger)
                    logger.info("Applied schema migration", metadata: ["version": "\(migration.version)"])
                }
            }
        }
    }

    // MARK: - Sessions

    public func logIn(email: String, password: String) async throws -> DirectorySession {
        try DirectoryInput.requireCredentials(email: email, password: password)
        let hasher = options.passwordHasher
        guard let normalized = try? DirectoryInput.normalizedEmail(email) else {
            await hasher.dummyVerifyInBackground(password)
            throw ServiceError.invalidCredentials
        }
        let account = try await guarded { [client, logger] in
            try await client.query(
                "SELECT account_key, password_hash FROM accounts WHERE email = \(normalized)", logger: logger
            ).decode((String, String).self).first { _ in true }
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
        let digest = SessionToken.digest(sessionId)
        let now = options.clock()
        let expiresAt = now.addingTimeInterval(options.sessionLifetime)
        try await guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query(
                    "DELETE FROM sessions WHERE account_key = \(accountKey) AND expires_at <= \(now)", logger: logger)
                try await connection.query(
                    """
                    INSERT INTO sessions (token_digest, account_key, created_at, expires_at)
                    VALUES (\(digest), \(accountKey), \(now), \(expiresAt))
                    """, logger: logger)
                if let newHash {
                    try await connection.query(
                        "UPDATE accounts SET password_hash = \(newHash) WHERE account_key = \(accountKey)",
                        logger: logger)
                }
            }
        }
        return DirectorySession(accountKey: accountKey, sessionId: sessionId, expiresAt: expiresAt)
    }

    public func logOut(_ session: DirectorySession) async throws {
        let digest = SessionToken.digest(session.sessionId)
        try await guarded { [client, logger] in
            try await client.query("DELETE FROM sessions WHERE token_digest = \(digest)", logger: logger)
        }
    }

    private func requireLive(_ session: DirectorySession?) async throws {
        guard let session else { return }
        let digest = SessionToken.digest(session.sessionId)
        let now = options.clock()
        let row = try await guarded { [client, logger] in
            try await client.query(
                "SELECT account_key, expires_at FROM sessions WHERE token_digest = \(digest)", logger: logger
            ).decode((String, Date).self).first { _ in true }
        }
        guard let (accountKey, expiresAt) = row, accountKey == session.accountKey else {
            throw ServiceError.sessionExpired
        }
        guard expiresAt > now else {
            try await guarded { [client, logger] in
                try await client.query("DELETE FROM sessions WHERE token_digest = \(digest)", logger: logger)
            }
            throw ServiceError.sessionExpired
        }
    }

    public func profile(accountKey: String, session: DirectorySession?) async throws -> StudentProfile {
        try await requireLive(session)
        let row = try await guarded { [client, logger] in
            try await client.query(
                "SELECT first_name, last_name FROM accounts WHERE account_key = \(accountKey)", logger: logger
            ).decode((String, String).self).first { _ in true }
        }
        guard let (first, last) = row else { throw ServiceError.notFound("No account with this key.") }
        return StudentProfile(accountKey: accountKey, firstName: first, lastName: last)
    }

    // MARK: - Pins

    private static let locationColumns = """
        object_id, unique_key, first_name, last_name, map_string, media_url, latitude, longitude,
        created_at, updated_at
        """

    private typealias LocationRow = (String, String, String, String, String, String, Double, Double, Date, Date)

    private static func location(_ row: LocationRow) -> StudentLocation {
        StudentLocation(
            objectId: row.0, uniqueKey: row.1, firstName: row.2, lastName: row.3, mapString: row.4,
            mediaURL: row.5, coordinate: Coordinate(latitude: row.6, longitude: row.7), createdAt: row.8,
            updatedAt: row.9)
    }

    private static func locations(_ rows: PostgresRowSequence) async throws -> [StudentLocation] {
        var result: [StudentLocation] = []
        for try await row in rows.decode(LocationRow.self) { result.append(location(row)) }
        return result
    }

    public func recentLocations(limit: Int, skip: Int) async throws -> [StudentLocation] {
        guard limit > 0 else { return [] }
        let limit = min(limit, 10_000)
        let skip = max(0, skip)
        return try await guarded { [client, logger] in
            try await Self.locations(
                client.query(
                    """
                    SELECT \(unescaped: Self.locationColumns) FROM student_locations
                    ORDER BY updated_at DESC, revision DESC LIMIT \(limit) OFFSET \(skip)
                    """, logger: logger))
        }
    }

    public func location(ofAccount accountKey: String) async throws -> StudentLocation? {
        try await guarded { [client, logger] in
            try await Self.locations(
                client.query(
                    "SELECT \(unescaped: Self.locationColumns) FROM student_locations WHERE unique_key = \(accountKey)",
                    logger: logger)
            ).first
        }
    }

    /// The pin with this objectId, or nil (what a `pinChanges()` listener looks up).
    public func location(objectId: String) async throws -> StudentLocation? {
        try await guarded { [client, logger] in
            try await Self.locations(
                client.query(
                    "SELECT \(unescaped: Self.locationColumns) FROM student_locations WHERE object_id = \(objectId)",
                    logger: logger)
            ).first
        }
    }

    public func createLocation(_ draft: PinDraft, session: DirectorySession?) async throws -> StudentLocation {
        try DirectoryInput.validatePin(draft)
        try await requireLive(session)
        try Self.requireOwner(draft.uniqueKey, session: session)
        let now = options.clock()
        let objectId = RandomID.make()
        let fields = Self.trimmedFields(draft)
        do {
            return try await guarded { [client, logger] in
                try await client.withTransaction(logger: logger) { connection in
                    let existing = try await connection.query(
                        "SELECT 1 FROM student_locations WHERE unique_key = \(draft.uniqueKey)", logger: logger
                    ).collect()
                    guard existing.isEmpty else { throw Self.alreadyHasPin }
                    let saved = try await Self.locations(
                        connection.query(
                            """
                            INSERT INTO student_locations (object_id, unique_key, first_name, last_name, map_string,
                                media_url, latitude, longitude, created_at, updated_at, revision)
                            VALUES (\(objectId), \(draft.uniqueKey), \(fields.first), \(fields.last), \(fields.place),
                                \(draft.mediaURL), \(draft.coordinate.latitude), \(draft.coordinate.longitude),
                                \(now), \(now), nextval('student_locations_revision'))
                            RETURNING \(unescaped: Self.locationColumns)
                            """, logger: logger))
                    try await connection.query(
                        "SELECT pg_notify(\(Self.pinChannel), \(objectId))", logger: logger)
                    guard let location = saved.first else { throw ServiceError.malformedResponse("No row saved.") }
                    return location
                }
            }
        } catch ServiceError.rejectedInput("That already exists.") {
            throw Self.alreadyHasPin
        }
    }

    public func updateLocation(objectId: String, with draft: PinDraft, session: DirectorySession?) async throws
        -> StudentLocation
    {
        try DirectoryInput.validatePin(draft)
        try await requireLive(session)
        try Self.requireOwner(draft.uniqueKey, session: session)
        let now = options.clock()
        let fields = Self.trimmedFields(draft)
        return try await guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                let owner = try await connection.query(
                    "SELECT unique_key FROM student_locations WHERE object_id = \(objectId) FOR UPDATE",
                    logger: logger
                ).decode(String.self).first { _ in true }
                guard let owner else { throw ServiceError.notFound("No pin with this objectId.") }
                guard owner == draft.uniqueKey else {
                    throw ServiceError.rejectedInput("This pin belongs to another account.")
                }
                let saved = try await Self.locations(
                    connection.query(
                        """
                        UPDATE student_locations SET first_name = \(fields.first), last_name = \(fields.last),
                            map_string = \(fields.place), media_url = \(draft.mediaURL),
                            latitude = \(draft.coordinate.latitude), longitude = \(draft.coordinate.longitude),
                            updated_at = GREATEST(\(now), created_at),
                            revision = nextval('student_locations_revision')
                        WHERE object_id = \(objectId)
                        RETURNING \(unescaped: Self.locationColumns)
                        """, logger: logger))
                try await connection.query("SELECT pg_notify(\(Self.pinChannel), \(objectId))", logger: logger)
                guard let location = saved.first else { throw ServiceError.notFound("No pin with this objectId.") }
                return location
            }
        }
    }

    public func checkHealth() async throws {
        try await guarded { [client, logger] in
            try await client.query("SELECT 1", logger: logger)
        }
    }

    // MARK: - Pin notifications

    /// Listens on ``pinChannel`` on a connection of its own; returns once listening, so every pin
    /// saved afterwards (by any instance) arrives. Reconnects after a lost connection (the server
    /// restarted, the network failed): notifications sent meanwhile are lost, so once listening
    /// again it yields an empty objectId, meaning "some may have been missed: look again". The
    /// stream ends at ``shutdown()`` or when dropped.
    public func pinChanges() async throws -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1_000))
        let (readiness, readinessContinuation) = AsyncStream.makeStream(of: (any Error)?.self)
        let client = self.client
        let logger = self.logger
        let task = Task {
            var isFirstAttempt = true
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: Self.pinChannel) { notifications in
                            if isFirstAttempt {
                                readinessContinuation.yield(nil)
                            } else {
                                logger.info("Listening to PostgreSQL notifications again")
                                continuation.yield("")
                            }
                            isFirstAttempt = false
                            for try await notification in notifications {
                                continuation.yield(notification.payload)
                            }
                        }
                    }
                } catch {
                    if isFirstAttempt {
                        readinessContinuation.yield(error)
                        break
                    }
                    if !Task.isCancelled {
                        logger.warning("Lost the PostgreSQL notification connection; listening again")
                    }
                }
                try? await Task.sleep(for: .seconds(1))
            }
            readinessContinuation.finish()
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        await listeners.add(task)
        let outcome: (any Error)?
        do {
            outcome = try await withTimeout {
                for await outcome in readiness { return outcome }
                return CancellationError()
            }
        } catch {
            task.cancel()
            throw error
        }
        if let outcome {
            task.cancel()
            throw Self.serviceError(outcome)
        }
        return stream
    }

    // MARK: - Accounts

    public func addAccount(email: String, password: String, firstName: String, lastName: String) async throws
        -> LocalAccount
    {
        let normalized = try DirectoryInput.normalizedEmail(email)
        try DirectoryInput.validateNewPassword(password)
        let (first, last) = try DirectoryInput.validateNames(firstName: firstName, lastName: lastName)
        let hash = try await options.passwordHasher.hashInBackground(password)
        let key = RandomID.make()
        let now = options.clock()
        do {
            return try await guarded { [client, logger] in
                let rows = try await client.query(
                    """
                    INSERT INTO accounts (account_key, email, first_name, last_name, password_hash, created_at)
                    VALUES (\(key), \(normalized), \(first), \(last), \(hash), \(now))
                    RETURNING created_at
                    """, logger: logger)
                guard let createdAt = try await rows.decode(Date.self).first(where: { _ in true }) else {
                    throw ServiceError.malformedResponse("No account saved.")
                }
                return LocalAccount(
                    accountKey: key, email: normalized, firstName: first, lastName: last, createdAt: createdAt)
            }
        } catch ServiceError.rejectedInput("That already exists.") {
            throw ServiceError.rejectedInput("An account with this email already exists.")
        }
    }

    public func listAccounts() async throws -> [LocalAccount] {
        try await guarded { [client, logger] in
            var accounts: [LocalAccount] = []
            for try await (key, email, first, last, created) in try await client.query(
                "SELECT account_key, email, first_name, last_name, created_at FROM accounts ORDER BY email",
                logger: logger
            ).decode((String, String, String, String, Date).self) {
                accounts.append(
                    LocalAccount(accountKey: key, email: email, firstName: first, lastName: last, createdAt: created))
            }
            return accounts
        }
    }

    public func removeAccount(email: String) async throws {
        guard let normalized = try? DirectoryInput.normalizedEmail(email) else {
            throw ServiceError.notFound("No account with this email.")
        }
        try await guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                let key = try await connection.query(
                    "SELECT account_key FROM accounts WHERE email = \(normalized) FOR UPDATE", logger: logger
                ).decode(String.self).first { _ in true }
                guard let key else { throw ServiceError.notFound("No account with this email.") }
                try await connection.query("DELETE FROM student_locations WHERE unique_key = \(key)", logger: logger)
                try await connection.query("DELETE FROM sessions WHERE account_key = \(key)", logger: logger)
                try await connection.query("DELETE FROM accounts WHERE account_key = \(key)", logger: logger)
            }
        }
    }

    // MARK: - Bot state

    public func state(_ key: String) async throws -> String? {
        try await guarded { [client, logger] in
            try await client.query("SELECT value FROM bot_state WHERE key = \(key)", logger: logger)
                .decode(String.self).first { _ in true }
        }
    }

    public func setState(_ key: String, _ value: String?) async throws {
        try await guarded { [client, logger] in
            if let value {
                try await client.query(
                    """
                    INSERT INTO bot_state (key, value) VALUES (\(key), \(value))
                    ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
                    """, logger: logger)
            } else {
                try await client.query("DELETE FROM bot_state WHERE key = \(key)", logger: logger)
            }
        }
    }

    // MARK: - Helpers

    private static let alreadyHasPin = ServiceError.rejectedInput("This account already has a pin; update it instead.")

    private static func requireOwner(_ uniqueKey: String, session: DirectorySession?) throws {
        if let session, session.accountKey != uniqueKey {
            throw ServiceError.rejectedInput("A pin can only be saved for your own account.")
        }
    }

    private static func trimmedFields(_ draft: PinDraft) -> (first: String, last: String, place: String) {
        (
            draft.firstName.trimmingCharacters(in: .whitespaces), draft.lastName.trimmingCharacters(in: .whitespaces),
            draft.mapString.trimmingCharacters(in: .whitespaces)
        )
    }

    /// Runs `operation` with the operation timeout and turns every failure into a `ServiceError`.
    @discardableResult
    private func guarded<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await withTimeout(operation)
        } catch let error as CancellationError {
            throw error
        } catch {
            throw Self.serviceError(error)
        }
    }

    private func withTimeout<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let timeout = operationTimeout
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw ServiceError.networkUnreachable("PostgreSQL did not answer within \(timeout).")
            }
            return value
        }
    }

    static func serviceError(_ error: any Error) -> any Error {
        if let error = error as? ServiceError { return error }
        if error is CancellationError { return error }
        if let error = error as? PostgresTransactionError {
            if let inner = error.closureError ?? error.beginError ?? error.commitError { return serviceError(inner) }
            return ServiceError.backendFailure(status: nil, message: "PostgreSQL transaction failed.")
        }
        if let error = error as? PSQLError {
            guard error.code == .server else {
                return ServiceError.networkUnreachable("PostgreSQL connection failed (\(error.code)).")
            }
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "error"
            if state == "23505" { return ServiceError.rejectedInput("That already exists.") }
            // Class 08: connection exception; 57P: operator intervention (shutdown, restart).
            if state.hasPrefix("08") || state.hasPrefix("57P") {
                return ServiceError.networkUnreachable("PostgreSQL \(state): \(message)")
            }
            // The database is there but cannot read or write just now: a lock held elsewhere (55P03),
            // a statement cancelled by a timeout (57014), insufficient resources (class 53: disk full,
            // too many connections), a read-only server (25006), no privilege on a table (42501).
            if ["55P03", "57014", "25006", "42501"].contains(state) || state.hasPrefix("53") {
                return ServiceError.unavailable("PostgreSQL \(state): \(message)")
            }
            return ServiceError.backendFailure(status: nil, message: "PostgreSQL \(state): \(message)")
        }
        return ServiceError.networkUnreachable("PostgreSQL cannot be reached (\(type(of: error))).")
    }
}

/// The notification-listening tasks of one directory, ended together at shutdown.
private actor ListenerTasks {
    private var tasks: [Task<Void, Never>] = []

    func add(_ task: Task<Void, Never>) {
        tasks.removeAll { $0.isCancelled }
        tasks.append(task)
    }

    func cancelAll() async {
        let running = tasks
        tasks = []
        for task in running { task.cancel() }
        for task in running { await task.value }
    }
}
