import Foundation
import IRCProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A persistent IRC connection over SwiftNIO (+ NIOSSL): registration with CAP/SASL, keepalive,
/// reconnects with backoff, a flood-controlled send queue, and channel/identity tracking.
///
/// The protocol logic is ``ConnectionStateMachine``; this actor is its I/O shell. It makes the
/// connections (TCP, TLS, line framing), feeds the machine what happens (a line read, a tick of the
/// maintenance timer, the close, a request) and carries out what the machine returns: writing lines,
/// queueing them behind the ``FloodGate``, emitting ``events``, closing. Per connection three tasks
/// run: the reader (lines from the socket, with back-pressure: the socket is not read while lines
/// wait), the writer (drains what the flood gate held back) and the maintenance tick.
///
/// Call ``run()`` once (it returns only after ``shutdown(quitMessage:)``, a fatal error, or cancellation of
/// its task) and consume ``events``. The event stream finishes when `run()` returns.
public actor IRCClient {
    /// Events for the layer above. Single consumer; when the consumer lags by more than
    /// ``IRCClientConfiguration/eventBufferSize`` events the oldest are dropped.
    public nonisolated let events: AsyncStream<IRCEvent>
    private nonisolated let eventSink: AsyncStream<IRCEvent>.Continuation
    public nonisolated let configuration: IRCClientConfiguration
    /// What the inbound line decoders have seen (buffer high-water mark, dropped overlong lines).
    public nonisolated let inboundStatistics = InboundLineStatistics()

    /// ``currentNick`` without waiting for the actor (the router asks for it on every command).
    public nonisolated var nick: String { nickSnapshot.withLockedValue { $0 } }
    private nonisolated let nickSnapshot: NIOLockedValueBox<String>
    private var publishedNick: String

    let logger: Logger
    let eventLoopGroup: any EventLoopGroup
    let clock = ContinuousClock()
    /// The protocol logic.
    var machine: ConnectionStateMachine

    // Lifetime.
    var isRunning = false
    var stopRequested = false
    /// Why the client cannot go on when the machine does not know (unusable TLS settings).
    var setupFailure: String?
    private var backoffSleep: Task<Void, Never>?
    private var runWaiters: [CheckedContinuation<Void, Never>] = []

    // Sending.
    var queue: SendQueue
    var receipts = WriteReceipts()
    var floodGate: FloodGate
    var writerWake: AsyncStream<Void>.Continuation?
    /// Lines to users who left dropped from the queue since it was last empty (said once it is).
    var linesDroppedForDepartures = 0
    /// The write receipt the shutdown waits for while queued lines drain (see ``shutdown(quitMessage:)``).
    var shutdownDrainWaiter: Int?

    // The current connection.
    var channel: (any Channel)?
    var connectionID = 0
    /// The first reason recorded for the end of the current connection.
    var closeReason: String?

    // Strict Transport Security (see IRCClient+STS.swift).
    /// Where policies are kept between runs (nil: in memory only, in ``sts``).
    let stsStore: (any STSPolicyStore)?
    /// The wall clock policies expire by.
    let wallClock: @Sendable () -> Date
    /// How the current connection was made, the upgrade and policy seen in this run: the rules.
    var sts = STSState()
    /// Writes to the store, in order.
    var stsWrites: Task<Void, Never>?

    /// WHOIS requests waiting for the server's answer (see ``whois(_:)``).
    var whoisWaiters = AnswerWaiters<WhoisReply?>()
    /// Commands sent on someone's behalf waiting for the server's word (see ``joinAnswered(_:key:)``).
    var requestWaiters = AnswerWaiters<RequestOutcome>()

    /// Creates a client; nothing happens until ``run()``. `stsStore` keeps the servers' STS policies
    /// between runs, and `wallClock` is the time they expire by.
    public init(
        configuration: IRCClientConfiguration,
        logger: Logger = Logger(label: "IRCClient"),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        stsStore: (any STSPolicyStore)? = nil,
        wallClock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.stsStore = stsStore
        self.wallClock = wallClock
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
        nickSnapshot = NIOLockedValueBox(configuration.nick)
        publishedNick = configuration.nick
        (events, eventSink) = Self.makeEventStream(limit: configuration.eventBufferSize)
        machine = ConnectionStateMachine(configuration: configuration, logLevel: logger.logLevel)
        queue = SendQueue(capacity: configuration.sendQueueCapacity)
        floodGate = FloodGate(
            burst: configuration.flood.burst,
            linesPerSecond: configuration.flood.linesPerSecond,
            now: ContinuousClock.now
        )
    }

    /// The client's event stream: one consumer; past `limit` (at least 16) waiting events the oldest
    /// is dropped; it ends after `finish()` or when the consuming task is cancelled.
    static func makeEventStream(limit: Int) -> (AsyncStream<IRCEvent>, AsyncStream<IRCEvent>.Continuation) {
        AsyncStream.makeStream(of: IRCEvent.self, bufferingPolicy: .bufferingNewest(max(16, limit)))
    }

    // MARK: Public queries

    /// The nick in use (the configured one until the server says otherwise).
    public var currentNick: String { machine.currentNick }
    /// `true` between the server's 001 and the end of that connection.
    public var isRegistered: Bool { machine.isRegistered }
    /// Why the last attempt to connect failed, until a connection is made.
    public internal(set) var lastConnectionFailure: String?
    /// Capabilities enabled on the current connection.
    public var enabledCapabilities: Set<String> { machine.enabledCapabilities }
    /// The services account logged in to with SASL on the current connection.
    public var account: String? { machine.account }
    /// Channels and user identities seen on the current connection.
    public var identityTracker: IdentityTracker { machine.identityTracker }

    /// The server's ISUPPORT values (defaults before the first 005).
    public var serverSupport: ServerSupport { machine.serverSupport }
    /// The bot user mode on the current connection, when the server names one (`BOT=`).
    public var botMode: BotMode? { machine.botMode }

    /// Who paces the lines sent: the server, when it advertises `SAFERATE`, else the flood gate at
    /// its burst and rate.
    public var pacing: Pacing {
        serverPaces
            ? .byServer : .byFloodGate(burst: Int(floodGate.burst), linesPerSecond: floodGate.linesPerSecond)
    }

    /// What is known about `nick` (see ``IdentityTracker``).
    public func identity(ofNick nick: String) -> UserIdentity? {
        machine.identityTracker.identity(ofNick: nick)
    }

    /// The members of `channel`, or `nil` when the client is not in it.
    public func members(ofChannel channel: String) -> [ChannelMember]? {
        machine.identityTracker.members(ofChannel: channel)
    }

    /// Channels the client is in.
    public var joinedChannels: [String] { machine.identityTracker.channelNames }

    /// Whether `channel` keeps strangers out, as the server said on this connection; nil while
    /// unknown (the client is not in it, or the server has not answered its MODE query yet).
    public func channelAccess(_ channel: String) -> ChannelAccess? {
        machine.channelModes.access(of: channel)
    }

    /// Normal lines waiting in the send queue.
    public var queuedLineCount: Int { queue.count }

    // MARK: Lifecycle

    /// Connects and keeps the connection up, reconnecting with backoff, until ``shutdown(quitMessage:)``,
    /// a fatal error, or cancellation of the calling task. Returns immediately if already running.
    public func run() async {
        guard !isRunning, !stopRequested else { return }
        isRunning = true
        var backoff = ReconnectBackoff(configuration.reconnect)
        var attempt = 0
        while !stopRequested, fatalReason == nil, !Task.isCancelled {
            attempt += 1
            let registeredFor = await runConnection(attempt: attempt)
            if stopRequested || fatalReason != nil || Task.isCancelled { break }
            if sts.takeReconnectAtOnce() { continue }
            if let registeredFor, registeredFor >= configuration.reconnect.resetAfter { backoff.reset() }
            let delay = backoff.nextDelay()
            logger.info("Reconnecting in \(ConnectionStateMachine.format(delay))")
            eventSink.yield(.reconnecting(after: delay))
            await sleepUnlessStopped(delay)
        }
        if let fatalReason { logger.error("IRC client stopped: \(fatalReason)") }
        await stsWrites?.value
        eventSink.yield(.stopped(reason: fatalReason))
        eventSink.finish()
        isRunning = false
        receipts.finishWaiters()
        let waiters = runWaiters
        runWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// Why the client stops for good, if it does.
    var fatalReason: String? { setupFailure ?? machine.fatalReason }

    /// Whether ``shutdown(quitMessage:)`` was called: a connection that ends now ends as asked.
    public var isShuttingDown: Bool { stopRequested }

    /// Sends QUIT after giving queued lines up to ``IRCClientConfiguration/shutdownDrainTimeout`` to go out,
    /// closes the connection and waits for ``run()`` to return. Lines still queued then are dropped, and
    /// the log says how many.
    public func shutdown(quitMessage: String? = nil) async {
        stopRequested = true
        machine.stopRequested()
        backoffSleep?.cancel()
        if let channel {
            let id = connectionID
            await drainQueue(connectionID: id, until: clock.now + configuration.shutdownDrainTimeout)
            if !queue.isEmpty {
                let drain = ConnectionStateMachine.format(configuration.shutdownDrainTimeout)
                logger.warning("Shutting down: \(queue.count) queued lines dropped, not sent within the \(drain) drain")
                // Nothing follows the QUIT.
                queue.removeAll()
                receipts.queueEmptied()
                linesDroppedForDepartures = 0
            }
            if id == connectionID {
                closeReason = "shutdown"
                write(.quit(quitMessage ?? configuration.quitMessage))
                // Give the server a moment to answer with ERROR and close; then close ourselves.
                let closeTimer = Task {
                    try? await Task.sleep(for: .seconds(1))
                    channel.close(promise: nil)
                }
                try? await channel.closeFuture.get()
                closeTimer.cancel()
            }
        } else if !queue.isEmpty {
            logger.warning("Shutting down while disconnected: \(queue.count) queued lines dropped")
        }
        guard isRunning else { return }
        // Checked again inside: `run()` may end while this call waits to re-enter the actor.
        await withCheckedContinuation { continuation in
            if isRunning { runWaiters.append(continuation) } else { continuation.resume() }
        }
    }

    /// Waits until every line queued so far has been written (its write receipt), the connection
    /// `id` ends, or `deadline` passes, whichever comes first. Nothing to wait for unless registered
    /// (lines go out only then).
    private func drainQueue(connectionID id: Int, until deadline: ContinuousClock.Instant) async {
        guard machine.isRegistered, !queue.isEmpty else { return }
        let ticket = receipts.lastTicket
        let waiter = receipts.makeWaiterID()
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            self.endShutdownDrain(waiter)
        }
        _ = await withCheckedContinuation { continuation in
            // The connection may have ended while this call waited to re-enter the actor.
            if id == connectionID, channel != nil {
                shutdownDrainWaiter = waiter
                receipts.addWaiter(id: waiter, ticket: ticket, continuation)
            } else {
                continuation.resume(returning: receipts.isSettled(upTo: ticket))
            }
        }
        shutdownDrainWaiter = nil
        timer.cancel()
    }

    /// Stops waiting for the shutdown drain (its time is up, or the connection ended).
    func endShutdownDrain(_ waiter: Int? = nil) {
        guard let current = shutdownDrainWaiter, waiter == nil || waiter == current else { return }
        receipts.cancelWaiter(current)
    }

    private func sleepUnlessStopped(_ delay: Duration) async {
        let task = Task<Void, Never> { try? await Task.sleep(for: delay) }
        backoffSleep = task
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        backoffSleep = nil
    }

    // MARK: Carrying out the machine's actions

    /// Does what a line from the server calls for, in order.
    func perform(_ actions: [LineAction]) {
        for action in actions {
            switch action {
            case .write(let message): write(message)
            case .enqueue(let message): enqueue(message)
            case .emit(let event): eventSink.yield(event)
            case .closeConnection(let reason): closeConnection(reason: reason)
            case .dropQueuedLines(let departure): dropQueuedLines(of: departure)
            case .discardQueuedLines(let outage): discardQueuedLines(after: outage)
            case .startSending: writerWake?.yield()
            case .sts(let directive): followSTS(directive)
            case .answerWhois(let waiters, let reply): whoisWaiters.answer(waiters, with: reply)
            case .answerRequest(let waiters, let outcome): requestWaiters.answer(waiters, with: outcome)
            case .log(let level, let text): logger.log(level: level, "\(text)")
            }
        }
        publishNick()
    }

    /// Does what a tick of the maintenance timer calls for, in order.
    func perform(_ actions: [TickAction]) {
        for action in actions {
            switch action {
            case .write(let message): write(message)
            case .enqueue(let message): enqueue(message)
            case .closeConnection(let reason): closeConnection(reason: reason)
            case .startSending: writerWake?.yield()
            case .answerWhois(let waiters, let reply): whoisWaiters.answer(waiters, with: reply)
            case .answerRequest(let waiters, let outcome): requestWaiters.answer(waiters, with: outcome)
            case .log(let level, let text): logger.log(level: level, "\(text)")
            }
        }
    }

    /// Does what a new connection calls for: reports it and writes the registration lines.
    func perform(_ actions: [ConnectedAction]) {
        for action in actions {
            switch action {
            case .emit(let event): eventSink.yield(event)
            case .write(let message): write(message)
            }
        }
        publishNick()
    }

    /// Does what the end of a connection calls for: the waiters learn nobody will answer, then the
    /// end is logged and reported.
    func perform(_ actions: [ClosedAction]) {
        for action in actions {
            switch action {
            case .cancelWhois(let waiters): whoisWaiters.answer(waiters, with: nil)
            case .cancelRequests(let waiters): requestWaiters.answer(waiters, with: .noAnswer)
            case .log(let level, let text): logger.log(level: level, "\(text)")
            case .emit(let event): eventSink.yield(event)
            }
        }
    }

    /// Does what a request of the client's user calls for.
    func perform(_ actions: [RequestAction]) {
        for action in actions {
            switch action {
            case .enqueue(let message): enqueue(message)
            case .answerWhoisNow(let waiter): whoisWaiters.answer([waiter], with: nil)
            case .answerRequest(let waiter, let outcome): requestWaiters.answer([waiter], with: outcome)
            }
        }
    }

    /// Closes the current connection (if any); `reason` is reported for it unless another was
    /// recorded first.
    private func closeConnection(reason: String) {
        guard let channel else { return }
        if closeReason == nil { closeReason = reason }
        channel.close(promise: nil)
    }

    /// Shows the nick the machine uses now to ``nick`` (only a line or a new connection changes it).
    private func publishNick() {
        guard machine.currentNick != publishedNick else { return }
        publishedNick = machine.currentNick
        nickSnapshot.withLockedValue { $0 = publishedNick }
    }

    /// Emits an event of the shell's own (connection attempts and failures).
    func emit(_ event: IRCEvent) {
        if case .connectionFailed(let reason) = event { lastConnectionFailure = reason }
        eventSink.yield(event)
    }
}

/// Who paces the lines a client sends (see ``IRCClient/pacing``).
public enum Pacing: Sendable, Hashable {
    /// The server slows a fast client rather than disconnect it (`SAFERATE`).
    case byServer
    /// The client's own flood gate: `burst` lines at once, then `linesPerSecond` (0: no limit).
    case byFloodGate(burst: Int, linesPerSecond: Double)
}
