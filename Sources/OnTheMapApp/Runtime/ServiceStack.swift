import ClassKit
import Foundation
import Logging
import OnTheMapService
import SQLiteDirectory

#if postgres
    import PostgresDirectory
#endif
#if udacity
    import HTTPBackends
#endif

/// The service layer a config asks for: the directory backend and the geocoder.
public struct ServiceStack: Sendable {
    public let directory: any StudentDirectory
    /// Set for the local and PostgreSQL backends, which keep trips beside pins.
    public let trips: (any TripDirectory)?
    /// Set for the local and PostgreSQL backends, which keep their own accounts.
    public let accounts: (any AccountDirectory)?
    /// Persistent bot memory (what was announced), when the backend has it.
    public let state: (any BotStateStore)?
    /// Instant news of pins saved by other instances (PostgreSQL).
    public let pinChanges: (any PinChangeNotifying)?
    /// The accounts erased or unlinked by any process on the directory (SQLite, PostgreSQL).
    public let accountEvents: (any AccountEventFeed)?
    public let geocoder: any Geocoder
    /// The offline gazetteer's places by level and their time zones, which pins are coarsened with
    /// and local times read from (whatever the geocoder); nil when the stack was made without it.
    public let placeLevels: BackgroundLoadedGazetteer?
    /// The key under which the log names the people who send commands (see ``LogPseudonyms``).
    public let logPseudonyms: LogPseudonyms
    /// What the directory keeps beyond pins, as found when it was opened.
    public var capabilities: DirectoryCapabilities {
        DirectoryCapabilities(
            accounts: accounts != nil, trips: trips != nil, botState: state != nil, instantChanges: pinChanges != nil)
    }
    /// Whether the directory can be read and written, from the outcome of its calls.
    let faultWatch: DirectoryFaultWatch
    private let closers: [@Sendable () async -> Void]

    /// Closes connections and pools.
    /// The privacy gate of the operator's tools (`pins import`, `pins coarsen`, `seed-demo`): the
    /// students' choices read from the state store, pins moved to the offline gazetteer's places.
    public func privacyGate(policy: PrivacyPolicy) -> PrivacyGate {
        PrivacyGate(places: placeLevels, policy: policy, choices: PrivacyChoices(store: state))
    }

    public func shutdown() async {
        for close in closers { await close() }
    }

    /// Builds the backend and geocoder of `config`. Throws a `ServiceError` a person can read.
    /// `loadGazetteerInBackground` lets the caller go on (connect to IRC) while the gazetteer loads;
    /// otherwise this returns once it is loaded and throws when it cannot be.
    public static func make(
        config: BotConfiguration, logger: Logger, loadGeocoder: Bool = true, loadGazetteerInBackground: Bool = false,
        loadPlaceLevels: Bool? = nil
    ) async throws -> ServiceStack {
        let service = config.service
        let options = LocalDirectoryOptions(signUpURL: service.signupURL.isEmpty ? nil : service.signupURL)
        var closers: [@Sendable () async -> Void] = []
        let (directory, roles) = try await makeDirectory(service, options: options, logger: logger, closers: &closers)
        let geocoder: any Geocoder
        var placeLevels: BackgroundLoadedGazetteer?
        switch config.geocoder.kind {
        case _ where !loadGeocoder:
            geocoder = NoGeocoder()
        case .gazetteer:
            // Loads on another core while the bot connects; a broken bundle is still reported at start.
            let background = BackgroundLoadedGazetteer { try GazetteerGeocoder.loadBundled() }
            if loadGazetteerInBackground {
                let gazetteerLogger = logger
                Task {
                    do { _ = try await background.loaded() } catch {
                        gazetteerLogger.error("the gazetteer could not be loaded", metadata: ["error": "\(error)"])
                    }
                }
            } else {
                _ = try await background.loaded()
            }
            geocoder = background
            placeLevels = background
        case .nominatim:
            #if udacity
                let nominatim = try NominatimGeocoder(
                    configuration: .init(baseURL: config.geocoder.nominatimURL, userAgent: config.geocoder.userAgent),
                    logger: logger.withLabel("onthemap.nominatim"))
                geocoder = nominatim
                closers.append { await nominatim.shutdown() }
            #else
                throw BuildFeatures.Missing(feature: .udacity)
            #endif
        }
        if placeLevels == nil, loadPlaceLevels ?? loadGeocoder {
            // Pins are coarsened to the gazetteer's places whichever geocoder resolves them.
            placeLevels = BackgroundLoadedGazetteer { try GazetteerGeocoder.loadBundled() }
        }
        let faultWatch = DirectoryFaultWatch(
            backendName: directory.backendName, logger: logger.withLabel("onthemap.directory"))
        let logPseudonyms = await LogPseudonyms.load(from: roles.state)
        return ServiceStack(
            directory: InstrumentedDirectory(base: directory, watch: faultWatch),
            trips: roles.trips.map { InstrumentedTrips(base: $0, watch: faultWatch) }, accounts: roles.accounts,
            state: roles.state, pinChanges: roles.pinChanges, accountEvents: roles.accountEvents, geocoder: geocoder,
            placeLevels: placeLevels, logPseudonyms: logPseudonyms, faultWatch: faultWatch, closers: closers)
    }

    /// The roles a directory plays besides keeping pins, each typed: found once, here.
    private struct DirectoryRoles {
        var trips: (any TripDirectory)?
        var accounts: (any AccountDirectory)?
        var state: (any BotStateStore)?
        var pinChanges: (any PinChangeNotifying)?
        var accountEvents: (any AccountEventFeed)?
    }

    /// The directory of `service.backend` and the roles it plays (trips, accounts, bot state,
    /// change notifications); what must be closed at shutdown goes to `closers`.
    private static func makeDirectory(
        _ service: BotConfiguration.ServiceSection, options: LocalDirectoryOptions, logger: Logger,
        closers: inout [@Sendable () async -> Void]
    ) async throws -> (any StudentDirectory, DirectoryRoles) {
        switch service.backend {
        case .local:
            let folder = URL(fileURLWithPath: service.database).deletingLastPathComponent().path
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let sqlite = try SQLiteStudentDirectory(path: service.database, options: options)
            for file in sqlite.narrowedFiles {
                logger.warning(
                    "the database file could be read by other users; it is now readable by its owner only (0600)",
                    metadata: ["file": "\(file)"])
            }
            return (
                sqlite,
                DirectoryRoles(trips: sqlite, accounts: sqlite, state: sqlite, pinChanges: nil, accountEvents: sqlite)
            )
        case .postgres:
            #if postgres
                let postgres = try await PostgresStudentDirectory.connect(
                    url: service.postgresURL, options: options, logger: logger.withLabel("onthemap.postgres"))
                closers.append { await postgres.shutdown() }
                return (
                    postgres,
                    DirectoryRoles(
                        trips: postgres, accounts: postgres, state: postgres, pinChanges: postgres,
                        accountEvents: postgres)
                )
            #else
                throw BuildFeatures.Missing(feature: .postgres)
            #endif
        case .udacity:
            #if udacity
                let udacity = try UdacityStudentDirectory(
                    configuration: .init(
                        baseURL: service.udacityURL,
                        signUpURL: service.signupURL.isEmpty
                            ? UdacityStudentDirectory.Configuration.defaultSignUpURL : service.signupURL),
                    logger: logger.withLabel("onthemap.udacity"))
                closers.append { await udacity.shutdown() }
                return (udacity, DirectoryRoles())
            #else
                throw BuildFeatures.Missing(feature: .udacity)
            #endif
        }
    }
}

/// Stands in where no geocoding is needed (operator tools): finds nothing.
struct NoGeocoder: Geocoder {
    func geocode(_ query: String, limit: Int) async throws -> [PlaceCandidate] { [] }
}
