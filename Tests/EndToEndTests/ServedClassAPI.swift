import AsyncHTTPClient
import BotTesting
@testable import ClassKit
import Foundation
import HTTPBackends
import Logging
import NIOCore
import NIOSSL
import OnTheMapApp
import OnTheMapService
import PostgresDirectory
import SQLiteDirectory
import ServiceLifecycle
import Testing

@testable import OnTheMapService

/// The stores the served API is tested on.
enum ServedBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

/// A clock that reads a fixed time while pins are seeded, then the real one.
final class SeedClock: @unchecked Sendable {
    private let lock = NSLock()
    private var fixed: Date?

    var now: Date { lock.withLock { fixed ?? Date() } }

    func set(_ date: Date?) { lock.withLock { fixed = date } }
}

/// The bot's v1 API served for real on 127.0.0.1 (the web listener with its `/v1` routes) over a
/// fresh SQLite file or PostgreSQL database: two accounts (Ada, Grace) and five seeded pins. With
/// `apiServed: false` the listener serves the web map alone (`service.api.enabled: false`).
struct ServedClassAPI: Sendable {
    let baseURL: String
    let directory: any AccountDirectory & TripDirectory
    /// The directory's state store (where sign-in links are kept).
    let state: any BotStateStore
    let services: ClassServices
    let ada: UdacityClientBehaviour.Account
    let grace: UdacityClientBehaviour.Account
    let pins: [StudentLocation]

    static let adaPassword = "correct horse battery"
    static let gracePassword = "cobol-is-forever"
    static let hasher = PasswordHasher(uncheckedRounds: 1_000)

    /// Runs `body` with a served API on `backend`; stops it and removes the store afterwards.
    /// `postgres` is skipped (recorded as an issue) when `ONTHEMAP_TEST_POSTGRES_URL` is not set,
    /// unless `ONTHEMAP_SKIP_POSTGRES=1`.
    static func with(
        _ backend: ServedBackend, settings: ClassAPI.Settings = .init(), tls: TLSConfiguration? = nil,
        apiServed: Bool = true, _ body: (ServedClassAPI) async throws -> Void
    ) async throws {
        let folder = try TemporaryDirectory(prefix: "served-api")
        let clock = SeedClock()
        let options = LocalDirectoryOptions(passwordHasher: hasher, clock: { clock.now })
        switch backend {
        case .sqlite:
            let sqlite = try SQLiteStudentDirectory(path: folder.file("class.sqlite"), options: options)
            defer { try? sqlite.close() }
            try await serve(
                sqlite, state: sqlite, clock: clock, settings: settings, tls: tls, apiServed: apiServed, body)
        case .postgres:
            guard let server = postgresServerURL() else { return }
            try await withTestDatabase(server: server) { url in
                // The contract is checked, not a speed: many cases run at once, so the timeout is generous.
                let postgres = try await PostgresStudentDirectory.connect(
                    url: url, options: options, operationTimeout: .seconds(30))
                do {
                    try await serve(
                        postgres, state: postgres, clock: clock, settings: settings, tls: tls, apiServed: apiServed,
                        body)
                } catch {
                    await postgres.shutdown()
                    throw error
                }
                await postgres.shutdown()
            }
        }
    }

    private static func serve(
        _ directory: any AccountDirectory & TripDirectory, state: any BotStateStore, clock: SeedClock,
        settings: ClassAPI.Settings,
        tls: TLSConfiguration?, apiServed: Bool, _ body: (ServedClassAPI) async throws -> Void
    ) async throws {
        let adaAccount = try await directory.addAccount(
            email: "ada@example.org", password: adaPassword, firstName: "Ada", lastName: "Lovelace")
        let graceAccount = try await directory.addAccount(
            email: "grace@example.org", password: gracePassword, firstName: "Grace", lastName: "Hopper")
        var pins: [StudentLocation] = []
        for index in 1...5 {
            clock.set(UdacityClientBehaviour.seedBase)
            let draft = PinDraft(
                uniqueKey: "key-\(index)", firstName: "First\(index)", lastName: "Last\(index)",
                mapString: "Place \(index)", mediaURL: "https://example.org/\(index)",
                coordinate: Coordinate(latitude: Double(index), longitude: Double(-index)))
            let created = try await directory.createLocation(asTyped: draft, session: nil)
            clock.set(UdacityClientBehaviour.seedBase.addingTimeInterval(Double(index) * 60 + 0.123))
            pins.append(try await directory.updateLocation(objectId: created.objectId, asTyped: draft, session: nil))
        }
        clock.set(nil)
        // The contract's round trips (what an app saves comes back as saved) need a class that keeps
        // pins as sent: exact precision. The class default (city) is checked by the precision tests.
        let services = ClassServices(
            directory: directory, trips: directory, accounts: directory, stateStore: state,
            geocoder: try sharedGazetteer(), places: try sharedGazetteer(),
            settings: ClassSettings(privacy: PrivacyPolicy(defaultPrecision: .exact)))
        var logger = Logger(label: "served-api")
        logger.logLevel = .critical
        let api = ClassAPI(services: ClassAPI.Needs(services), accounts: directory, settings: settings, logger: logger)
        // As the bot serves them: the page offers the student scenes when the API is beside it,
        // and its pins are the class's when the API's reads are (`web.visibility` sets both).
        let access = MapAccess(
            visibility: settings.readRequiresLogin ? .class : .public, accounts: directory,
            signInLinks: SignInLinks(store: state))
        let webMap = WebMap(
            feed: MapPinFeed(classMap: services.classMap, timeZones: services.timeZones), geocoder: services.geocoder,
            assets: try WebMap.Assets.bundled(), access: access,
            scenes: apiServed ? WebMap.StudentScenes(passwords: settings.passwords) : nil,
            logger: logger)
        let (ports, bound) = AsyncStream.makeStream(of: Int.self)
        let server = WebMapServer(
            host: "127.0.0.1", port: 0, webMap: webMap, api: apiServed ? api : nil, tls: tls,
            onBound: { bound.yield($0) },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [server], gracefulShutdownSignals: [], logger: logger))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            running.cancel()
            throw ServedAPIError.notBound
        }
        let scheme = tls == nil ? "http" : "https"
        let served = ServedClassAPI(
            baseURL: "\(scheme)://127.0.0.1:\(port)/v1", directory: directory, state: state, services: services,
            ada: .init(
                email: "ada@example.org", password: adaPassword, key: adaAccount.accountKey, firstName: "Ada",
                lastName: "Lovelace", nickname: "Ada"),
            grace: .init(
                email: "grace@example.org", password: gracePassword, key: graceAccount.accountKey,
                firstName: "Grace", lastName: "Hopper", nickname: "Grace"),
            pins: pins)
        do {
            try await body(served)
        } catch {
            await group.triggerGracefulShutdown()
            _ = await running.result
            throw error
        }
        await group.triggerGracefulShutdown()
        _ = await running.result
    }

    static let gazetteer = Result { try GazetteerGeocoder.loadBundled() }

    static func sharedGazetteer() throws -> GazetteerGeocoder { try gazetteer.get() }

    /// The PostgreSQL server of `scripts/with-postgres.sh`, or nil when its cases are skipped.
    static func postgresServerURL() -> String? {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["ONTHEMAP_TEST_POSTGRES_URL"], !url.isEmpty else {
            if environment["ONTHEMAP_SKIP_POSTGRES"] != "1" {
                Issue.record(
                    "ONTHEMAP_TEST_POSTGRES_URL is not set: run with scripts/with-postgres.sh, or set ONTHEMAP_SKIP_POSTGRES=1"
                )
            }
            return nil
        }
        return url
    }

    /// A fresh database on `server` for `body`, dropped afterwards.
    static func withTestDatabase(server: String, _ body: (String) async throws -> Void) async throws {
        let name = "onthemap_api_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        _ = try await runCommand("/usr/bin/psql", [server, "-q", "-c", "CREATE DATABASE \(name)"])
        guard var components = URLComponents(string: server) else { throw ServedAPIError.badPostgresURL }
        components.path = "/" + name
        let url = components.string ?? server
        do {
            try await body(url)
        } catch {
            _ = try? await runCommand(
                "/usr/bin/psql", [server, "-q", "-c", "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"])
            throw error
        }
        _ = try await runCommand("/usr/bin/psql", [server, "-q", "-c", "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"])
    }

    /// The project's client pointed at this API (the `udacity` backend of another bot).
    func client() throws -> UdacityStudentDirectory {
        try UdacityStudentDirectory(
            configuration: .init(baseURL: baseURL, connectTimeout: .seconds(10), requestTimeout: .seconds(15)))
    }

    /// Every pin in the store, for "nothing changed" checks.
    func snapshot() async throws -> [StudentLocation] {
        try await directory.recentLocations(limit: 10_000, skip: 0)
    }
}

enum ServedAPIError: Error {
    case notBound, badPostgresURL
}
