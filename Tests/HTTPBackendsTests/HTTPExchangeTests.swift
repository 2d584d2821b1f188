import AsyncHTTPClient
import Testing

@testable import HTTPBackends

@Suite("HTTP exchange")
struct HTTPExchangeTests {
    /// A client shared with the exchange is still the caller's to shut down; shutting down a shut
    /// client throws, so the second shutdown here proves the exchange left it alone.
    @Test func aSharedClientIsLeftRunning() async throws {
        let shared = HTTPExchange.makeClient(connectTimeout: .seconds(1), requestTimeout: .seconds(1))
        let exchange = HTTPExchange(
            sharing: shared, connectTimeout: .seconds(1), requestTimeout: .seconds(1), maximumBodyBytes: 1024)
        #expect(exchange.client === shared)
        #expect(!exchange.ownsClient)
        await exchange.shutdown()
        try await shared.shutdown()
    }

    /// Without a shared client the exchange makes one and shuts it down.
    @Test func anOwnClientIsShutDown() async throws {
        let exchange = HTTPExchange(
            sharing: nil, connectTimeout: .seconds(1), requestTimeout: .seconds(1), maximumBodyBytes: 1024)
        #expect(exchange.ownsClient)
        await exchange.shutdown()
        await #expect(throws: (any Error).self) { try await exchange.client.shutdown() }
    }
}
