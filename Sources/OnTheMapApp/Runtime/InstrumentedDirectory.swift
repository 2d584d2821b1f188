import Foundation
import Metrics
import OnTheMapService

/// Wraps a directory to count backend errors by operation and kind
/// (`onthemap_backend_errors_total{operation, kind}`) and to tell `watch` whether the directory
/// can be used: every failure, and every success of a call that writes (a read alone does not
/// prove that a locked file can be written again). Its capabilities beyond pins are wrapped apart
/// (``InstrumentedTrips``): each protocol it forwards has no requirement with a default body, so
/// a method it did not forward would not compile.
struct InstrumentedDirectory: StudentDirectory {
    let base: any StudentDirectory
    let watch: DirectoryFaultWatch

    var backendName: String { base.backendName }
    var signUpURL: String? { base.signUpURL }

    private func measured<T>(_ operation: String, writes: Bool = false, _ body: () async throws -> T)
        async throws -> T
    {
        try await Self.measured(operation, writes: writes, watch: watch, body)
    }

    /// Runs `body`, counting its failure by `operation` and telling `watch` how it went.
    static func measured<T>(
        _ operation: String, writes: Bool = false, watch: DirectoryFaultWatch, _ body: () async throws -> T
    ) async throws -> T {
        do {
            let result = try await body()
            if writes { watch.worked() }
            return result
        } catch {
            watch.failed(error)
            Counter(
                label: "onthemap_backend_errors_total",
                dimensions: [("operation", operation), ("kind", Self.kind(of: error))]
            ).increment()
            throw error
        }
    }

    /// A label for an error: credentials and missing things are not backend faults, but counted apart.
    static func kind(of error: any Error) -> String {
        guard let error = error as? ServiceError else { return "other" }
        switch error {
        case .networkUnreachable: return "unreachable"
        case .invalidCredentials: return "credentials"
        case .sessionExpired: return "session"
        case .notFound: return "not_found"
        case .rejectedInput: return "rejected"
        case .unavailable: return "unavailable"
        case .backendFailure: return "failure"
        case .malformedResponse: return "malformed"
        case .throttled: return "throttled"
        case .unsupported: return "unsupported"
        }
    }

    func logIn(email: String, password: String) async throws -> DirectorySession {
        try await measured("login", writes: true) { try await base.logIn(email: email, password: password) }
    }

    func logOut(_ session: DirectorySession) async throws {
        try await measured("logout", writes: true) { try await base.logOut(session) }
    }

    func profile(accountKey: String, session: DirectorySession?) async throws -> StudentProfile {
        try await measured("profile") { try await base.profile(accountKey: accountKey, session: session) }
    }

    func recentLocations(limit: Int, skip: Int) async throws -> [StudentLocation] {
        try await measured("list") { try await base.recentLocations(limit: limit, skip: skip) }
    }

    func locationChanges(after revision: Int64, limit: Int) async throws -> PinChangePage? {
        try await measured("changes") { try await base.locationChanges(after: revision, limit: limit) }
    }

    func location(ofAccount accountKey: String) async throws -> StudentLocation? {
        try await measured("pin") { try await base.location(ofAccount: accountKey) }
    }

    func createLocation(_ pin: KeptPin, session: DirectorySession?) async throws -> StudentLocation {
        try await measured("create", writes: true) { try await base.createLocation(pin, session: session) }
    }

    func updateLocation(objectId: String, with pin: KeptPin, session: DirectorySession?) async throws
        -> StudentLocation
    {
        try await measured("update", writes: true) {
            try await base.updateLocation(objectId: objectId, with: pin, session: session)
        }
    }

    func checkHealth() async throws {
        try await measured("health", writes: true) { try await base.checkHealth() }
    }
}

/// The trips of an instrumented directory: counted and watched like its pins.
struct InstrumentedTrips: TripDirectory {
    let base: any TripDirectory
    let watch: DirectoryFaultWatch

    func setTrip(_ trip: KeptTrip, ofAccount uniqueKey: String, session: DirectorySession?) async throws
        -> StudentLocation
    {
        try await InstrumentedDirectory.measured("trip", writes: true, watch: watch) {
            try await base.setTrip(trip, ofAccount: uniqueKey, session: session)
        }
    }

    func endTrip(ofAccount uniqueKey: String, session: DirectorySession?) async throws -> Trip? {
        try await InstrumentedDirectory.measured("end_trip", writes: true, watch: watch) {
            try await base.endTrip(ofAccount: uniqueKey, session: session)
        }
    }
}
