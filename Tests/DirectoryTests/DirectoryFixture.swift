import Foundation
import PostgresDirectory
import PostgresNIO
import SQLiteDirectory
import Testing

@testable import OnTheMapService

/// The backends every behaviour test runs against.
enum DirectoryKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

typealias LocalDirectory = AccountDirectory & TripDirectory & BotStateStore & AccountEventFeed

/// A clock the tests move by hand (to expire sessions, to order pins).
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = start }

    var now: Date { lock.withLock { current } }

    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}

/// One test's own storage (a temporary SQLite file, or a fresh PostgreSQL database) and the
/// directories opened on it; everything is closed and removed after the test.
final class DirectoryFixture: @unchecked Sendable {
    let kind: DirectoryKind
    let clock: TestClock
    let options: LocalDirectoryOptions
    /// The first directory opened on the storage.
    private(set) var directory: any LocalDirectory
    private let lock = NSLock()
    private var opened: [any LocalDirectory] = []
    /// The SQLite file (for the sqlite kind).
    let sqlitePath: String
    private let postgresURL: String?

    /// A hasher of 1,000 rounds, so that tests can make many accounts quickly.
    static let cheapHasher = PasswordHasher(uncheckedRounds: 1_000)

    private init(
        kind: DirectoryKind, sqlitePath: String, postgresURL: String?, clock: TestClock,
        options: LocalDirectoryOptions, first: any LocalDirectory
    ) {
        self.kind = kind
        self.sqlitePath = sqlitePath
        self.postgresURL = postgresURL
        self.clock = clock
        self.options = options
        self.directory = first
        self.opened = [first]
    }

    /// Another directory on the same storage (another bot instance).
    func openAnother() async throws -> any LocalDirectory {
        let another = try await Self.open(kind, sqlitePath: sqlitePath, postgresURL: postgresURL, options: options)
        lock.withLock { opened.append(another) }
        return another
    }

    private static func open(
        _ kind: DirectoryKind, sqlitePath: String, postgresURL: String?, options: LocalDirectoryOptions
    ) async throws -> any LocalDirectory {
        switch kind {
        case .sqlite:
            return try SQLiteStudentDirectory(path: sqlitePath, options: options)
        case .postgres:
            return try await PostgresStudentDirectory.connect(
                url: postgresURL ?? "", options: options, operationTimeout: .seconds(20))
        }
    }

    private func closeAll() async {
        let all = lock.withLock { opened }
        for directory in all {
            if let postgres = directory as? PostgresStudentDirectory { await postgres.shutdown() }
            if let sqlite = directory as? SQLiteStudentDirectory { try? sqlite.close() }
        }
    }

    /// The PostgreSQL server for tests, or nil when the PostgreSQL cases are explicitly skipped.
    /// Records a failure when the server is not configured and skipping was not asked for.
    static func postgresServerURL() -> PostgresConnectionURL? {
        let environment = ProcessInfo.processInfo.environment
        guard let text = environment["ONTHEMAP_TEST_POSTGRES_URL"], !text.isEmpty else {
            if environment["ONTHEMAP_SKIP_POSTGRES"] != "1" {
                Issue.record(
                    """
                    ONTHEMAP_TEST_POSTGRES_URL is not set, so the PostgreSQL cases cannot run. Run \
                    `scripts/with-postgres.sh swift test --filter DirectoryTests`, or set \
                    ONTHEMAP_SKIP_POSTGRES=1 to skip them on purpose.
                    """)
            }
            return nil
        }
        do {
            return try PostgresConnectionURL(text)
        } catch {
            Issue.record("ONTHEMAP_TEST_POSTGRES_URL is not a valid postgres:// URL: \(error)")
            return nil
        }
    }

    /// Runs `body` with a fresh fixture of `kind`; cleans up whatever happens.
    static func with(
        _ kind: DirectoryKind, hasher: PasswordHasher = cheapHasher, sessionLifetime: TimeInterval = 30 * 24 * 3600,
        _ body: (DirectoryFixture) async throws -> Void
    ) async throws {
        let clock = TestClock()
        let options = LocalDirectoryOptions(
            sessionLifetime: sessionLifetime, signUpURL: nil, passwordHasher: hasher, clock: { clock.now })
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("onthemap-directory-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlitePath = folder.appendingPathComponent("directory.sqlite").path

        switch kind {
        case .sqlite:
            let first = try await open(.sqlite, sqlitePath: sqlitePath, postgresURL: nil, options: options)
            let fixture = DirectoryFixture(
                kind: kind, sqlitePath: sqlitePath, postgresURL: nil, clock: clock, options: options, first: first)
            do {
                try await body(fixture)
            } catch {
                await fixture.closeAll()
                throw error
            }
            await fixture.closeAll()
        case .postgres:
            guard let server = postgresServerURL() else { return }
            try await withTestDatabase(server: server) { databaseURL in
                let first = try await open(
                    .postgres, sqlitePath: sqlitePath, postgresURL: databaseURL, options: options)
                let fixture = DirectoryFixture(
                    kind: kind, sqlitePath: sqlitePath, postgresURL: databaseURL, clock: clock, options: options,
                    first: first)
                do {
                    try await body(fixture)
                } catch {
                    await fixture.closeAll()
                    throw error
                }
                await fixture.closeAll()
            }
        }
    }

    /// Creates a uniquely named database on the server, runs `body` with its URL, drops it.
    static func withTestDatabase(
        server: PostgresConnectionURL, _ body: (String) async throws -> Void
    ) async throws {
        let name = "onthemap_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = PostgresClient(configuration: server.clientConfiguration)
        let adminTask = Task { await admin.run() }
        defer { adminTask.cancel() }
        try await admin.query("CREATE DATABASE \(unescaped: name)")
        let databaseURL = server.with(database: name)
        var text = "postgres://\(databaseURL.username)"
        if let password = databaseURL.password { text += ":\(password)" }
        text += "@\(databaseURL.host):\(databaseURL.port)/\(name)?sslmode=\(databaseURL.tls.rawValue)"
        do {
            try await body(text)
        } catch {
            _ = try? await admin.query("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)")
            throw error
        }
        try await admin.query("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)")
    }
}

/// Asserts that `operation` throws exactly `expected`.
func expectServiceError<T>(
    _ expected: ServiceError, sourceLocation: SourceLocation = #_sourceLocation, _ operation: () async throws -> T
) async {
    do {
        _ = try await operation()
        Issue.record("expected \(expected), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as ServiceError {
        #expect(error == expected, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
    }
}

/// Asserts that `operation` throws `.rejectedInput` (whatever the reason) and returns the reason.
@discardableResult
func expectRejected<T>(
    sourceLocation: SourceLocation = #_sourceLocation, _ operation: () async throws -> T
) async -> String? {
    do {
        _ = try await operation()
        Issue.record("expected rejectedInput, but nothing was thrown", sourceLocation: sourceLocation)
    } catch ServiceError.rejectedInput(let reason) {
        return reason
    } catch {
        Issue.record("expected rejectedInput, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

func draft(
    _ key: String, first: String = "Ada", last: String = "Lovelace", place: String = "London, UK",
    link: String = "https://example.com/ada", latitude: Double = 51.5074, longitude: Double = -0.1278
) -> PinDraft {
    PinDraft(
        uniqueKey: key, firstName: first, lastName: last, mapString: place, mediaURL: link,
        coordinate: Coordinate(latitude: latitude, longitude: longitude))
}
