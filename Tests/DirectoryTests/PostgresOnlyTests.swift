import BotTesting
import Foundation
import Logging
import OnTheMapService
import PostgresDirectory
import PostgresNIO
import SQLiteDirectory
import Testing

@Suite("PostgreSQL directory")
struct PostgresOnlyTests {
    @Test func anotherInstanceHearsOfSavedPinsAtOnce() async throws {
        try await DirectoryFixture.with(.postgres) { fixture in
            guard let writer = fixture.directory as? PostgresStudentDirectory,
                let listener = try await fixture.openAnother() as? PostgresStudentDirectory
            else {
                Issue.record("expected PostgreSQL directories")
                return
            }
            let changes = try await listener.pinChanges()
            let clock = ContinuousClock()
            let start = clock.now
            let created = try await writer.createLocation(asTyped: draft("listener-test"), session: nil)
            let heard = try await firstValue(of: changes, within: .seconds(5))
            #expect(heard == created.objectId)
            #expect(clock.now - start < .seconds(5), "a notification, not the next poll (minutes)")
            #expect(try await listener.location(objectId: created.objectId) == created)

            let updated = try await writer.updateLocation(
                objectId: created.objectId, asTyped: draft("listener-test", place: "Paris"), session: nil)
            #expect(try await firstValue(of: changes, within: .seconds(5)) == updated.objectId)
            // A rejected save announces nothing.
            _ = try? await writer.createLocation(asTyped: draft("listener-test"), session: nil)
            let other = try await writer.createLocation(asTyped: draft("someone-else"), session: nil)
            #expect(try await firstValue(of: changes, within: .seconds(5)) == other.objectId)
        }
    }

    @Test func shutdownEndsTheChangeStream() async throws {
        try await DirectoryFixture.with(.postgres) { fixture in
            guard let another = try await fixture.openAnother() as? PostgresStudentDirectory else {
                Issue.record("expected a PostgreSQL directory")
                return
            }
            let changes = try await another.pinChanges()
            await another.shutdown()
            var received = 0
            for await _ in changes { received += 1 }
            #expect(received == 0)
        }
    }

    @Test func instancesStartingTogetherMigrateOnce() async throws {
        guard let server = DirectoryFixture.postgresServerURL() else { return }
        try await DirectoryFixture.withTestDatabase(server: server) { url in
            let directories = try await withThrowingTaskGroup(of: PostgresStudentDirectory.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await PostgresStudentDirectory.connect(
                            url: url,
                            options: LocalDirectoryOptions(passwordHasher: DirectoryFixture.cheapHasher),
                            operationTimeout: .seconds(20))
                    }
                }
                return try await group.reduce(into: [PostgresStudentDirectory]()) { $0.append($1) }
            }
            #expect(directories.count == 4)
            _ = try await directories[0].createLocation(asTyped: draft("migrated"), session: nil)
            #expect(try await directories[3].location(ofAccount: "migrated") != nil)
            try await directories[1].migrate()  // again: nothing to do
            for directory in directories { await directory.shutdown() }
        }
    }

    /// A database that refuses writes (SQLSTATE 25006, read-only transactions) is unavailable, the
    /// fault students hear as "busy" and the operator sees with its cause, not a generic failure.
    @Test func aDatabaseThatRefusesWritesIsUnavailable() async throws {
        guard let server = DirectoryFixture.postgresServerURL() else { return }
        try await DirectoryFixture.withTestDatabase(server: server) { url in
            let setup = try await PostgresStudentDirectory.connect(url: url, operationTimeout: .seconds(20))
            await setup.shutdown()
            let name = String(url.split(separator: "/").last?.split(separator: "?").first ?? "")
            let admin = PostgresClient(configuration: server.clientConfiguration)
            let adminTask = Task { await admin.run() }
            try await admin.query("ALTER DATABASE \(unescaped: name) SET default_transaction_read_only = on")
            adminTask.cancel()

            var directory: PostgresStudentDirectory?
            do {
                directory = try await PostgresStudentDirectory.connect(url: url, operationTimeout: .seconds(20))
                _ = try await directory?.addAccount(
                    email: "ada@example.com", password: "analytical engine", firstName: "Ada", lastName: "Lovelace")
                Issue.record("a read-only database accepted an account")
            } catch ServiceError.unavailable(let cause) {
                #expect(cause.contains("25006"), "\(cause)")
            }
            await directory?.shutdown()
        }
    }

    /// PostgresNIO cannot take back a query it has sent: one that waits on the server (here for a
    /// table lock another session holds in an open transaction) still gets its caller an answer
    /// within the directory's operation timeout, and the directory works again once the lock is gone.
    @Test(.timeLimit(.minutes(1))) func anOperationWaitingOnTheServerAnswersWithinItsTimeout() async throws {
        guard let server = DirectoryFixture.postgresServerURL() else { return }
        try await DirectoryFixture.withTestDatabase(server: server) { url in
            let directory = try await PostgresStudentDirectory.connect(
                url: url, options: LocalDirectoryOptions(passwordHasher: DirectoryFixture.cheapHasher),
                operationTimeout: .seconds(1))
            _ = try await directory.addAccount(
                email: "ada@example.com", password: "analytical engine", firstName: "Ada", lastName: "Lovelace")
            let holder = PostgresClient(configuration: try PostgresConnectionURL(url).clientConfiguration)
            let holderRun = Task { await holder.run() }
            let (held, nowHeld) = AsyncStream.makeStream(of: Void.self)
            let (release, releaseNow) = AsyncStream.makeStream(of: Void.self)
            let holding = Task {
                try await holder.withTransaction(logger: Logger(label: "lock-holder")) { connection in
                    try await connection.query(
                        "LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE", logger: Logger(label: "lock-holder"))
                    nowHeld.yield()
                    for await _ in release { break }
                }
            }
            for await _ in held { break }

            let started = ContinuousClock.now
            do {
                _ = try await directory.logIn(email: "ada@example.com", password: "analytical engine")
                Issue.record("logged in through a locked table")
            } catch ServiceError.networkUnreachable(let message) {
                #expect(message.contains("did not answer"), "\(message)")
            }
            #expect(ContinuousClock.now - started < .seconds(5), "answered after \(ContinuousClock.now - started)")

            releaseNow.finish()
            try await holding.value
            holderRun.cancel()
            let session = try await directory.logIn(email: "ada@example.com", password: "analytical engine")
            #expect(!session.sessionId.isEmpty)
            await directory.shutdown()
        }
    }

    @Test func unreachableServerIsANetworkFailure() async throws {
        // Nothing listens on port 1.
        do {
            _ = try await PostgresStudentDirectory.connect(
                url: "postgres://onthemap:topsecret@127.0.0.1:1/onthemap?sslmode=disable",
                operationTimeout: .seconds(5))
            Issue.record("connected to nothing")
        } catch ServiceError.networkUnreachable(let message) {
            #expect(!message.contains("topsecret"))
        }
    }

    @Test func connectionURLsAreParsedAndNeverShowThePassword() throws {
        let url = try PostgresConnectionURL("postgres://bot:p%40ss@db.example.org:6543/classmap?sslmode=require")
        #expect(url.host == "db.example.org")
        #expect(url.port == 6543)
        #expect(url.username == "bot")
        #expect(url.password == "p@ss")
        #expect(url.database == "classmap")
        #expect(url.tls == .require)
        #expect(!url.description.contains("p@ss") && !url.description.contains("p%40ss"))
        #expect(url.description == "postgres://bot:***@db.example.org:6543/classmap?sslmode=require")

        let plain = try PostgresConnectionURL("postgresql://onthemap@127.0.0.1/postgres")
        #expect(plain.port == 5432)
        #expect(plain.password == nil)
        #expect(plain.tls == .prefer)
        #expect(plain.with(database: "other").database == "other")

        for bad in ["", "mysql://a@b/c", "postgres://host-without-user/db", "postgres://u@h/d?sslmode=maybe"] {
            #expect(throws: ServiceError.self) { try PostgresConnectionURL(bad) }
        }
    }

    @Test func onlyPostgresNotifiesChanges() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("otm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite: any StudentDirectory = try SQLiteStudentDirectory(
            path: folder.appendingPathComponent("d.sqlite").path)
        #expect(!(sqlite is any PinChangeNotifying))
        #expect(sqlite is any BotStateStore)
    }
}

/// The first element of `stream` within `timeout`, or an error.
func firstValue(of stream: AsyncStream<String>, within timeout: Duration) async throws -> String {
    try await withThrowingTaskGroup(of: String?.self) { group in
        group.addTask {
            for await value in stream { return value }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw ServiceError.networkUnreachable("no notification within \(timeout)")
        }
        return value
    }
}
