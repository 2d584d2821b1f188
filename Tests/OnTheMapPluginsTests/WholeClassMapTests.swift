import BotKit
import BotTesting
@testable import ClassKit
import Foundation
import SQLiteDirectory
import Testing

@testable import OnTheMapService

@testable import OnTheMapPlugins

/// The class map holds every pin and follows the directory's change feed; its table of the most
/// recent and its nearest-neighbour answers stay those of the whole class after every change.
@Suite struct WholeClassMapTests {
    static func pin(_ number: Int, at seconds: Double, latitude: Double, longitude: Double) -> StudentLocation {
        let date = Date(timeIntervalSince1970: 1_700_000_000 + seconds)
        return StudentLocation(
            objectId: "o\(number)", uniqueKey: "k\(number)", firstName: "First\(number)", lastName: "Last",
            mapString: "Place", mediaURL: "https://example.org",
            coordinate: Coordinate(latitude: latitude, longitude: longitude),
            createdAt: date, updatedAt: date)
    }

    /// Random adds, moves and removals: after each, the catalog's table equals the newest pins of
    /// a plain list sorted by update time (ties: the later change), and its nearest pins equal a
    /// brute-force search.
    @Test func theCatalogAgreesWithBruteForceAfterEveryChange() {
        var catalog = PinCatalog(recentLimit: 10)
        var reference: [(pin: StudentLocation, order: Int)] = []
        var state: UInt64 = 42
        func random(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for step in 0..<600 {
            let number = random(60)
            let time = Double(random(400))
            if random(5) == 0 {
                catalog.remove(objectId: "o\(number)")
                reference.removeAll { $0.pin.objectId == "o\(number)" }
            } else {
                let pin = Self.pin(
                    number, at: time, latitude: Double(random(160)) - 80, longitude: Double(random(360)) - 180)
                catalog.upsert(pin)
                reference.removeAll { $0.pin.objectId == pin.objectId }
                reference.append((pin, step))
            }
            let expected = reference.sorted {
                $0.pin.updatedAt != $1.pin.updatedAt ? $0.pin.updatedAt > $1.pin.updatedAt : $0.order > $1.order
            }.prefix(10).map(\.pin.objectId)
            #expect(catalog.recent().map(\.objectId) == Array(expected), "step \(step)")
            let origin = Coordinate(latitude: Double(random(160)) - 80, longitude: Double(random(360)) - 180)
            let nearest = catalog.neighbourhood().nearest(to: origin, k: 3).map(\.payload.objectId)
            let bruteForce = reference.map(\.pin).sorted {
                GreatCircle.distanceKilometres(origin, $0.coordinate)
                    < GreatCircle.distanceKilometres(origin, $1.coordinate)
            }.prefix(3).map(\.objectId)
            #expect(nearest == Array(bruteForce), "step \(step)")
            #expect(catalog.count == reference.count)
        }
    }

    /// Posts and removals made elsewhere (another instance on the same file) reach `!where` and
    /// `!near` with the next refresh, through the change feed, without reading the class again.
    @Test func changesMadeElsewhereArriveThroughTheChangeFeed() async throws {
        let fixture = try ClassFixture()
        try await fixture.addPin(
            email: "ada@class.test", first: "Ada", last: "Lovelace", place: "London, UK",
            at: Coordinate(latitude: 51.5074, longitude: -0.1278))
        for number in 0..<120 {
            try await fixture.addPin(
                email: "s\(number)@class.test", first: "Student", last: "No\(number)", place: "Place \(number)",
                at: Coordinate(latitude: -30 + Double(number % 50), longitude: 100 + Double(number % 60)))
        }
        await fixture.bot.assertResponse("!where Ada", "Ada Lovelace — London, UK — https://example.org/me — …")
        #expect(await fixture.services.classMap.count == 121)

        let other = try SQLiteStudentDirectory(
            path: fixture.folder.file("class.sqlite"),
            options: LocalDirectoryOptions(
                signUpURL: nil, passwordHasher: PasswordHasher(uncheckedRounds: 1_000), clock: fixture.bot.now))
        fixture.advance(seconds: 5)
        defer { try? other.close() }
        let grace = try await other.addAccount(
            email: "grace@class.test", password: ClassFixture.password, firstName: "Grace", lastName: "Hopper")
        let session = try await other.logIn(email: grace.email, password: ClassFixture.password)
        _ = try await other.createLocation(
            asTyped: PinDraft(
                uniqueKey: grace.accountKey, firstName: "Grace", lastName: "Hopper", mapString: "Arlington, VA",
                mediaURL: "https://example.org/grace", coordinate: Coordinate(latitude: 38.88, longitude: -77.09)),
            session: session)
        try await other.removeAccount(email: "ada@class.test")

        let refreshed = try await fixture.services.classMap.refresh()
        #expect(refreshed.fresh.map(\.fullName) == ["Grace Hopper"])
        #expect(refreshed.pins.count == 100)
        await fixture.bot.assertResponse(
            "!where Grace Hopper", "Grace Hopper — Arlington, VA — https://example.org/grace — …")
        await fixture.bot.assertError(
            "!where Ada Lovelace",
            "Nobody called \"Ada Lovelace\" is on the map (and no one logged in uses that nick).")
        let near = await fixture.dm("!near London", as: "zoe")
        #expect(!near.contains { $0.contains("Ada Lovelace") })
        #expect(near.dropFirst().first?.hasPrefix("Grace Hopper — ") == true, "\(near)")
        #expect(await fixture.services.classMap.count == 121)
    }

    /// A class larger than one page of the change feed is loaded whole, and a later refresh that
    /// spans several pages of saves and removals applies all of them.
    @Test func loadsAndFollowsTheChangeFeedAcrossPages() async throws {
        let folder = try TemporaryDirectory(prefix: "feed-pages")
        let directory = try SQLiteStudentDirectory(
            path: folder.file("class.sqlite"),
            options: LocalDirectoryOptions(signUpURL: nil, passwordHasher: PasswordHasher(uncheckedRounds: 1_000)))
        defer { try? directory.close() }
        func record(_ number: Int, place: String) async -> PinImportRecord {
            await KeptAsTyped.record(
                PinDraft(
                    uniqueKey: "k\(number)", firstName: "Student", lastName: "No\(number)", mapString: place,
                    mediaURL: "https://example.org/\(number)",
                    coordinate: Coordinate(latitude: Double(number % 80), longitude: Double(number % 170))))
        }
        func records(_ numbers: Range<Int>, place: String) async -> [PinImportRecord] {
            var records: [PinImportRecord] = []
            for number in numbers { records.append(await record(number, place: place)) }
            return records
        }
        _ = try await directory.importLocations(await records(0..<23, place: "Oslo"))
        let map = ClassMap(directory: directory, limit: 10, feedPageSize: 5)

        _ = try await map.refresh()
        #expect(await map.count == 23)
        #expect(try await map.pins(named: "Student No0").map(\.mapString) == ["Oslo"])
        #expect(try await map.pins(named: "Student No22").map(\.mapString) == ["Oslo"])

        // Eleven moves, four new pins and three removals: more than three pages of changes.
        _ = try await directory.importLocations(await records(0..<11, place: "Bergen"))
        _ = try await directory.importLocations(await records(23..<27, place: "Tromsø"))
        for number in [12, 13, 14] {
            let pin = try #require(try await directory.location(ofAccount: "k\(number)"))
            _ = try await directory.removeLocation(objectId: pin.objectId)
        }
        let refreshed = try await map.refresh()
        #expect(await map.count == 24)
        #expect(try await map.pins(named: "Student No10").map(\.mapString) == ["Bergen"])
        #expect(try await map.pins(named: "Student No26").map(\.mapString) == ["Tromsø"])
        #expect(try await map.pins(named: "Student No13").isEmpty)
        #expect(try await map.all().filter { $0.mapString == "Bergen" }.count == 11)
        #expect(refreshed.pins.count == 10)
    }
}
