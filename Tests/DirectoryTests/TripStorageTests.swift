import BotTesting
import Foundation
import GRDB
import PostgresNIO
import Testing

@testable import OnTheMapService
@testable import PostgresDirectory
@testable import SQLiteDirectory

/// Trips in the local and PostgreSQL directories: a trip is stored on its pin, saved like a pin
/// (a change-feed revision every reader gets), kept when the home pin is saved again, ended at
/// once on request, refused with a sentence when it is not valid, and erased with the pin.
@Suite struct TripStorageTests {
    static let password = "correct horse battery"
    static let lisbon = Coordinate(latitude: 38.72, longitude: -9.14)

    /// Makes an account with a pin; returns its key and a session.
    static func student(
        _ directory: any LocalDirectory, _ name: String, place: String = "London, UK"
    ) async throws -> (key: String, session: DirectorySession, pin: StudentLocation) {
        let email = "\(name.lowercased())@class.test"
        let account = try await directory.addAccount(
            email: email, password: password, firstName: name, lastName: "Traveller")
        let session = try await directory.logIn(email: email, password: password)
        let pin = try await directory.createLocation(
            asTyped: draft(account.accountKey, first: name, last: "Traveller", place: place), session: session)
        return (account.accountKey, session, pin)
    }

    /// The one change of a feed page, which must be a saved pin.
    static func onlySavedPin(_ page: PinChangePage?, sourceLocation: SourceLocation = #_sourceLocation)
        -> StudentLocation?
    {
        guard let page, page.changes.count == 1, case .saved(let pin) = page.changes[0] else {
            Issue.record(
                "expected one saved pin, got \(String(describing: page?.changes))", sourceLocation: sourceLocation)
            return nil
        }
        return pin
    }

    @Test(arguments: DirectoryKind.allCases)
    func aTripIsStoredShownUntilItsEndAndReachesEveryReader(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let jane = try await Self.student(directory, "Jane")
            let seen = try #require(try await directory.locationChanges(after: 0, limit: 100)).lastRevision
            fixture.clock.advance(by: 60)
            let endsAt = fixture.clock.now.addingTimeInterval(2 * 86_400)

            let saved = try await directory.setTrip(
                asTyped: Trip(mapString: " Lisbon, Portugal ", coordinate: Self.lisbon, endsAt: endsAt),
                ofAccount: jane.key, session: jane.session)
            let trip = Trip(mapString: "Lisbon, Portugal", coordinate: Self.lisbon, endsAt: endsAt)
            #expect(saved.trip == trip)
            #expect(saved.objectId == jane.pin.objectId)
            #expect(saved.mapString == jane.pin.mapString && saved.coordinate == jane.pin.coordinate)
            #expect(saved.updatedAt == fixture.clock.now)
            #expect(try await directory.location(ofAccount: jane.key) == saved)

            // Another instance (a restart) reads it from the store and from the change feed.
            let another = try await fixture.openAnother()
            #expect(try await another.location(ofAccount: jane.key) == saved)
            let fed = Self.onlySavedPin(try await another.locationChanges(after: seen, limit: 100))
            #expect(fed == saved)
            #expect(fed?.shown(at: fixture.clock.now).mapString == "Lisbon, Portugal")
            #expect(fed?.shown(at: endsAt).mapString == jane.pin.mapString)

            // Saving the home pin again (a move, an import that re-stores it) keeps the trip.
            let moved = try await directory.updateLocation(
                objectId: saved.objectId, asTyped: draft(jane.key, first: "Jane", last: "Traveller", place: "Paris"),
                session: jane.session)
            #expect(moved.mapString == "Paris" && moved.trip == trip)
            _ = try await directory.importLocations([await KeptAsTyped.record(moved.draft)])
            #expect(try await directory.location(ofAccount: jane.key)?.trip == trip)

            // A new trip replaces it, also through a pin save that carries one.
            let porto = Trip(
                mapString: "Porto", coordinate: Coordinate(latitude: 41.15, longitude: -8.61),
                endsAt: endsAt.addingTimeInterval(86_400))
            #expect(try await directory.setTrip(asTyped: porto, ofAccount: jane.key, session: nil).trip == porto)
            var withTrip = moved.draft
            withTrip.trip = trip
            #expect(
                try await directory.updateLocation(objectId: saved.objectId, asTyped: withTrip, session: nil).trip
                    == trip)
            #expect(try await directory.accountRecord(.key(jane.key))?.pin?.trip == trip)
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func endingATripBringsTheHomePinBackForEveryReaderAndKeepsNoCopy(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let jane = try await Self.student(directory, "Jane")
            let trip = Trip(
                mapString: "Qorvenhavn", coordinate: Self.lisbon, endsAt: fixture.clock.now.addingTimeInterval(3600))
            let withTrip = try await directory.setTrip(asTyped: trip, ofAccount: jane.key, session: jane.session)
            let seen = try #require(try await directory.locationChanges(after: 0, limit: 100)).lastRevision
            fixture.clock.advance(by: 60)

            #expect(try await directory.endTrip(ofAccount: jane.key, session: jane.session) == trip)
            var home = withTrip
            home.trip = nil
            // Ending is not a move: the update time stays.
            #expect(try await directory.location(ofAccount: jane.key) == home)
            let another = try await fixture.openAnother()
            #expect(Self.onlySavedPin(try await another.locationChanges(after: seen, limit: 100)) == home)
            let ended = try #require(try await directory.locationChanges(after: seen, limit: 100)).lastRevision
            // Nothing left to end: nil, and no change.
            #expect(try await directory.endTrip(ofAccount: jane.key, session: jane.session) == nil)
            #expect(try await directory.endTrip(ofAccount: "nobody", session: nil) == nil)
            #expect(try await directory.locationChanges(after: ended, limit: 100)?.changes.isEmpty == true)

            // A trip that has lapsed stays on the pin until it is ended, which takes it away.
            let lapsing = try await directory.setTrip(asTyped: trip, ofAccount: jane.key, session: nil)
            fixture.clock.advance(by: 7200)
            #expect(try await directory.location(ofAccount: jane.key) == lapsing)
            #expect(try await directory.endTrip(ofAccount: jane.key, session: nil) == trip)

            try await directory.flushErasures(pins: [])
            switch kind {
            case .sqlite:
                for file in [fixture.sqlitePath, fixture.sqlitePath + "-wal"] {
                    let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
                    #expect(bytes.range(of: Data("Qorvenhavn".utf8)) == nil, "the ended trip is still in \(file)")
                }
            case .postgres:
                let postgres = try #require(directory as? PostgresStudentDirectory)
                let copies = try await postgres.client.query(
                    """
                    SELECT (SELECT count(*) FROM student_locations WHERE trip_map_string IS NOT NULL)
                        + (SELECT count(*) FROM pin_versions WHERE trip_map_string IS NOT NULL)
                    """
                ).decode(Int.self).first { _ in true }
                #expect(copies == 0)
            }
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func aBadTripIsRefusedWithASentenceAndChangesNothing(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let jane = try await Self.student(directory, "Jane")
            let tom = try await Self.student(directory, "Tom")
            let now = fixture.clock.now
            let trip = Trip(mapString: "Lisbon", coordinate: Self.lisbon, endsAt: now.addingTimeInterval(3600))
            let before = try await directory.setTrip(asTyped: trip, ofAccount: jane.key, session: jane.session)
            let seen = try #require(try await directory.locationChanges(after: 0, limit: 100)).lastRevision

            let refusals: [(Trip, String)] = [
                (
                    Trip(mapString: "Porto", coordinate: Self.lisbon, endsAt: now),
                    "The trip's end is not in the future."
                ),
                (
                    Trip(mapString: "Porto", coordinate: Self.lisbon, endsAt: now.addingTimeInterval(400 * 86_400)),
                    "A trip can last at most 366 days."
                ),
                (
                    Trip(mapString: "Porto", coordinate: Coordinate(latitude: 0, longitude: 181), endsAt: trip.endsAt),
                    "The trip's coordinate is not a valid latitude/longitude."
                ),
                (Trip(mapString: "  ", coordinate: Self.lisbon, endsAt: trip.endsAt), "The trip's place is empty."),
                (
                    Trip(mapString: "Porto\u{0}\r\nQUIT", coordinate: Self.lisbon, endsAt: trip.endsAt),
                    "The trip's place contains \(DirectoryInput.hiddenCharactersWording)."
                ),
            ]
            for (bad, sentence) in refusals {
                await expectServiceError(.rejectedInput(sentence)) {
                    try await directory.setTrip(asTyped: bad, ofAccount: jane.key, session: jane.session)
                }
                var pin = before.draft
                pin.trip = bad
                await expectServiceError(.rejectedInput(sentence)) {
                    try await directory.updateLocation(objectId: before.objectId, asTyped: pin, session: nil)
                }
            }
            await expectServiceError(.rejectedInput("A trip can only be set for your own account.")) {
                try await directory.setTrip(asTyped: trip, ofAccount: jane.key, session: tom.session)
            }
            await expectServiceError(.rejectedInput("Only your own trip can be ended.")) {
                try await directory.endTrip(ofAccount: jane.key, session: tom.session)
            }
            let newcomer = try await directory.addAccount(
                email: "new@class.test", password: Self.password, firstName: "New", lastName: "Comer")
            await expectServiceError(ServiceError.tripNeedsPin) {
                try await directory.setTrip(asTyped: trip, ofAccount: newcomer.accountKey, session: nil)
            }
            await expectServiceError(.rejectedInput("Record 1: The trip's end is not in the future.")) {
                var pin = tom.pin.draft
                pin.trip = Trip(mapString: "Porto", coordinate: Self.lisbon, endsAt: now)
                return try await directory.importLocations([await KeptAsTyped.record(pin)])
            }

            #expect(try await directory.location(ofAccount: jane.key) == before)
            #expect(try await directory.location(ofAccount: tom.key) == tom.pin)
            #expect(try await directory.location(ofAccount: newcomer.accountKey) == nil)
            #expect(try await directory.locationChanges(after: seen, limit: 100)?.changes.isEmpty == true)
        }
    }

    @Test(arguments: DirectoryKind.allCases)
    func everyErasureTakesTheTripWithThePin(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let places = ["Vblotown", "Zyxoburg", "Qwertzhausen"]
            func travel(_ key: String, to place: String) async throws -> StudentLocation {
                try await directory.setTrip(
                    asTyped: Trip(
                        mapString: place, coordinate: Self.lisbon, endsAt: fixture.clock.now.addingTimeInterval(86_400)),
                    ofAccount: key, session: nil)
            }
            // Ada's pin is old (the retention removes it); Tom's is removed; Jane is erased.
            let ada = try await Self.student(directory, "Ada")
            let adasPin = try await travel(ada.key, to: places[0])
            fixture.clock.advance(by: 10 * 86_400)
            let cutoff = fixture.clock.now
            fixture.clock.advance(by: 1)
            let tom = try await Self.student(directory, "Tom")
            let tomsPin = try await travel(tom.key, to: places[1])
            let jane = try await Self.student(directory, "Jane")
            let janesPin = try await travel(jane.key, to: places[2])

            let record = try #require(try await directory.accountRecord(.key(jane.key)))
            #expect(record.pin == janesPin && record.pin?.trip?.mapString == places[2])
            #expect(try await directory.eraseAccount(accountKey: jane.key) == record)
            #expect(try await directory.removeLocation(ofAccount: tom.key, session: tom.session) == tomsPin)
            #expect(try await directory.removeLocations(updatedBefore: cutoff) == [adasPin])
            try await directory.flushErasures(pins: [])

            switch kind {
            case .sqlite:
                for file in [fixture.sqlitePath, fixture.sqlitePath + "-wal"] {
                    let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
                    for place in places {
                        #expect(bytes.range(of: Data(place.utf8)) == nil, "\(place) is still in \(file)")
                    }
                }
            case .postgres:
                let postgres = try #require(directory as? PostgresStudentDirectory)
                let copies = try await postgres.client.query(
                    """
                    SELECT (SELECT count(*) FROM student_locations WHERE trip_map_string IS NOT NULL)
                        + (SELECT count(*) FROM pin_versions WHERE trip_map_string IS NOT NULL
                            OR unique_key IN (\(ada.key), \(tom.key), \(jane.key)))
                    """
                ).decode(Int.self).first { _ in true }
                #expect(copies == 0)
            }
        }
    }

    /// Another PostgreSQL instance hears at once of a trip set or ended (a notification, not the
    /// next poll), and a refused trip announces nothing.
    @Test func anotherPostgresInstanceHearsOfTripsAtOnce() async throws {
        try await DirectoryFixture.with(.postgres) { fixture in
            guard let writer = fixture.directory as? PostgresStudentDirectory,
                let listener = try await fixture.openAnother() as? PostgresStudentDirectory
            else {
                Issue.record("expected PostgreSQL directories")
                return
            }
            let jane = try await Self.student(writer, "Jane")
            let tom = try await Self.student(writer, "Tom")
            let changes = try await listener.pinChanges()
            let trip = Trip(
                mapString: "Lisbon", coordinate: Self.lisbon, endsAt: fixture.clock.now.addingTimeInterval(3600))
            _ = try await writer.setTrip(asTyped: trip, ofAccount: jane.key, session: nil)
            #expect(try await firstValue(of: changes, within: .seconds(5)) == jane.pin.objectId)
            #expect(try await listener.location(objectId: jane.pin.objectId)?.trip == trip)
            _ = try? await writer.setTrip(
                asTyped: Trip(mapString: "Lisbon", coordinate: Self.lisbon, endsAt: fixture.clock.now),
                ofAccount: jane.key,
                session: nil)
            _ = try await writer.endTrip(ofAccount: jane.key, session: nil)
            #expect(try await firstValue(of: changes, within: .seconds(5)) == jane.pin.objectId)
            #expect(try await listener.location(objectId: jane.pin.objectId)?.trip == nil)
            _ = try await writer.setTrip(asTyped: trip, ofAccount: tom.key, session: nil)
            #expect(try await firstValue(of: changes, within: .seconds(5)) == tom.pin.objectId)
        }
    }

    /// A store made before trips (its schema one version older) opens with its pins as they were,
    /// without a trip, and then takes trips.
    @Test(arguments: DirectoryKind.allCases)
    func aStoreFromBeforeTripsKeepsItsPinsAndTakesTrips(kind: DirectoryKind) async throws {
        let created = Date(timeIntervalSince1970: 1_700_000_000)
        let trip = Trip(
            mapString: "Lisbon", coordinate: Self.lisbon,
            endsAt: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded()))
        func check(_ directory: any AccountDirectory & TripDirectory) async throws {
            let pin = try #require(try await directory.location(ofAccount: "old-key"))
            #expect(pin.mapString == "Oldtown" && pin.coordinate == Coordinate(latitude: 10, longitude: 20))
            #expect(pin.createdAt == created && pin.trip == nil)
            #expect(try await directory.setTrip(asTyped: trip, ofAccount: "old-key", session: nil).trip == trip)
        }
        switch kind {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-trips-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("directory.sqlite").path
            let old = try DatabaseQueue(path: path)
            try SQLiteStudentDirectory.migrator.migrate(old, upTo: "v4")
            try await old.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO student_locations VALUES
                            ('old-pin', 'old-key', 'Old', 'Timer', 'Oldtown', '', 10, 20, ?, ?, 1)
                        """, arguments: [SQLiteStore.milliseconds(created), SQLiteStore.milliseconds(created)])
            }
            try old.close()
            let directory = try SQLiteStudentDirectory(path: path)
            defer { try? directory.close() }
            try await check(directory)
        case .postgres:
            guard let server = DirectoryFixture.postgresServerURL() else { return }
            try await DirectoryFixture.withTestDatabase(server: server) { url in
                let directory = PostgresStudentDirectory(url: try PostgresConnectionURL(url))
                do {
                    try await directory.client.withTransaction(logger: directory.logger) { connection in
                        try await connection.query(
                            "CREATE TABLE onthemap_schema_migrations (version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ)",
                            logger: directory.logger)
                        for migration in PostgresStudentDirectory.migrations where migration.version != "v6" {
                            for statement in migration.statements {
                                try await connection.query(
                                    PostgresQuery(unsafeSQL: statement), logger: directory.logger)
                            }
                            try await connection.query(
                                "INSERT INTO onthemap_schema_migrations VALUES (\(migration.version), now())",
                                logger: directory.logger)
                        }
                        try await connection.query(
                            """
                            INSERT INTO student_locations VALUES ('old-pin', 'old-key', 'Old', 'Timer', 'Oldtown', '',
                                10, 20, \(created), \(created), nextval('student_locations_revision'))
                            """, logger: directory.logger)
                    }
                    try await directory.migrate()
                    try await check(directory)
                } catch {
                    await directory.shutdown()
                    throw error
                }
                await directory.shutdown()
            }
        }
    }
}
