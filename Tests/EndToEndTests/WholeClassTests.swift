import BotKit
import BotTesting
@testable import ClassKit
import Foundation
import HTTPBackends
import Logging
import NIOConcurrencyHelpers
import OnTheMapPlugins
import PostgresDirectory
import SQLiteDirectory
import Testing

@testable import OnTheMapService

/// A class of 150 pins, more than the table of the 100 most recent, on each backend: `!where` and
/// `!near` search every pin, read through the backend's own way of loading the whole class (the
/// change feed of the local and PostgreSQL directories, `skip` paging of the Udacity API).
@Suite(.serialized) struct WholeClassTests {
    enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sqlite, postgres, udacity
        var testDescription: String { rawValue }
    }

    static let size = 150
    static let geocoder: GazetteerGeocoder = {
        do { return try GazetteerGeocoder.loadBundled() } catch { fatalError("gazetteer: \(error)") }
    }()

    /// The class, oldest post first. The oldest pins sit by the cities the test asks about, so an
    /// answer from the 100 most recent alone would be wrong.
    static func classPins() -> [(first: String, last: String, place: String, coordinate: Coordinate)] {
        var pins: [(String, String, String, Coordinate)] = [
            ("Ada", "Lovelace", "London, UK", Coordinate(latitude: 51.5074, longitude: -0.1278)),
            ("Radia", "Perlman", "Seattle, WA", Coordinate(latitude: 47.6062, longitude: -122.3321)),
            ("Grace", "Hopper", "Arlington, VA", Coordinate(latitude: 38.8816, longitude: -77.0910)),
            ("Kenji", "Sato", "Yokohama, Japan", Coordinate(latitude: 35.4437, longitude: 139.6380)),
        ]
        var state: UInt64 = 0x5EED
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(UInt64(1) << 53)
        }
        for number in pins.count..<size {
            let coordinate = Coordinate(latitude: next() * 140 - 70, longitude: next() * 360 - 180)
            pins.append(("Student\(number)", "Classmate", "Place \(number)", coordinate))
        }
        return pins
    }

    @Test(.timeLimit(.minutes(3)), arguments: Backend.allCases)
    func whereAndNearSearchEveryPin(_ backend: Backend) async throws {
        if backend == .postgres, !PostgresCluster.isAvailable { return }
        try await WholeClass.with(backend) { whole in
            let bot = whole.bot
            // The oldest pin, 149 posts ago.
            let ada = await bot.say("!where Ada Lovelace", in: "#class", as: "zoe").map(\.text)
            #expect(ada.count == 1)
            #expect(ada.first?.hasPrefix("zoe: Ada Lovelace — London, UK — ") == true, "\(ada)")
            // The table still holds the 100 most recent.
            let list = await bot.dm("!list", as: "zoe").map(\.text)
            #expect(list.first == "The 100 most recent posts, page 1 of 10 (newest first):")

            let stored = Self.classPins()
            for place in ["Seattle", "Tokyo", "Paris", "Sydney", "Lagos", "Buenos Aires"] {
                let origin = try #require(try await Self.geocoder.geocode(place, limit: 1).first).coordinate
                let bruteForce = stored.sorted {
                    GreatCircle.distanceKilometres(origin, $0.coordinate)
                        < GreatCircle.distanceKilometres(origin, $1.coordinate)
                }.prefix(10)
                let lines = await bot.dm("!near \(place)", as: "zoe").map(\.text).dropFirst()
                let names = lines.map { String($0.prefix { $0 != "—" }).trimmingCharacters(in: .whitespaces) }
                #expect(names == bruteForce.map { "\($0.first) \($0.last)" }, "\(place): \(lines)")
            }
        }
    }
}

/// A bot's class plugins on the real router over one backend filled with ``WholeClassTests/classPins()``.
struct WholeClass {
    let bot: TestBot<StudentLogin>

    static func with(_ backend: WholeClassTests.Backend, _ body: (WholeClass) async throws -> Void) async throws {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let pins = WholeClassTests.classPins()
        switch backend {
        case .sqlite:
            let folder = try TemporaryDirectory(prefix: "whole-class")
            let clock = StepClock(start)
            let sqlite = try SQLiteStudentDirectory(
                path: folder.file("class.sqlite"),
                options: LocalDirectoryOptions(
                    signUpURL: nil, passwordHasher: PasswordHasher(uncheckedRounds: 1_000), clock: { clock.next() }))
            defer { try? sqlite.close() }
            try await fill(sqlite, with: pins)
            try await body(make(directory: sqlite, trips: sqlite))
        case .postgres:
            try await PostgresCluster.withRunning { cluster in
                let clock = StepClock(start)
                let postgres = try await PostgresStudentDirectory.connect(
                    url: cluster.url,
                    options: LocalDirectoryOptions(
                        signUpURL: nil, passwordHasher: PasswordHasher(uncheckedRounds: 1_000), clock: { clock.next() }),
                    operationTimeout: .seconds(20))
                do {
                    try await fill(postgres, with: pins)
                    try await body(make(directory: postgres, trips: postgres))
                } catch {
                    await postgres.shutdown()
                    throw error
                }
                await postgres.shutdown()
            }
        case .udacity:
            let locations = pins.enumerated().map { number, pin in
                let date = start.addingTimeInterval(Double(number))
                return FakeUdacityServer.Location(
                    objectId: "pin\(number)", uniqueKey: "key\(number)", firstName: pin.first, lastName: pin.last,
                    mapString: pin.place, mediaURL: "https://example.org/\(number)",
                    latitude: pin.coordinate.latitude, longitude: pin.coordinate.longitude, createdAt: date,
                    updatedAt: date)
            }
            let server = FakeUdacityServer(locations: locations, maximumPageSize: 40)
            let quiet = Logger(label: "whole-class", factory: { _ in SwiftLogNoOpLogHandler() })
            let udacity = try UdacityStudentDirectory(
                configuration: .init(baseURL: try await server.start().absoluteString), logger: quiet)
            do {
                try await body(make(directory: udacity, trips: nil))
                // Paged through a server that answers 40 pins at most, whatever the bot asks.
                let skips = await server.requests().filter { $0.path.hasSuffix("/StudentLocation") }
                    .compactMap { $0.query["skip"] }
                #expect(Set(["0", "40", "80", "120", "150"]).isSubset(of: Set(skips)), "\(skips)")
            } catch {
                await udacity.shutdown()
                await server.stop()
                throw error
            }
            await udacity.shutdown()
            await server.stop()
        }
    }

    static func make(directory: any StudentDirectory, trips: (any TripDirectory)?) -> WholeClass {
        // A public class: a whole class's answers are checked, asked by a student who never logs in.
        let services = ClassServices(
            directory: directory, trips: trips, geocoder: WholeClassTests.geocoder, places: WholeClassTests.geocoder,
            settings: ClassSettings(privacy: PrivacyPolicy(visibility: .public)))
        return WholeClass(
            bot: TestBot(
                plugins: ClassPlugins.make(enabled: ClassPlugins.names, services: services),
                settings: CommandRouter.Settings.unlimited, gate: services.logins))
    }

    /// Posts `pins` oldest first, each student from an account of their own.
    static func fill(
        _ directory: any AccountDirectory,
        with pins: [(first: String, last: String, place: String, coordinate: Coordinate)]
    ) async throws {
        for (number, pin) in pins.enumerated() {
            let account = try await directory.addAccount(
                email: "student\(number)@class.example", password: "correct horse battery", firstName: pin.first,
                lastName: pin.last)
            let session = try await directory.logIn(email: account.email, password: "correct horse battery")
            _ = try await directory.createLocation(
                asTyped: PinDraft(
                    uniqueKey: account.accountKey, firstName: pin.first, lastName: pin.last, mapString: pin.place,
                    mediaURL: "https://example.org/\(number)", coordinate: pin.coordinate),
                session: session)
        }
    }
}

/// A wall clock that moves one second on each reading, so each post is newer than the one before.
final class StepClock: Sendable {
    private let current: NIOLockedValueBox<Date>
    init(_ start: Date) { current = NIOLockedValueBox(start) }
    func next() -> Date {
        current.withLockedValue {
            $0 += 1
            return $0
        }
    }
}
