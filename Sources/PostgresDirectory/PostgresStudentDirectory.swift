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
/// race); ``shutdown()`` stops it. Logins, sessions and accounts follow ``AccountPolicy``, as in the
/// SQLite directory (the SQL it needs is ``PostgresStore``'s).
public final class PostgresStudentDirectory: AccountDirectory, TripDirectory, PinChangeNotifying, BotStateStore,
    Sendable
{
    public let backendName = "postgres"
    public var signUpURL: String? { options.signUpURL }
    /// The server, for logs (without the password).
    public let url: PostgresConnectionURL

    /// The channel of pin notifications.
    public static let pinChannel = "onthemap_pins"
    static let migrationLockKey: Int64 = 0x4F6E_5468_654D_6170  // "OnTheMap"
    /// Taken by every transaction that saves or removes a pin, before it draws a revision: the
    /// revisions then become visible in order, so a change-feed reader that saw revision N has
    /// seen every revision below it.
    static let pinWriteLockKey: Int64 = 0x4F6E_5468_6550_696E  // "OnThePin"

    let store: PostgresStore
    let accounts: AccountPolicy<PostgresStore>
    private let runTask: Task<Void, Never>
    let listeners = ListenerTasks()
    let options: LocalDirectoryOptions
    var client: PostgresClient { store.client }
    var logger: Logger { store.logger }

    /// Creates the directory and starts its connection pool, without touching the database.
    /// Most callers want ``connect(url:options:operationTimeout:logger:)``.
    public init(
        url: PostgresConnectionURL, options: LocalDirectoryOptions = LocalDirectoryOptions(),
        operationTimeout: Duration = .seconds(10), logger: Logger = Logger(label: "onthemap.postgres")
    ) {
        self.url = url
        self.options = options
        var configuration = url.clientConfiguration
        configuration.options.connectTimeout = operationTimeout
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        store = PostgresStore(client: client, logger: logger, operationTimeout: operationTimeout)
        accounts = AccountPolicy(storage: store, options: options)
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
        let row = try await store.guarded { [client, logger] in
            try await client.query(
                "SELECT first_name, last_name FROM accounts WHERE account_key = \(accountKey)", logger: logger
            ).decode((String, String).self).first { _ in true }
        }
        guard let (first, last) = row else { throw ServiceError.notFound("No account with this key.") }
        return StudentProfile(accountKey: accountKey, firstName: first, lastName: last)
    }

    // MARK: - Pins

    static let locationColumns = """
        object_id, unique_key, first_name, last_name, map_string, media_url, latitude, longitude,
        created_at, updated_at, trip_map_string, trip_latitude, trip_longitude, trip_ends_at, precision
        """

    typealias LocationRow = (
        String, String, String, String, String, String, Double, Double, Date, Date, String?, Double?, Double?, Date?,
        String?
    )

    static func location(_ row: LocationRow) -> StudentLocation {
        var trip: Trip?
        if let place = row.10, let latitude = row.11, let longitude = row.12, let endsAt = row.13 {
            trip = Trip(
                mapString: place, coordinate: Coordinate(latitude: latitude, longitude: longitude), endsAt: endsAt)
        }
        return StudentLocation(
            objectId: row.0, uniqueKey: row.1, firstName: row.2, lastName: row.3, mapString: row.4,
            mediaURL: row.5, coordinate: Coordinate(latitude: row.6, longitude: row.7), createdAt: row.8,
            updatedAt: row.9, trip: trip, precision: row.14.flatMap(PinPrecision.init(rawValue:)))
    }

    static func locations(_ rows: PostgresRowSequence) async throws -> [StudentLocation] {
        var result: [StudentLocation] = []
        for try await row in rows.decode(LocationRow.self) { result.append(location(row)) }
        return result
    }

    public func recentLocations(limit: Int, skip: Int) async throws -> [StudentLocation] {
        guard limit > 0 else { return [] }
        let limit = min(limit, 10_000)
        let skip = max(0, skip)
        return try await store.guarded { [client, logger] in
            try await Self.locations(
                client.query(
                    """
                    SELECT \(unescaped: Self.locationColumns) FROM student_locations
                    ORDER BY updated_at DESC, revision DESC LIMIT \(limit) OFFSET \(skip)
                    """, logger: logger))
        }
    }

    public func locationChanges(after revision: Int64, limit: Int) async throws -> PinChangePage? {
        let limit = max(1, min(limit, 10_000))
        return try await store.guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                // Both reads see one snapshot.
                try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", logger: logger)
                var saved: [(revision: Int64, pin: StudentLocation)] = []
                // Each pin as it is now, and the versions replaced since `revision` (a pin moved
                // several times between two reads brings each move).
                for try await row in try await connection.query(
                    """
                    SELECT revision, \(unescaped: Self.locationColumns) FROM (
                        SELECT revision, \(unescaped: Self.locationColumns) FROM student_locations
                        WHERE revision > \(revision)
                        UNION ALL
                        SELECT revision, \(unescaped: Self.locationColumns) FROM pin_versions
                        WHERE revision > \(revision)
                    ) AS changed ORDER BY revision LIMIT \(limit)
                    """, logger: logger
                ).decode(
                    (
                        Int64, String, String, String, String, String, String, Double, Double, Date, Date, String?,
                        Double?, Double?, Date?, String?
                    ).self
                ) {
                    let pin = Self.location(
                        (
                            row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8, row.9, row.10, row.11, row.12,
                            row.13, row.14, row.15
                        ))
                    saved.append((row.0, pin))
                }
                var removed: [(revision: Int64, objectId: String)] = []
                for try await (changed, objectId) in try await connection.query(
                    """
                    SELECT revision, object_id FROM pin_removals
                    WHERE revision > \(revision) ORDER BY revision LIMIT \(limit)
                    """, logger: logger
                ).decode((Int64, String).self) {
                    removed.append((changed, objectId))
                }
                return PinChangePage.merging(saved: saved, removed: removed, after: revision, limit: limit)
            }
        }
    }

    /// Serializes the transactions that save or remove pins (see ``pinWriteLockKey``).
    static func lockPinWrites(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(\(Self.pinWriteLockKey))", logger: logger)
    }

    public func location(ofAccount accountKey: String) async throws -> StudentLocation? {
        try await store.guarded { [client, logger] in
            try await Self.locations(
                client.query(
                    "SELECT \(unescaped: Self.locationColumns) FROM student_locations WHERE unique_key = \(accountKey)",
                    logger: logger)
            ).first
        }
    }

    /// The pin with this objectId, or nil (what a `pinChanges()` listener looks up).
    public func location(objectId: String) async throws -> StudentLocation? {
        try await store.guarded { [client, logger] in
            try await Self.locations(
                client.query(
                    "SELECT \(unescaped: Self.locationColumns) FROM student_locations WHERE object_id = \(objectId)",
                    logger: logger)
            ).first
        }
    }

    public func createLocation(_ pin: KeptPin, session: DirectorySession?) async throws -> StudentLocation {
        let draft = pin.draft
        try await accounts.requireMaySave(draft, session: session)
        let now = options.clock()
        let objectId = RandomID.make()
        let fields = Self.trimmedFields(draft)
        do {
            return try await store.guarded { [client, logger] in
                try await client.withTransaction(logger: logger) { connection in
                    try await Self.lockPinWrites(connection, logger: logger)
                    let existing = try await connection.query(
                        "SELECT 1 FROM student_locations WHERE unique_key = \(draft.uniqueKey)", logger: logger
                    ).collect()
                    guard existing.isEmpty else { throw Self.alreadyHasPin }
                    let saved = try await Self.locations(
                        connection.query(
                            """
                            INSERT INTO student_locations (object_id, unique_key, first_name, last_name, map_string,
                                media_url, latitude, longitude, created_at, updated_at, revision,
                                trip_map_string, trip_latitude, trip_longitude, trip_ends_at, precision)
                            VALUES (\(objectId), \(draft.uniqueKey), \(fields.first), \(fields.last), \(fields.place),
                                \(draft.mediaURL), \(draft.coordinate.latitude), \(draft.coordinate.longitude),
                                \(now), \(now), nextval('student_locations_revision'), \(fields.trip?.mapString),
                                \(draft.trip?.coordinate.latitude), \(draft.trip?.coordinate.longitude),
                                \(draft.trip?.endsAt), \(pin.precision.rawValue))
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

    public func updateLocation(objectId: String, with pin: KeptPin, session: DirectorySession?) async throws
        -> StudentLocation
    {
        let draft = pin.draft
        try await accounts.requireMaySave(draft, session: session)
        let now = options.clock()
        let fields = Self.trimmedFields(draft)
        return try await store.guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await Self.lockPinWrites(connection, logger: logger)
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
                            updated_at = GREATEST(\(now), created_at), precision = \(pin.precision.rawValue),
                            revision = nextval('student_locations_revision'),
                            trip_map_string = COALESCE(\(fields.trip?.mapString), trip_map_string),
                            trip_latitude = COALESCE(\(draft.trip?.coordinate.latitude), trip_latitude),
                            trip_longitude = COALESCE(\(draft.trip?.coordinate.longitude), trip_longitude),
                            trip_ends_at = COALESCE(\(draft.trip?.endsAt), trip_ends_at)
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
        try await store.guarded { [client, logger] in
            try await client.query("SELECT 1", logger: logger)
        }
    }

    // MARK: - Accounts

    public func addAccount(email: String, password: String, firstName: String, lastName: String) async throws
        -> LocalAccount
    {
        try await accounts.addAccount(email: email, password: password, firstName: firstName, lastName: lastName)
    }

    public func listAccounts() async throws -> [LocalAccount] {
        try await store.guarded { [client, logger] in
            var listed: [LocalAccount] = []
            for try await (key, email, first, last, created) in try await client.query(
                "SELECT account_key, email, first_name, last_name, created_at FROM accounts ORDER BY email",
                logger: logger
            ).decode((String, String, String, String, Date).self) {
                listed.append(
                    LocalAccount(accountKey: key, email: email, firstName: first, lastName: last, createdAt: created))
            }
            return listed
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
        try await store.guarded { [client, logger] in
            try await client.query("SELECT value FROM bot_state WHERE key = \(key)", logger: logger)
                .decode(String.self).first { _ in true }
        }
    }

    public func setState(_ key: String, _ value: String?) async throws {
        try await store.guarded { [client, logger] in
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

    public func stateKeys(prefix: String) async throws -> [String] {
        try await store.guarded { [client, logger] in
            var keys: [String] = []
            for try await key in try await client.query(
                "SELECT key FROM bot_state WHERE starts_with(key, \(prefix)) ORDER BY key", logger: logger
            ).decode(String.self) {
                keys.append(key)
            }
            return keys
        }
    }

    public func states(prefix: String) async throws -> [String: String] {
        try await store.guarded { [client, logger] in
            var values: [String: String] = [:]
            for try await (key, value) in try await client.query(
                "SELECT key, value FROM bot_state WHERE starts_with(key, \(prefix))", logger: logger
            ).decode((String, String).self) {
                values[key] = value
            }
            return values
        }
    }

    public func takeState(_ key: String) async throws -> String? {
        // DELETE … RETURNING: the row lock makes a second taker find nothing.
        try await store.guarded { [client, logger] in
            try await client.query("DELETE FROM bot_state WHERE key = \(key) RETURNING value", logger: logger)
                .decode(String.self).first { _ in true }
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

    private static let alreadyHasPin = ServiceError.rejectedInput("This account already has a pin; update it instead.")

    /// The names and places of `draft` as stored: trimmed (`trip`: the trip's, nil when it has none).
    static func trimmedFields(_ draft: PinDraft) -> (first: String, last: String, place: String, trip: Trip?) {
        let trip = draft.trip.map {
            Trip(
                mapString: DirectoryInput.trimmedOfSpaces($0.mapString), coordinate: $0.coordinate, endsAt: $0.endsAt)
        }
        return (
            DirectoryInput.trimmedOfSpaces(draft.firstName), DirectoryInput.trimmedOfSpaces(draft.lastName),
            DirectoryInput.trimmedOfSpaces(draft.mapString), trip
        )
    }
}
