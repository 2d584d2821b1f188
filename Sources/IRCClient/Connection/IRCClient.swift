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
/// queueing them behind the ``FloodGate``, emitting ``events``, closing.
///
/// Concurrency: the actor runs on one NIO event loop (its executor is that loop) and every connection
/// is made on the same loop, so the pipeline (TLS → line decoder → forwarder) and the actor share a
/// thread: a line read from the socket is handled by the actor inside the read event, without a task
/// switch, and a line the actor writes goes to the socket at once. Per connection, two child tasks
/// run beside the reader: the writer (drains what the flood gate held back) and a maintenance tick.
///
/// Call ``run()`` once (it returns only after ``shutdown(quitMessage:)``, a fatal error, or cancellation of
/// its task) and consume ``events``. The event stream finishes when `run()` returns.
public actor IRCClient {
    /// Events for the layer above. Single consumer; when the consumer lags by more than
    /// ``IRCClientConfiguration/eventBufferSize`` events the oldest are dropped.
    public nonisolated let events: IRCEventStream
    public nonisolated let configuration: IRCClientConfiguration
    /// What the inbound line decoders have seen (buffer high-water mark, dropped overlong lines).
    public nonisolated let inboundStatistics = InboundLineStatistics()

    /// ``currentNick`` without waiting for the actor (the router asks for it on every command).
    public nonisolated var nick: String { nickSnapshot.withLockedValue { $0 } }
    private nonisolated let nickSnapshot: NIOLockedValueBox<String>
    private var publishedNick: String

    let logger: Logger
    let eventLoopGroup: any EventLoopGroup
    /// The loop the actor and all its connections run on.
    nonisolated let eventLoop: any EventLoop
    let clock = ContinuousClock()
    /// The protocol logic.
    var machine: ConnectionStateMachine

    /// Runs tasks on the client's event loop: a task that prefers it talks to the client without a
    /// thread switch (the bot's event pump and command handlers use it; see ``EventLoopExecutor``).
    public nonisolated let taskExecutor: EventLoopExecutor

    /// The actor's jobs run on ``eventLoop`` (see the type's concurrency note).
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        taskExecutor.asUnownedSerialExecutor()
    }

    /// The actor's serial executor (the same ``EventLoopExecutor``): an actor that shares it calls
    /// the client, and is called back, inline, without a task switch (the bot's command router does).
    public nonisolated var serialExecutor: any SerialExecutor { taskExecutor }

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

    // The current connection.
    var channel: (any Channel)?
    var connectionID = 0
    /// The first reason recorded for the end of the current connection.
    var closeReason: String?
    /// Lines read before the actor has taken up their connection (between the socket's connect and
    /// the actor's resuming after it); handled, in order, once registration has begun.
    var earlyLines: [String]?

    /// WHOIS requests waiting for the server's answer, by waiter id (see ``whois(_:)``).
    var whoisWaiters: [Int: CheckedContinuation<WhoisReply?, Never>] = [:]
    var lastWhoisWaiter = 0

    /// Creates a client; nothing happens until ``run()``.
    public init(
        configuration: IRCClientConfiguration,
        logger: Logger = Logger(label: "IRCClient"),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.configuration = configuration
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
        eventLoop = eventLoopGroup.next()
        taskExecutor = EventLoopExecutor(eventLoop: eventLoop)
        nickSnapshot = NIOLockedValueBox(configuration.nick)
        publishedNick = configuration.nick
        events = IRCEventStream(limit: max(16, configuration.eventBufferSize))
        machine = ConnectionStateMachine(configuration: configuration, logger: logger)
        queue = SendQueue(capacity: configuration.sendQueueCapacity)
        floodGate = FloodGate(
            burst: configuration.flood.burst,
            linesPerSecond: configuration.flood.linesPerSecond,
            now: ContinuousClock.now
        )
    }

    // MARK: Public queries

    /// The nick in use (the configured one until the server says otherwise).
    public var currentNick: String { machine.currentNick }
    /// `true` between the server's 001 and the end of that connection.
    public var isRegistered: Bool { machine.isRegistered }
    /// Capabilities enabled on the current connection.
    public var enabledCapabilities: Set<String> { machine.enabledCapabilities }
    /// The services account logged in to with SASL on the current connection.
    public var account: String? { machine.account }
    /// Channels and user identities seen on the current connection.
    public var identityTracker: IdentityTracker { machine.identityTracker }

    /// The server's ISUPPORT values (defaults before the first 005).
    public var serverSupport: ServerSupport { machine.serverSupport }

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

    /// Whether the actor's code runs on its event loop now (tests check the executor wiring).
    func isOnItsEventLoop() -> Bool { eventLoop.inEventLoop }

    /// Normal lines waiting in the send queue.
    public var queuedLineCount: Int { queue.count }

    // MARK: Lifecycle

    /// Connects and keeps the connection up, reconnecting with backoff, until ``shutdown(quitMessage:)``,
    /// a fatal error, or cancellation of the calling task. Returns immediately if already running.
    public func run() async {
        guard !isRunning, !stopRequested else { return }
        isRunning = true
        // The reading loop and its child tasks prefer the client's event loop too: a line read from the
        // socket then reaches the actor without passing through the global executor (a thread wake-up).
        await withTaskExecutorPreference(taskExecutor) { await self.runConnections() }
    }

    private func runConnections() async {
        var backoff = ReconnectBackoff(configuration.reconnect)
        var attempt = 0
        while !stopRequested, fatalReason == nil, !Task.isCancelled {
            attempt += 1
            let registeredFor = await runConnection(attempt: attempt)
            if stopRequested || fatalReason != nil || Task.isCancelled { break }
            if let registeredFor, registeredFor >= configuration.reconnect.resetAfter { backoff.reset() }
            let delay = backoff.nextDelay()
            logger.info("Reconnecting in \(ConnectionStateMachine.format(delay))")
            events.yield(.reconnecting(after: delay))
            await sleepUnlessStopped(delay)
        }
        if let fatalReason { logger.error("IRC client stopped: \(fatalReason)") }
        events.yield(.stopped(reason: fatalReason))
        events.finish()
        isRunning = false
        receipts.finishWaiters()
        let waiters = runWaiters
        runWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// Why the client stops for good, if it does.
    var fatalReason: String? { setupFailure ?? machine.fatalReason }

    /// Sends QUIT after giving queued lines up to ``IRCClientConfiguration/shutdownDrainTimeout`` to go out,
    /// closes the connection and waits for ``run()`` to return. Lines still queued then are dropped, and
    /// the log says how many.
    public func shutdown(quitMessage: String? = nil) async {
        stopRequested = true
        machine.stopRequested()
        backoffSleep?.cancel()
        if let channel {
            let id = connectionID
            let deadline = clock.now + configuration.shutdownDrainTimeout
            while machine.isRegistered, !queue.isEmpty, clock.now < deadline, id == connectionID {
                try? await Task.sleep(for: .milliseconds(20))
            }
            if !queue.isEmpty {
                let drain = ConnectionStateMachine.format(configuration.shutdownDrainTimeout)
                logger.warning("Shutting down: \(queue.count) queued lines dropped, not sent within the \(drain) drain")
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
        // Checked again inside: the call may suspend before the closure runs (a task that does not
        // prefer the client's executor switches even to re-enter it), and `run()` may end meanwhile.
        await withCheckedContinuation { continuation in
            if isRunning { runWaiters.append(continuation) } else { continuation.resume() }
        }
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

    /// Does what the machine asked for, in order.
    func perform(_ actions: [ConnectionAction]) {
        for action in actions {
            switch action {
            case .write(let message):
                write(message)
            case .enqueue(let message):
                enqueue(message)
            case .emit(let event):
                events.yield(event)
            case .closeConnection(let reason):
                guard let channel else { continue }
                if closeReason == nil { closeReason = reason }
                channel.close(promise: nil)
            case .dropQueuedLines(let departure):
                dropQueuedLines(of: departure)
            case .discardQueuedLines(let outage):
                discardQueuedLines(after: outage)
            case .startSending:
                writerWake?.yield()
            case .answerWhois(let waiters, let reply):
                for id in waiters { whoisWaiters.removeValue(forKey: id)?.resume(returning: reply) }
            }
        }
        if machine.currentNick != publishedNick {
            publishedNick = machine.currentNick
            nickSnapshot.withLockedValue { $0 = publishedNick }
        }
    }

    /// Emits an event of the shell's own (connection attempts and failures).
    func emit(_ event: IRCEvent) {
        events.yield(event)
    }
}
