import BotTesting
import Foundation
import HTTPBackends
import OnTheMapService
import Testing

/// Accounts and pins the Udacity tests share (each test runs its own server).
enum UdacityFixtures {
    static let ada = FakeUdacityServer.Account(
        email: "ada@example.org", password: "correct horse", key: "u2032", firstName: "Ada",
        lastName: "Lovelace", nickname: "ada")
    static let grace = FakeUdacityServer.Account(
        email: "grace@example.org", password: "cobol!", key: "3903878747", firstName: "Grace",
        lastName: "Hopper")

    /// Five pins updated one minute apart: pin-1 oldest … pin-5 newest.
    static func pins(base: Date = Date(timeIntervalSince1970: 1_700_000_000)) -> [FakeUdacityServer.Location] {
        (1...5).map { index in
            FakeUdacityServer.Location(
                objectId: "pin-\(index)", uniqueKey: "key-\(index)", firstName: "First\(index)",
                lastName: "Last\(index)", mapString: "Place \(index)",
                mediaURL: "https://example.org/\(index)",
                latitude: Double(index), longitude: Double(-index), createdAt: base,
                updatedAt: base.addingTimeInterval(Double(index) * 60 + 0.123))
        }
    }
}

/// Runs `body` with a started fake server and a directory pointed at it, then tears both down.
func withUdacity<T: Sendable>(
    accounts: [FakeUdacityServer.Account] = [UdacityFixtures.ada, UdacityFixtures.grace],
    locations: [FakeUdacityServer.Location] = [],
    requestTimeout: Duration = .seconds(15),
    _ body: (FakeUdacityServer, UdacityStudentDirectory) async throws -> T
) async throws -> T {
    let server = FakeUdacityServer(accounts: accounts, locations: locations, neverAnswerDelay: .seconds(20))
    let url = try await server.start()
    let directory: UdacityStudentDirectory
    do {
        directory = try UdacityStudentDirectory(
            configuration: .init(
                baseURL: url.absoluteString, connectTimeout: .seconds(10), requestTimeout: requestTimeout))
    } catch {
        await server.stop()
        throw error
    }
    do {
        let result = try await body(server, directory)
        await directory.shutdown()
        await server.stop()
        return result
    } catch {
        await directory.shutdown()
        await server.stop()
        throw error
    }
}

/// The `ServiceError` thrown by `operation`, or nil when it threw none (or another error).
func serviceError(_ operation: () async throws -> Void) async -> ServiceError? {
    do {
        try await operation()
        return nil
    } catch let error as ServiceError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

/// A URL on 127.0.0.1 where nothing listens: a fake server's port after it stopped.
func refusedURL(path: String) async throws -> String {
    let server = FakeNominatimServer()
    let url = try await server.start()
    await server.stop()
    return url.absoluteString + path
}
