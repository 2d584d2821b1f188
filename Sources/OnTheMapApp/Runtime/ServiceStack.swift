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
    /// Set for the local and PostgreSQL backends, which keep their own accounts.
    public let accounts: (any AccountDirectory)?
    /// Persistent bot memory (what was announced), when the backend has it.
    public let state: (any BotStateStore)?
    /// Instant news of pins saved by other instances (PostgreSQL).
    public let pinChanges: (any PinChangeNotifying)?
    /// The accounts erased or unlinked by any process on the directory (SQLite, PostgreSQL).
    public let accountEvents: (any AccountEventFeed)?
    public let geocoder: any Geocoder
    /// The offline gazetteer's places by level, which pins are coarsened with (whatever the
    /// geocoder); nil when the stack was made without a geocoder.
    public let placeLevels: (any PlaceLevelFinder)?
    /// Whether the directory can be read and written, from the outcome of its calls.
    let faultWatch: DirectoryFaultWatch
    private let closers: [@Sendable () async -> Void]

    /// Closes connections and pools.
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
        let (directory, accounts, state, pinChanges, accountEvents) = try await makeDirectory(
            service, options: options, logger: logger, closers: &closers)
        let geocoder: any Geocoder
        var placeLevels: (any PlaceLevelFinder)?
        switch config.geocoder.kind {
        case _ where !loadGeocoder:
            geocoder = NoGeocoder()
        case .gazetteer:
            // Loads on another core while the bot connects; a broken bundle is still reported at start.
            let background = BackgroundLoadedGeocoder { try GazetteerGeocoder.loadBundled() }
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
            placeLevels = BackgroundLoadedGeocoder { try GazetteerGeocoder.loadBundled() }
        }
        let faultWatch = DirectoryFaultWatch(
            backendName: directory.backendName, logger: logger.withLabel("onthemap.directory"))
        return ServiceStack(
            directory: InstrumentedDirectory(base: directory, watch: faultWatch), accounts: accounts, state: state,
            pinChanges: pinChanges, accountEvents: accountEvents, geocoder: geocoder, placeLevels: placeLevels,
            faultWatch: faultWatch,
            closers: closers)
    }

    /// The directory of `service.backend` and the roles it plays (accounts, bot state, change
    /// notifications); what must be closed at shutdown goes to `closers`.
    private static func makeDirectory(
        _ service: BotConfiguration.ServiceSection, options: LocalDirectoryOptions, logger: Logger,
        closers: inout [@Sendable () async -> Void]
    ) async throws -> (
        any StudentDirectory, (any AccountDirectory)?, (any BotStateStore)?, (any PinChangeNotifying)?,
        (any AccountEventFeed)?
    ) {
        let directory: any StudentDirectory
        let accounts: (any AccountDirectory)?
        let state: (any BotStateStore)?
        let pinChanges: (any PinChangeNotifying)?
        var accountEvents: (any AccountEventFeed)?
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
            (directory, accounts, state, pinChanges) = (sqlite, sqlite, sqlite, nil)
            accountEvents = sqlite
        case .postgres:
            #if postgres
                let postgres = try await PostgresStudentDirectory.connect(
                    url: service.postgresURL, options: options, logger: logger.withLabel("onthemap.postgres"))
                (directory, accounts, state, pinChanges) = (postgres, postgres, postgres, postgres)
                accountEvents = postgres
                closers.append { await postgres.shutdown() }
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
                (directory, accounts, state, pinChanges) = (udacity, nil, nil, nil)
                closers.append { await udacity.shutdown() }
            #else
                throw BuildFeatures.Missing(feature: .udacity)
            #endif
        }
        return (directory, accounts, state, pinChanges, accountEvents)
    }
}

/// Stands in where no geocoding is needed (operator tools): finds nothing.
struct NoGeocoder: Geocoder {
    func geocode(_ query: String, limit: Int) async throws -> [PlaceCandidate] { [] }
}
