import Foundation
import Testing

@testable import OnTheMapService

/// The account events of the local and PostgreSQL directories, which running bots act on in their
/// memory: an erasure and an unlink each leave one event in their own step, read by another
/// instance on the same storage after the revision it last saw; the event names the account by a
/// digest of its key, so an erased student's key, email and name stay out of it.
@Suite struct AccountEventFeedTests {
    static let password = "correct horse battery"

    @Test(arguments: DirectoryKind.allCases)
    func anErasureAndAnUnlinkReachAnotherInstanceNamedByDigest(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let jane = try await directory.addAccount(
                email: "jane.quixmoor@class.test", password: Self.password, firstName: "Janelle",
                lastName: "Quixmoor")
            let tom = try await directory.addAccount(
                email: "tom@class.test", password: Self.password, firstName: "Tom", lastName: "Roe")
            try await directory.linkServicesAccount(
                accountKey: tom.accountKey, network: "libera", servicesAccount: "TomR", foldedAccount: "tomr")
            let another = try await fixture.openAnother()
            let start = try await another.latestAccountEventRevision()
            #expect(try await another.accountEvents(after: start, limit: 10).isEmpty)

            #expect(try await directory.unlinkServicesAccount(accountKey: tom.accountKey, network: "libera") != nil)
            // Nothing removed, nothing to tell.
            #expect(try await directory.unlinkServicesAccount(accountKey: tom.accountKey, network: "libera") == nil)
            #expect(try await directory.eraseAccount(accountKey: jane.accountKey) != nil)
            #expect(try await directory.eraseAccount(accountKey: jane.accountKey) == nil)

            let events = try await another.accountEvents(after: start, limit: 10)
            #expect(events.map(\.kind) == [.unlinked, .erased])
            guard events.count == 2 else { return }
            #expect(events[0].accountDigest == AccountEvent.digest(accountKey: tom.accountKey))
            #expect(events[0].network == "libera")
            #expect(events[0].foldedAccount == "tomr")
            #expect(events[1].accountDigest == AccountEvent.digest(accountKey: jane.accountKey))
            #expect(events[1].network.isEmpty && events[1].foldedAccount.isEmpty)
            #expect(start < events[0].revision && events[0].revision < events[1].revision)
            #expect(abs(events[1].at.timeIntervalSinceNow) < 600)
            // A reader resumes after what it saw, a page at a time.
            #expect(try await another.accountEvents(after: events[0].revision, limit: 10).map(\.kind) == [.erased])
            #expect(try await another.accountEvents(after: start, limit: 1).map(\.kind) == [.unlinked])
            #expect(try await another.latestAccountEventRevision() == events[1].revision)
            #expect(try await directory.latestAccountEventRevision() == events[1].revision)

            if kind == .sqlite {
                try await directory.flushErasures(pins: [])
                for file in [fixture.sqlitePath, fixture.sqlitePath + "-wal"] {
                    let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
                    for secret in ["jane.quixmoor@class.test", "Janelle", "Quixmoor", jane.accountKey] {
                        #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is still in \(file)")
                    }
                }
            }
        }
    }
}
