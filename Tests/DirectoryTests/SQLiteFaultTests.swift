import BotTesting
import Foundation
import OnTheMapService
import SQLiteDirectory
import Testing

/// The SQLite directory when its file is locked by another process, and the permissions of its files.
@Suite(.serialized) struct SQLiteFaultTests {
    static let options = LocalDirectoryOptions(passwordHasher: DirectoryFixture.cheapHasher)

    static func withFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("onthemap-sqlite-faults-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder)
    }

    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// A `sqlite3` process holding `BEGIN EXCLUSIVE` on `path` until it is given `ROLLBACK`.
    static func holdExclusiveLock(_ path: String, folder: URL) async throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path]
        let input = Pipe()
        process.standardInput = input
        let output = try ProcessOutput(logPath: folder.appendingPathComponent("sqlite3.out").path)
        try output.attach(to: process)
        try process.run()
        output.processStarted()
        input.fileHandleForWriting.write(Data("BEGIN EXCLUSIVE;\nSELECT 'lock-held';\n".utf8))
        // Held once sqlite3 prints the line after BEGIN.
        #expect(await output.lines.wait(timeout: .seconds(30)) { $0.contains("lock-held") })
        return (process, input)
    }

    @Test func aLockHeldByAnotherProcessFailsAsUnavailableWithinTheBusyTimeout() async throws {
        try await Self.withFolder { folder in
            let path = folder.appendingPathComponent("class.sqlite").path
            let directory = try SQLiteStudentDirectory(path: path, options: Self.options)
            _ = try await directory.addAccount(
                email: "ada@example.com", password: "analytical engine", firstName: "Ada", lastName: "Lovelace")
            let (lock, input) = try await Self.holdExclusiveLock(path, folder: folder)

            let started = ContinuousClock.now
            do {
                _ = try await directory.logIn(email: "ada@example.com", password: "analytical engine")
                Issue.record("a login wrote its session through another process's exclusive lock")
            } catch let error as ServiceError {
                guard case .unavailable(let cause) = error else {
                    Issue.record("expected .unavailable, got \(error)")
                    return
                }
                #expect(cause.contains("database is locked"), "\(cause)")
            }
            let waited = ContinuousClock.now - started
            // It waited for the lock, then gave up rather than hanging while the lock is held (which
            // it is for the whole test). The upper bound only tells giving up from hanging: amid the
            // parallel pass on two cores the login's password check and the busy handler's sleeps
            // run several times late, so it is no figure of how long a refusal takes.
            #expect(waited >= .seconds(SQLiteStudentDirectory.busyTimeout) - .milliseconds(100))
            #expect(waited < .seconds(SQLiteStudentDirectory.busyTimeout * 15))
            await #expect(throws: ServiceError.self) { try await directory.checkHealth() }
            // Reads go on in WAL mode: only writing waits for the lock.
            #expect(try await directory.listAccounts().count == 1)

            input.fileHandleForWriting.write(Data("ROLLBACK;\n.quit\n".utf8))
            lock.waitUntilExit()
            try await directory.checkHealth()
            _ = try await directory.logIn(email: "ada@example.com", password: "analytical engine")
            try directory.close()
        }
    }

    @Test func theDatabaseAndItsWALFilesAreTheOwnersOnly() async throws {
        try await Self.withFolder { folder in
            let path = folder.appendingPathComponent("class.sqlite").path
            let directory = try SQLiteStudentDirectory(path: path, options: Self.options)
            #expect(directory.narrowedFiles.isEmpty)
            _ = try await directory.addAccount(
                email: "ada@example.com", password: "analytical engine", firstName: "Ada", lastName: "Lovelace")
            for file in [path, path + "-wal", path + "-shm"] {
                #expect(FileManager.default.fileExists(atPath: file), "\(file)")
                #expect(try Self.mode(file) == 0o600, "\(file)")
            }
            try directory.close()
        }
    }

    @Test func anExistingDatabaseOthersCouldReadIsNarrowedToTheOwner() async throws {
        try await Self.withFolder { folder in
            let path = folder.appendingPathComponent("class.sqlite").path
            let first = try SQLiteStudentDirectory(path: path, options: Self.options)
            _ = try await first.addAccount(
                email: "ada@example.com", password: "analytical engine", firstName: "Ada", lastName: "Lovelace")
            try first.close()
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)

            let reopened = try SQLiteStudentDirectory(path: path, options: Self.options)
            #expect(reopened.narrowedFiles == [path])
            #expect(try Self.mode(path) == 0o600)
            #expect(try await reopened.listAccounts().map(\.email) == ["ada@example.com"])
            try reopened.close()
        }
    }
}
