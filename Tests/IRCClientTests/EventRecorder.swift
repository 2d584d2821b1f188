import BotTesting
import Foundation
import IRCClient
import IRCProtocol
import Logging

/// Runs a client and records its events for assertions.
actor EventRecorder {
    private(set) var events: [IRCEvent] = []
    /// When each event of ``events`` arrived.
    private(set) var arrivalTimes: [ContinuousClock.Instant] = []
    private var consumer: Task<Void, Never>?
    private var runner: Task<Void, Never>?
    private(set) var runReturned = false
    let client: IRCClient

    init(client: IRCClient) {
        self.client = client
    }

    /// Starts consuming events and `client.run()`.
    static func start(
        _ configuration: IRCClientConfiguration,
        logger: Logger = Logger(label: "IRCClient"),
        stsStore: (any STSPolicyStore)? = nil,
        wallClock: @escaping @Sendable () -> Date = { Date() }
    ) async -> EventRecorder {
        let client = IRCClient(configuration: configuration, logger: logger, stsStore: stsStore, wallClock: wallClock)
        let recorder = EventRecorder(client: client)
        await recorder.begin()
        return recorder
    }

    private func begin() {
        let client = self.client
        consumer = Task { [weak self] in
            for await event in client.events {
                await self?.record(event)
            }
        }
        runner = Task { [weak self] in
            await client.run()
            await self?.markReturned()
        }
    }

    private func record(_ event: IRCEvent) {
        events.append(event)
        arrivalTimes.append(.now)
    }

    /// The arrival times of the events matching `predicate`.
    func times(where predicate: (IRCEvent) -> Bool) -> [ContinuousClock.Instant] {
        zip(events, arrivalTimes).filter { predicate($0.0) }.map(\.1)
    }
    private func markReturned() { runReturned = true }

    /// Waits for an event matching `predicate` that arrived after the first `skip` events.
    @discardableResult
    func waitFor(
        _ what: String,
        timeout: Duration = .seconds(30),
        after skip: Int = 0,
        where predicate: @Sendable (IRCEvent) -> Bool
    ) async throws -> IRCEvent {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let event = events.dropFirst(skip).first(where: predicate) { return event }
            if ContinuousClock.now >= deadline {
                let summary = events.suffix(12).map { Self.describe($0) }.joined(separator: "\n  ")
                throw IRCTestSupportError.timeout("client waiting for \(what); last events:\n  \(summary)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits until `run()` has returned.
    func waitForRunToReturn(timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !runReturned {
            if ContinuousClock.now >= deadline { throw IRCTestSupportError.timeout("run() to return") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func count(where predicate: (IRCEvent) -> Bool) -> Int { events.filter(predicate).count }

    /// Shuts the client down and waits for `run()` to return.
    func stop() async {
        await client.shutdown(quitMessage: "test over")
        await runner?.value
        consumer?.cancel()
    }

    static func describe(_ event: IRCEvent) -> String {
        if case .message(let message) = event { return "message(\(message.serialized()))" }
        return "\(event)"
    }
}

extension IRCEvent {
    var isRegistered: Bool { if case .registered = self { true } else { false } }
    var isDisconnected: Bool { if case .disconnected = self { true } else { false } }
    var isConnecting: Bool { if case .connecting = self { true } else { false } }
    var isConnected: Bool { if case .connected = self { true } else { false } }
    var connectionFailureReason: String? {
        if case .connectionFailed(let reason) = self { reason } else { nil }
    }
    var joinedChannel: String? { if case .joined(let channel) = self { channel } else { nil } }
    var userMessage: IRCUserMessage? { if case .privmsg(let message) = self { message } else { nil } }
    var saslFailureReason: String? { if case .saslFailed(let reason) = self { reason } else { nil } }
}

/// A configuration for live tests: short timings, given server and TLS settings.
func testConfiguration(
    port: Int,
    tls: IRCClientConfiguration.TLS,
    nick: String,
    channels: [String] = [],
    sasl: IRCClientConfiguration.SASL? = nil
) -> IRCClientConfiguration {
    IRCClientConfiguration(
        host: "127.0.0.1",
        port: port,
        tls: tls,
        nick: nick,
        altNicks: [nick + "_"],
        username: "otm",
        realname: "On The Map test bot",
        sasl: sasl,
        channels: channels.map { .init($0) },
        keepalive: .init(pingAfterSilence: .seconds(20), timeout: .seconds(10)),
        reconnect: .init(
            minimumDelay: .milliseconds(200),
            maximumDelay: .seconds(1),
            jitter: 0.1,
            resetAfter: .seconds(5)
        ),
        retry: .init(
            rejoinAfterKick: .milliseconds(300),
            rejoinAfterRefusal: .seconds(1),
            nickRegainInterval: .seconds(1)
        ),
        connectTimeout: .seconds(5),
        registrationTimeout: .seconds(15)
    )
}
