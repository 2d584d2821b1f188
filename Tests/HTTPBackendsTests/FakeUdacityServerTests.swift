import BotTesting
import Foundation
import OnTheMapService
import Testing

@testable import HTTPBackends

/// Checks of the fake server's wire format itself, read raw (no client parsing in between).
@Suite("Fake Udacity server wire format")
struct FakeUdacityServerTests {
    private func rawGET(_ exchange: HTTPExchange, _ url: String) async throws -> HTTPReply {
        try await exchange.send(
            method: "GET", url: url, headers: [("Accept", "application/json")], body: nil, logPath: "test")
    }

    @Test func thePrefixIsOnSessionAndUsersAnswersOnlyAndCanBeSwitchedOff() async throws {
        let server = FakeUdacityServer(accounts: [UdacityFixtures.ada], locations: UdacityFixtures.pins())
        let base = try await server.start().absoluteString
        let client = HTTPExchange.makeClient(connectTimeout: .seconds(10), requestTimeout: .seconds(15))
        let exchange = HTTPExchange(
            client: client, requestTimeout: .seconds(5), maximumBodyBytes: 1 << 20)
        let prefix = Data(")]}'\n".utf8)

        let login = try await exchange.send(
            method: "POST", url: base + "/session", headers: [("Content-Type", "application/json")],
            body: Data(#"{"udacity": {"username": "ada@example.org", "password": "correct horse"}}"#.utf8),
            logPath: "test")
        #expect(login.status == 200)
        #expect(login.body.prefix(5) == prefix)
        #expect(login.headerValues("set-cookie").first?.hasPrefix("XSRF-TOKEN=") == true)
        let expiration = JSONValue.parse(login.body.dropFirst(5))?["session"]?["expiration"]?.text ?? ""
        #expect(expiration.count == "2015-05-10T16:48:30.760460Z".count, "microseconds: \(expiration)")

        let user = try await rawGET(exchange, base + "/users/u2032")
        #expect(user.body.prefix(5) == prefix)
        let list = try await rawGET(exchange, base + "/StudentLocation?limit=1")
        #expect(list.body.first == UInt8(ascii: "{"))
        let updatedAt = JSONValue.parse(list.body)?["results"]?.arrayValue?.first?["updatedAt"]?.text ?? ""
        #expect(updatedAt.count == "2015-02-25T01:10:38.103Z".count, "milliseconds: \(updatedAt)")

        await server.setFault(.prefixMissing)
        let bare = try await rawGET(exchange, base + "/users/u2032")
        #expect(bare.body.first == UInt8(ascii: "{"))

        await server.clearFaults()
        let badOrder = try await rawGET(exchange, base + "/StudentLocation?order=name")
        #expect(badOrder.status == 400)

        try await client.shutdown()
        await server.stop()
    }

    /// Each of the four orders sorts by its own time in its own direction, and no order keeps the
    /// order the pins were stored in (here created newest first, updated oldest first).
    @Test func theListIsSortedByTheOrderAsked() async throws {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let pins = UdacityFixtures.pins(base: base).enumerated().map { index, pin in
            var pin = pin
            pin.createdAt = base.addingTimeInterval(Double(-index) * 60)
            return pin
        }
        let server = FakeUdacityServer(locations: pins)
        let url = try await server.start().absoluteString
        let client = HTTPExchange.makeClient(connectTimeout: .seconds(10), requestTimeout: .seconds(15))
        let exchange = HTTPExchange(client: client, requestTimeout: .seconds(5), maximumBodyBytes: 1 << 20)
        func ids(_ query: String) async throws -> [String] {
            let reply = try await rawGET(exchange, url + "/StudentLocation" + query)
            let results = JSONValue.parse(reply.body)?["results"]?.arrayValue ?? []
            return results.compactMap { $0["objectId"]?.text }
        }
        let oldestFirst = ["pin-1", "pin-2", "pin-3", "pin-4", "pin-5"]
        #expect(try await ids("?order=updatedAt") == oldestFirst)
        #expect(try await ids("?order=-updatedAt") == oldestFirst.reversed())
        #expect(try await ids("?order=createdAt") == oldestFirst.reversed())
        #expect(try await ids("?order=-createdAt") == oldestFirst)
        #expect(try await ids("") == oldestFirst)
        try await client.shutdown()
        await server.stop()
    }

    @Test func faultsCanBeLimitedToOneRoute() async throws {
        try await withUdacity(locations: UdacityFixtures.pins()) { server, directory in
            await server.setFault(.serverError(500), on: [.studentLocation])
            let session = try await directory.logIn(email: "ada@example.org", password: "correct horse")
            #expect(session.accountKey == "u2032")
            let error = await serviceError { _ = try await directory.recentLocations(limit: 5, skip: 0) }
            #expect(error == .backendFailure(status: 500, message: "Simulated server error."))
            await server.clearFaults()
            let locations = try await directory.recentLocations(limit: 5, skip: 0)
            #expect(locations.count == 5)
        }
    }

    @Test func aStoppedServerCanBeStartedAgainWithItsData() async throws {
        let server = FakeUdacityServer(locations: UdacityFixtures.pins())
        let first = try await server.start()
        #expect(try await server.start() == first, "starting twice returns the same URL")
        await server.stop()
        #expect(await server.baseURL == nil)
        let second = try await server.start()
        let directory = try UdacityStudentDirectory(configuration: .init(baseURL: second.absoluteString))
        let locations = try await directory.recentLocations(limit: 100, skip: 0)
        #expect(locations.count == 5)
        await directory.shutdown()
        await server.stop()
    }
}
