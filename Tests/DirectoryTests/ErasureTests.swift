import BotTesting
import Foundation
import PostgresNIO
import Testing

@testable import OnTheMapService
@testable import PostgresDirectory

/// Erasing a student in the local and PostgreSQL directories: the account, its sessions and its pin
/// go in one step, every reader of the change feed learns the pin is gone, the tombstone names no
/// account, and on SQLite the erased bytes are nowhere in the file or its write-ahead log.
@Suite struct ErasureTests {
    static let password = "correct horse battery"

    @Test(arguments: DirectoryKind.allCases)
    func erasingAnAccountTakesItsRowSessionsAndPinAndLeavesABareTombstone(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let jane = try await directory.addAccount(
                email: "Jane.Quixmoor@Class.test", password: Self.password, firstName: "Janelle",
                lastName: "Quixmoor")
            let tom = try await directory.addAccount(
                email: "tom@class.test", password: Self.password, firstName: "Tom", lastName: "Roe")
            let first = try await directory.logIn(email: "jane.quixmoor@class.test", password: Self.password)
            fixture.clock.advance(by: 60)
            let second = try await directory.logIn(email: "jane.quixmoor@class.test", password: Self.password)
            // An earlier pin removed with !unpost, then a new one: both leave tombstones or pins.
            _ = try await directory.createLocation(
                asTyped: draft(jane.accountKey, first: "Janelle", last: "Quixmoor", place: "Lyon"), session: first)
            _ = try await directory.removeLocation(ofAccount: jane.accountKey, session: first)
            let pin = try await directory.createLocation(
                asTyped: draft(jane.accountKey, first: "Janelle", last: "Quixmoor", place: "Zanzibar Town"),
                session: first)
            let tomsPin = try await directory.createLocation(asTyped: draft(tom.accountKey, first: "Tom"), session: nil)
            let seen = try #require(try await directory.locationChanges(after: 0, limit: 100)).lastRevision

            let record = try #require(try await directory.accountRecord(.email(" JANE.quixmoor@class.test ")))
            #expect(record.account == jane)
            #expect(record.pin == pin)
            #expect(record.sessions.count == 2)
            #expect(try await directory.accountRecord(.key(jane.accountKey)) == record)
            #expect(try await directory.accountRecord(.email("not an email")) == nil)

            let erased = try await directory.eraseAccount(accountKey: jane.accountKey)
            #expect(erased == record)
            try await directory.flushErasures(pins: [])
            if kind == .sqlite {
                // The checkpoint copied the log into the file and truncated it.
                let log = (try? Data(contentsOf: URL(fileURLWithPath: fixture.sqlitePath + "-wal"))) ?? Data()
                #expect(log.isEmpty)
            }

            #expect(try await directory.accountRecord(.key(jane.accountKey)) == nil)
            #expect(try await directory.accountRecord(.email(jane.email)) == nil)
            #expect(try await directory.location(ofAccount: jane.accountKey) == nil)
            #expect(try await directory.session(id: first.sessionId) == nil)
            #expect(try await directory.session(id: second.sessionId) == nil)
            await expectServiceError(.invalidCredentials) {
                try await directory.logIn(email: jane.email, password: Self.password)
            }
            #expect(try await directory.listAccounts().map(\.email) == ["tom@class.test"])
            #expect(try await directory.location(ofAccount: tom.accountKey) == tomsPin)
            // Another instance reads the removal of the pin from the feed.
            let another = try await fixture.openAnother()
            let page = try #require(try await another.locationChanges(after: seen, limit: 100))
            guard page.changes.count == 1, case .removed(let objectId) = page.changes[0] else {
                Issue.record("expected one removal, got \(page.changes)")
                return
            }
            #expect(objectId == pin.objectId)
            // Nothing is left to erase.
            #expect(try await directory.eraseAccount(accountKey: jane.accountKey) == nil)

            let secrets = ["jane.quixmoor@class.test", "Janelle", "Quixmoor", jane.accountKey]
            switch kind {
            case .sqlite:
                for file in [fixture.sqlitePath, fixture.sqlitePath + "-wal"] {
                    let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
                    for secret in secrets {
                        #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is still in \(file)")
                    }
                }
            case .postgres:
                let postgres = try #require(directory as? PostgresStudentDirectory)
                let counts = try await postgres.client.query(
                    """
                    SELECT (SELECT count(*) FROM accounts WHERE email = \(jane.email) OR account_key = \(jane.accountKey)),
                        (SELECT count(*) FROM sessions WHERE account_key = \(jane.accountKey)),
                        (SELECT count(*) FROM student_locations WHERE unique_key = \(jane.accountKey)
                            OR first_name = 'Janelle'),
                        (SELECT count(*) FROM pin_removals WHERE unique_key <> '')
                    """
                ).decode((Int, Int, Int, Int).self).first { _ in true }
                let (accounts, sessions, pins, namedTombstones) = try #require(counts)
                #expect(accounts == 0 && sessions == 0 && pins == 0 && namedTombstones == 0)
            }
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func pinsNotUpdatedSinceADateLeaveTheMapAndTheirAccountsStay(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let jane = try await directory.addAccount(
                email: "jane@class.test", password: Self.password, firstName: "Jane", lastName: "Doe")
            let old = try await directory.createLocation(asTyped: draft(jane.accountKey, first: "Jane"), session: nil)
            fixture.clock.advance(by: 10 * 24 * 3600)
            let cutoff = fixture.clock.now
            fixture.clock.advance(by: 1)
            let fresh = try await directory.createLocation(asTyped: draft("tom", first: "Tom"), session: nil)
            let seen = try #require(try await directory.locationChanges(after: 0, limit: 100)).lastRevision

            #expect(try await directory.removeLocations(updatedBefore: cutoff) == [old])
            #expect(try await directory.recentLocations(limit: 10, skip: 0) == [fresh])
            #expect(try await directory.accountRecord(.key(jane.accountKey))?.account == jane)
            let page = try #require(try await fixture.openAnother().locationChanges(after: seen, limit: 100))
            guard page.changes.count == 1, case .removed(let objectId) = page.changes[0] else {
                Issue.record("expected one removal, got \(page.changes)")
                return
            }
            #expect(objectId == old.objectId)
            #expect(try await directory.removeLocations(updatedBefore: cutoff).isEmpty)
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func theStateStoreListsItsKeysByPrefix(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let store = fixture.directory
            for key in ["units", "units@irc.example:6697/#a", "unitsx", "sessions", "precision/k1"] {
                try await store.setState(key, "[]")
            }
            #expect(try await store.stateKeys(prefix: "units") == ["units", "units@irc.example:6697/#a", "unitsx"])
            #expect(try await store.stateKeys(prefix: "precision/") == ["precision/k1"])
            #expect(try await store.stateKeys(prefix: "%").isEmpty)
        }
    }
}
