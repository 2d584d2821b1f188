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
    /// Events recorded (and the return of `run()`) so far: a wait sleeps until this changes.
    private var changes = 0
    /// The waits sleeping until the next change.
    private var changeWaiters: [UUID: CheckedContinuation<Void, Never>] = [:]

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
        signalChange()
    }

    private func signalChange() {
        changes += 1
        let waiters = changeWaiters.values
        changeWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once something changed after the `seen`th change, or at `deadline` (the guard
    /// against an event that never comes), whichever is first.
    private func nextChange(after seen: Int, until deadline: ContinuousClock.Instant) async {
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            group.addTask {
                await withTaskCancellationHandler {
                    await self.change(after: seen, id: id)
                } onCancel: {
                    Task { await self.cancelChangeWait(id) }
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    private func change(after seen: Int, id: UUID) async {
        // Changed meanwhile, or cancelled before waiting: nothing to wait for (a cancellation after
        // this check is handled by `cancelChangeWait`, which runs on this actor after the wait is
        // registered).
        guard changes == seen, !Task.isCancelled else { return }
        await withCheckedContinuation { changeWaiters[id] = $0 }
    }

    private func cancelChangeWait(_ id: UUID) {
        changeWaiters.removeValue(forKey: id)?.resume()
    }

    /// The arrival times of the events matching `predicate`.
    func times(where predicate: (IRCEvent) -> Bool) -> [ContinuousClock.Instant] {
        zip(events, arrivalTimes).filter { predicate($0.0) }.map(\.1)
    }
    private func markReturned() {
        runReturned = true
        signalChange()
    }

    /// Waits for an event matching `predicate` that arrived after the first `skip` events: each
    /// event is looked at as it comes; `timeout` only bounds a wait for one that never comes.
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
            await nextChange(after: changes, until: deadline)
            try Task.checkCancellation()
        }
    }

    /// Waits until `count` events matching `predicate` have arrived (looked at as each comes).
    func waitForCount(
        _ what: String, atLeast count: Int, timeout: Duration = .seconds(30),
        where predicate: @Sendable (IRCEvent) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while events.filter(predicate).count < count {
            if ContinuousClock.now >= deadline {
                let summary = events.suffix(12).map { Self.describe($0) }.joined(separator: "\n  ")
                throw IRCTestSupportError.timeout("client waiting for \(what); last events:\n  \(summary)")
            }
            await nextChange(after: changes, until: deadline)
            try Task.checkCancellation()
        }
    }

    /// Waits until `condition` (on the client's state) holds: looked at now and again after each
    /// event, since every change of the client's state comes with one (an inbound line's
    /// `.message`, emitted once the line was handled); `timeout` only bounds a wait for a state
    /// never reached.
    func waitUntil(
        _ what: String, timeout: Duration = .seconds(30), _ condition: @Sendable () async -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let seen = changes
            if await condition() { return }
            if ContinuousClock.now >= deadline {
                let summary = events.suffix(12).map { Self.describe($0) }.joined(separator: "\n  ")
                throw IRCTestSupportError.timeout("client waiting for \(what); last events:\n  \(summary)")
            }
            await nextChange(after: seen, until: deadline)
            try Task.checkCancellation()
        }
    }

    /// Waits until `run()` has returned.
    func waitForRunToReturn(timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !runReturned {
            if ContinuousClock.now >= deadline { throw IRCTestSupportError.timeout("run() to return") }
            await nextChange(after: changes, until: deadline)
            try Task.checkCancellation()
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
