import BotTesting
import Foundation
import PostgresDirectory
import Testing

@testable import OnTheMapService

/// Taking a pin off the map in the local and PostgreSQL directories: it leaves every read, the
/// change feed carries its removal to every reader, and a student's session may remove only
/// its own account's pin.
@Suite struct PinRemovalTests {
    @Test(arguments: DirectoryKind.allCases)
    func anOperatorRemovalLeavesEveryReadAndReachesTheFeed(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let kept = try await directory.createLocation(asTyped: draft("kept"), session: nil)
            let doomed = try await directory.createLocation(asTyped: draft("doomed", place: "Paris"), session: nil)
            let before = try #require(try await directory.locationChanges(after: 0, limit: 100))

            let removed = try await directory.removeLocation(objectId: doomed.objectId)
            #expect(removed == doomed)
            #expect(try await directory.location(ofAccount: "doomed") == nil)
            #expect(try await directory.recentLocations(limit: 100, skip: 0).map(\.objectId) == [kept.objectId])
            // Another instance reads the removal from the feed after what it had seen.
            let another = try await fixture.openAnother()
            let page = try #require(try await another.locationChanges(after: before.lastRevision, limit: 100))
            guard case .removed(let objectId) = try #require(page.changes.first), page.changes.count == 1 else {
                Issue.record("expected one removal, got \(page.changes)")
                return
            }
            #expect(objectId == doomed.objectId)
            // Removing it again finds nothing and changes nothing.
            #expect(try await directory.removeLocation(objectId: doomed.objectId) == nil)
            #expect(try await directory.removeLocation(ofAccount: "nobody", session: nil) == nil)
            let after = try #require(try await another.locationChanges(after: page.lastRevision, limit: 100))
            #expect(after.changes.isEmpty)
            // The account may post again: a new pin, a new objectId.
            let again = try await directory.createLocation(asTyped: draft("doomed", place: "Lyon"), session: nil)
            #expect(again.objectId != doomed.objectId)
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func aStudentRemovesOnlyTheirOwnPinWithALiveSession(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let jane = try await directory.addAccount(
                email: "jane@class.test", password: "correct horse battery", firstName: "Jane", lastName: "Doe")
            let tom = try await directory.addAccount(
                email: "tom@class.test", password: "correct horse battery", firstName: "Tom", lastName: "Roe")
            let janeSession = try await directory.logIn(email: "jane@class.test", password: "correct horse battery")
            let tomSession = try await directory.logIn(email: "tom@class.test", password: "correct horse battery")
            _ = try await directory.createLocation(asTyped: draft(jane.accountKey, first: "Jane"), session: janeSession)
            let tomsPin = try await directory.createLocation(
                asTyped: draft(tom.accountKey, first: "Tom"), session: tomSession)

            _ = await expectRejected {
                try await directory.removeLocation(ofAccount: tom.accountKey, session: janeSession)
            }
            #expect(try await directory.location(ofAccount: tom.accountKey) == tomsPin)

            let removed = try await directory.removeLocation(ofAccount: jane.accountKey, session: janeSession)
            #expect(removed?.uniqueKey == jane.accountKey)
            #expect(try await directory.location(ofAccount: jane.accountKey) == nil)

            try await directory.logOut(tomSession)
            await expectServiceError(.sessionExpired) {
                try await directory.removeLocation(ofAccount: tom.accountKey, session: tomSession)
            }
            #expect(try await directory.location(ofAccount: tom.accountKey) == tomsPin)
        }
    }

    @Test func anotherPostgresInstanceHearsOfARemovalAtOnce() async throws {
        try await DirectoryFixture.with(.postgres) { fixture in
            guard let listener = try await fixture.openAnother() as? PostgresStudentDirectory else {
                Issue.record("expected a PostgreSQL directory")
                return
            }
            let pin = try await fixture.directory.createLocation(asTyped: draft("leaving"), session: nil)
            let changes = try await listener.pinChanges()
            _ = try await fixture.directory.removeLocation(objectId: pin.objectId)
            #expect(try await firstValue(of: changes, within: .seconds(5)) == pin.objectId)
            #expect(try await listener.location(objectId: pin.objectId) == nil)
        }
    }
}

/// An operator's import in the local and PostgreSQL directories: one transaction that creates
/// pins for new accounts and updates the pins of known ones, and saves nothing when a record is bad.
@Suite struct PinImportTests {
    @Test(arguments: DirectoryKind.allCases)
    func createsAndUpdatesByUniqueKeyInOneTransaction(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let existing = try await directory.createLocation(asTyped: draft("known", place: "Oslo"), session: nil)
            let old = Date(timeIntervalSince1970: 1_600_000_000)
            let records = [
                await KeptAsTyped.record(draft("known", place: "Bergen"), updatedAt: old.addingTimeInterval(60)),
                await KeptAsTyped.record(draft("new-1", first: "Grace"), createdAt: old, updatedAt: old),
                await KeptAsTyped.record(draft("new-2", first: "Alan")),
            ]
            let outcome = try await directory.importLocations(records)
            #expect(outcome == PinImportOutcome(created: 2, updated: 1))
            let moved = try #require(try await directory.location(ofAccount: "known"))
            #expect(moved.objectId == existing.objectId && moved.mapString == "Bergen")
            let grace = try #require(try await directory.location(ofAccount: "new-1"))
            #expect(grace.createdAt == old && grace.updatedAt == old)
            #expect(try await directory.location(ofAccount: "new-2")?.updatedAt == fixture.clock.now)

            // One bad record: nothing of the batch is saved.
            let revision = try #require(try await directory.locationChanges(after: 0, limit: 100)).lastRevision
            var bad = draft("new-3")
            bad.mapString = "Nowhere\u{7}"
            let refused = await expectRejected {
                try await directory.importLocations([
                    await KeptAsTyped.record(draft("known", place: "Tromsø")), await KeptAsTyped.record(bad),
                ])
            }
            #expect(refused?.hasPrefix("Record 2: ") == true, "\(refused ?? "")")
            #expect(try await directory.location(ofAccount: "known")?.mapString == "Bergen")
            #expect(try await directory.location(ofAccount: "new-3") == nil)
            let after = try #require(try await directory.locationChanges(after: revision, limit: 100))
            #expect(after.changes.isEmpty)
        }
    }
}
