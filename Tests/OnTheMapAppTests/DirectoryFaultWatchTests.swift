import IRCClient
import Logging
import OnTheMapService
import NIOConcurrencyHelpers
import Testing

@testable import OnTheMapApp

/// A directory whose every call fails with `fault` while it is set.
final class FaultyDirectory: StudentDirectory, Sendable {
    let backendName = "faulty"
    var signUpURL: String? { nil }
    private let fault = NIOLockedValueBox<ServiceError?>(nil)

    func setFault(_ error: ServiceError?) { fault.withLockedValue { $0 = error } }

    private func check() throws {
        if let error = fault.withLockedValue({ $0 }) { throw error }
    }

    func logIn(email: String, password: String) async throws -> DirectorySession {
        try check()
        return DirectorySession(accountKey: "k", sessionId: "s", expiresAt: .distantFuture)
    }
    func logOut(_ session: DirectorySession) async throws { try check() }
    func profile(accountKey: String, session: DirectorySession?) async throws -> StudentProfile {
        try check()
        return StudentProfile(accountKey: accountKey, firstName: "Ada", lastName: "Lovelace")
    }
    func recentLocations(limit: Int, skip: Int) async throws -> [StudentLocation] {
        try check()
        return []
    }
    func locationChanges(after revision: Int64, limit: Int) async throws -> PinChangePage? {
        try check()
        return nil
    }
    func location(ofAccount accountKey: String) async throws -> StudentLocation? {
        try check()
        return nil
    }
    func createLocation(_ draft: KeptPin, session: DirectorySession?) async throws -> StudentLocation {
        try check()
        throw ServiceError.unsupported("not in this test")
    }
    func updateLocation(objectId: String, with draft: KeptPin, session: DirectorySession?) async throws
        -> StudentLocation
    {
        try check()
        throw ServiceError.unsupported("not in this test")
    }
    func checkHealth() async throws { try check() }
}

@Suite struct DirectoryFaultWatchTests {
    @Test func aFaultIsLoggedOnceWithItsCauseAndOnceMoreWhenItEnds() async throws {
        let recorder = LogRecorder()
        let base = FaultyDirectory()
        let watch = DirectoryFaultWatch(backendName: "faulty", logger: recorder.logger())
        let directory = InstrumentedDirectory(base: base, watch: watch)

        base.setFault(.unavailable("SQLite: database is locked"))
        for _ in 0..<5 {
            await #expect(throws: ServiceError.self) { _ = try await directory.logIn(email: "a@b.c", password: "pw") }
        }
        await #expect(throws: ServiceError.self) { try await directory.checkHealth() }
        #expect(watch.currentFault == "SQLite: database is locked")
        let warnings = recorder.all.filter { $0.hasPrefix("warning") }
        #expect(warnings.count == 1, "\(recorder.all)")
        #expect(warnings.first?.contains("SQLite: database is locked") == true)

        // Wrong passwords and refused input are not faults of the directory; reads prove nothing
        // about writing, so they do not end the fault either.
        base.setFault(.invalidCredentials)
        await #expect(throws: ServiceError.self) { _ = try await directory.logIn(email: "a@b.c", password: "pw") }
        base.setFault(nil)
        _ = try await directory.recentLocations(limit: 1, skip: 0)
        #expect(watch.currentFault != nil)
        #expect(recorder.all.count == 1)

        _ = try await directory.logIn(email: "a@b.c", password: "pw")
        #expect(watch.currentFault == nil)
        #expect(recorder.all.count == 2)
        #expect(recorder.all.last?.hasPrefix("notice") == true)
        #expect(recorder.all.last?.contains("works again") == true)
        try await directory.checkHealth()
        #expect(recorder.all.count == 2)

        base.setFault(.networkUnreachable("connection refused"))
        await #expect(throws: ServiceError.self) { try await directory.checkHealth() }
        #expect(recorder.all.count == 3)
        #expect(recorder.all.last?.contains("connection refused") == true)
    }

    @Test func theHealthReportNamesTheCause() async throws {
        let base = FaultyDirectory()
        base.setFault(.unavailable("SQLite: database is locked"))
        let report = await BotAssembly.checkBackend(base, timeout: .seconds(3))
        #expect(!report.reachable)
        #expect(report.error == "the directory cannot be read or written: SQLite: database is locked")
    }

    @Test func theShutdownDrainReachesTheIRCClient() throws {
        var irc = BotConfiguration.IRCSection()
        irc.server = "irc.example.org"
        irc.nick = "MapBot"
        #expect(IRCClientConfiguration(irc).shutdownDrainTimeout == .seconds(5))
        irc.shutdownDrainSeconds = 0.5
        #expect(IRCClientConfiguration(irc).shutdownDrainTimeout == .milliseconds(500))
    }
}
