import BotTesting
import Foundation
import Testing

@testable import OnTheMapService

/// The change feed of the local and PostgreSQL directories: every save and removal once, in the
/// order it happened, in pages, and nothing again after the last revision read.
@Suite struct ChangeFeedTests {
    /// Saves pins for `count` new accounts; returns each account's key and session.
    static func post(_ directory: any LocalDirectory, count: Int, from start: Int = 0) async throws
        -> [(key: String, session: DirectorySession)]
    {
        var posted: [(String, DirectorySession)] = []
        for number in start..<(start + count) {
            let email = "s\(number)@class.test"
            let account = try await directory.addAccount(
                email: email, password: "correct horse battery", firstName: "S\(number)", lastName: "Feed")
            let session = try await directory.logIn(email: email, password: "correct horse battery")
            _ = try await directory.createLocation(
                asTyped: draft(
                    account.accountKey, first: "S\(number)", last: "Feed", link: "https://example.com/\(number)"),
                session: session)
            posted.append((account.accountKey, session))
        }
        return posted
    }

    /// Reads the whole feed after `revision` in pages of `limit`; returns the changes as text
    /// ("saved S3", "removed <objectId>") and the last revision.
    static func readAll(_ directory: any LocalDirectory, after revision: Int64, limit: Int) async throws
        -> (changes: [String], last: Int64, pages: Int)
    {
        var changes: [String] = []
        var position = revision
        var pages = 0
        while true {
            let page = try #require(try await directory.locationChanges(after: position, limit: limit))
            pages += 1
            for change in page.changes {
                switch change {
                case .saved(let pin): changes.append("saved \(pin.firstName) \(pin.mapString)")
                case .removed(let objectId): changes.append("removed \(objectId)")
                }
            }
            #expect(page.lastRevision >= position)
            position = page.lastRevision
            if page.isComplete { return (changes, position, pages) }
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func savesMovesAndRemovalsArriveOnceInOrder(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let posted = try await Self.post(directory, count: 7)
            let first = try await Self.readAll(directory, after: 0, limit: 3)
            #expect(first.changes == (0..<7).map { "saved S\($0) London, UK" })
            #expect(first.pages == 3)

            // Nothing new: an empty, complete page at the same revision.
            let idle = try #require(try await directory.locationChanges(after: first.last, limit: 3))
            #expect(idle.changes.isEmpty && idle.isComplete && idle.lastRevision == first.last)

            // A move through another instance, then an account (and its pin) removed.
            let another = try await fixture.openAnother()
            let moved = try #require(try await another.location(ofAccount: posted[2].key))
            _ = try await another.updateLocation(
                objectId: moved.objectId,
                asTyped: draft(posted[2].key, first: "S2", last: "Feed", place: "Paris, France"),
                session: posted[2].session)
            let removed = try #require(try await directory.location(ofAccount: posted[4].key))
            try await directory.removeAccount(email: "s4@class.test")
            _ = try await Self.post(directory, count: 1, from: 7)

            let next = try await Self.readAll(directory, after: first.last, limit: 2)
            #expect(next.changes == ["saved S2 Paris, France", "removed \(removed.objectId)", "saved S7 London, UK"])
            // From the start, the removed pin is gone and the moved one is where it is now.
            let whole = try await Self.readAll(directory, after: 0, limit: 100)
            #expect(!whole.changes.contains("saved S4 London, UK"))
            #expect(whole.changes.filter { $0.hasPrefix("saved S2 ") } == ["saved S2 Paris, France"])
        }
    }
}
