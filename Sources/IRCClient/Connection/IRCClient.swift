import IRCProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// A persistent IRC connection over SwiftNIO (+ NIOSSL): registration with CAP/SASL, keepalive,
/// reconnects with backoff, a flood-controlled send queue, and channel/identity tracking.
///
/// Concurrency: the client is an actor; all protocol state lives in it. The actor runs on one NIO event
/// loop (its executor is that loop) and every connection is made on the same loop, so the pipeline (TLS →
/// line decoder → forwarder) and the actor share a thread: a line read from the socket is handled by the
/// actor inside the read event, without a task switch, and a line the actor writes goes to the socket at once.
/// A line queued while the ``FloodGate`` allows it is written directly; per connection, two child tasks run
/// beside the reader: the writer (drains what had to wait) and a maintenance tick (keepalive, registration
/// timeout, rejoins, nick regain).
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

    /// The nick in use (the configured one until the server says otherwise).
    public private(set) var currentNick: String {
        didSet { nickSnapshot.withLockedValue { $0 = currentNick } }
    }
    /// ``currentNick`` without waiting for the actor (the router asks for it on every command).
    public nonisolated var nick: String { nickSnapshot.withLockedValue { $0 } }
    private nonisolated let nickSnapshot: NIOLockedValueBox<String>
    /// `true` between the server's 001 and the end of that connection.
    public private(set) var isRegistered = false
    /// Capabilities enabled on the current connection.
    public private(set) var enabledCapabilities: Set<String> = []
    /// The services account logged in to with SASL on the current connection.
    public private(set) var account: String?
    /// Channels and user identities seen on the current connection.
    public private(set) var identityTracker = IdentityTracker()

    let logger: Logger
    private let eventLoopGroup: any EventLoopGroup
    /// The loop the actor and all its connections run on.
    private nonisolated let eventLoop: any EventLoop
    let clock = ContinuousClock()

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
    private var isRunning = false
    private var stopRequested = false
    private var fatalReason: String?
    private var backoffSleep: Task<Void, Never>?
    private var runWaiters: [CheckedContinuation<Void, Never>] = []

    // Sending.
    private var queue: SendQueue
    private var receipts = WriteReceipts()
    private var floodGate: FloodGate
    private var writerWake: AsyncStream<Void>.Continuation?

    // The current connection.
    private var channel: (any Channel)?
    private var connectionID = 0
    private var closeReason: String?
    private var connectedAt: ContinuousClock.Instant?
    private var disconnectedAt: ContinuousClock.Instant?
    private var registeredAt: ContinuousClock.Instant?
    private var lastReceivedAt: ContinuousClock.Instant?
    private var pingSentAt: ContinuousClock.Instant?
    private var pingRetries = 0
    private var capabilities = CapabilityNegotiator(saslMechanism: nil)
    private var capEndSent = false
    private var sasl = SASLProgress.idle
    private var saslGivenUp = false
    private var nicks: NickSequence
    private var desiredChannels: [String: IRCClientConfiguration.ChannelJoin] = [:]
    private var pendingJoins: [String: ContinuousClock.Instant] = [:]
    private var nextNickRegain: ContinuousClock.Instant?
    /// Lines read before the actor has taken up their connection (between the socket's connect and
    /// the actor's resuming after it); handled, in order, once registration has begun.
    private var earlyLines: [String]?

    // Who is online (see IRCClient+Presence.swift).
    /// The nicks watched with MONITOR or WATCH on the current connection.
    var presence = PresenceWatch()
    /// WHOIS requests waiting for the server's answer.
    var whoisLookups = WhoisLookups<CheckedContinuation<WhoisReply?, Never>>()
    /// While the client is not on its configured nick: whether that nick is watched (MONITOR/WATCH),
    /// else when to ask again with ISON.
    var configuredNickWatched = false
    var nextConfiguredNickCheck: ContinuousClock.Instant?

    private enum SASLProgress {
        case idle, awaitingContinuation, payloadSent, finished
    }

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
        events = IRCEventStream(limit: max(16, configuration.eventBufferSize))
        currentNick = configuration.nick
        queue = SendQueue(capacity: configuration.sendQueueCapacity)
        floodGate = FloodGate(
            burst: configuration.flood.burst,
            linesPerSecond: configuration.flood.linesPerSecond,
            now: ContinuousClock.now
        )
        nicks = NickSequence(primary: configuration.nick, alternates: configuration.altNicks)
        for join in configuration.channels { desiredChannels[join.name.lowercased()] = join }
    }

    // MARK: Public queries

    /// The server's ISUPPORT values (defaults before the first 005).
    public var serverSupport: ServerSupport { identityTracker.serverSupport }

    /// What is known about `nick` (see ``IdentityTracker``).
    public func identity(ofNick nick: String) -> UserIdentity? {
        identityTracker.identity(ofNick: nick)
    }

    /// The members of `channel`, or `nil` when the client is not in it.
    public func members(ofChannel channel: String) -> [ChannelMember]? {
        identityTracker.members(ofChannel: channel)
    }

    /// Channels the client is in.
    public var joinedChannels: [String] { identityTracker.channelNames }

    /// Whether the actor's code runs on its event loop now (tests check the executor wiring).
    func isOnItsEventLoop() -> Bool { eventLoop.inEventLoop }

    /// Normal lines waiting in the send queue.
    public var queuedLineCount: Int { queue.count }

    /// Waits until every line queued so far (`send`, `sendPrivmsg`, `sendNotice`…) has been written
    /// to the connection; true when it was, false when the client stopped first or the calling
    /// task was cancelled. Lines dropped from a full queue count as gone.
    public func waitUntilQueuedLinesAreWritten() async -> Bool {
        let ticket = receipts.lastTicket
        if receipts.isSettled(upTo: ticket) { return true }
        guard isRunning, !stopRequested else { return false }
        let id = receipts.makeWaiterID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // The client may have stopped, or the task been cancelled, before this runs.
                if isRunning, !stopRequested, !Task.isCancelled {
                    receipts.addWaiter(id: id, ticket: ticket, continuation)
                } else {
                    continuation.resume(returning: receipts.isSettled(upTo: ticket))
                }
            }
        } onCancel: {
            Task { await self.cancelWriteWaiter(id) }
        }
    }

    private func cancelWriteWaiter(_ id: Int) { receipts.cancelWaiter(id) }

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
            logger.info("Reconnecting in \(Self.format(delay))")
            emit(.reconnecting(after: delay))
            await sleepUnlessStopped(delay)
        }
        if let fatalReason { logger.error("IRC client stopped: \(fatalReason)") }
        emit(.stopped(reason: fatalReason))
        events.finish()
        isRunning = false
        receipts.finishWaiters()
        let waiters = runWaiters
        runWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// Sends QUIT after giving queued lines up to ``IRCClientConfiguration/shutdownDrainTimeout`` to go out,
    /// closes the connection and waits for ``run()`` to return. Lines still queued then are dropped, and
    /// the log says how many.
    public func shutdown(quitMessage: String? = nil) async {
        stopRequested = true
        backoffSleep?.cancel()
        if let channel {
            let id = connectionID
            let deadline = clock.now + configuration.shutdownDrainTimeout
            while isRegistered, !queue.isEmpty, clock.now < deadline, id == connectionID {
                try? await Task.sleep(for: .milliseconds(20))
            }
            if !queue.isEmpty {
                logger.warning(
                    "Shutting down: \(queue.count) queued lines dropped, not sent within the \(Self.format(configuration.shutdownDrainTimeout)) drain"
                )
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

    // MARK: Sending

    /// Sends a message. PONG, CAP, AUTHENTICATE and QUIT are written at once (priority lane); everything
    /// else goes through the flood-controlled queue and is sent once registered. NUL/CR/LF never leave.
    public func send(_ message: IRCMessage) {
        switch message.command.uppercased() {
        case "PONG", "CAP", "AUTHENTICATE", "QUIT":
            guard channel != nil else { return }
            write(message)
        case "PRIVMSG", "NOTICE":
            enqueue(message, fairnessKey: message.parameters.first?.lowercased())
        default:
            enqueue(message)
        }
    }

    /// Sends `text` as one or more PRIVMSGs: split on line breaks and at word boundaries so each line fits
    /// after the server's prefix (at most `maxLines` lines); no NUL, CR or LF can be sent.
    ///
    /// `fairnessKey` says on whose behalf the lines go (the asker's nick for a reply in a channel); when the
    /// queue is backed up, keys are served round-robin (see ``SendQueue``). It defaults to `target`.
    public func sendPrivmsg(to target: String, text: String, maxLines: Int = 10, fairnessKey: String? = nil) {
        send(texts: [OutgoingText(.privmsg, to: target, text: text, maxLines: maxLines, fairnessKey: fairnessKey)])
    }

    /// Sends `text` as one or more NOTICEs (see ``sendPrivmsg(to:text:maxLines:fairnessKey:)``).
    public func sendNotice(to target: String, text: String, maxLines: Int = 10, fairnessKey: String? = nil) {
        send(texts: [OutgoingText(.notice, to: target, text: text, maxLines: maxLines, fairnessKey: fairnessKey)])
    }

    /// Queues several texts at once (each split like ``sendPrivmsg(to:text:maxLines:fairnessKey:)``);
    /// the lines the flood gate lets through now leave in one write to the socket.
    ///
    /// When the queue is long, each asker's channel answer in `texts` shrinks to one line
    /// (``OutgoingText/shrunk(_:isChannel:)``).
    public func send(texts: [OutgoingText]) {
        let support = identityTracker.serverSupport
        let isChannel = { (target: String) in support.isChannel(target) }
        let texts = queue.count >= Self.shrinkingBacklog ? OutgoingText.shrunk(texts, isChannel: isChannel) : texts
        let textsPerKey = OutgoingText.textsPerKey(texts)
        for outgoing in texts {
            let key = (outgoing.fairnessKey ?? outgoing.target).lowercased()
            let command = outgoing.kind == .notice ? "NOTICE" : "PRIVMSG"
            let messages = splitText(
                outgoing.text, command: command, target: outgoing.target, maxLines: outgoing.maxLines)
            let budget = textBudget(command: command, target: outgoing.target)
            for message in messages {
                let answer = SendQueue.Answer(
                    command: command, target: message.parameters[0], isChannel: isChannel(outgoing.target),
                    text: message.parameters[message.parameters.count - 1], asker: outgoing.fairnessKey,
                    isWholeAnswer: messages.count == 1 && textsPerKey[key] == 1, textBudget: budget)
                queueLine(message, fairnessKey: key, answer: answer)
            }
        }
        if writeReadyLines() { writerWake?.yield() }
    }

    /// Queued lines from which channel answers shrink to one line.
    static let shrinkingBacklog = 5

    /// Joins `channel` now (if registered) and after every reconnect.
    public func join(_ channel: String, key: String? = nil) {
        desiredChannels[channel.lowercased()] = .init(channel, key: key)
        if isRegistered { enqueue(.join(channel, key: key)) }
    }

    /// Leaves `channel` and stops rejoining it.
    public func part(_ channel: String, reason: String? = nil) {
        desiredChannels.removeValue(forKey: channel.lowercased())
        pendingJoins.removeValue(forKey: channel.lowercased())
        if isRegistered { enqueue(.part(channel, reason: reason)) }
    }

    // MARK: Connection

    /// One connection from connect to close; returns how long it stayed registered (nil if it never was).
    private func runConnection(attempt: Int) async -> Duration? {
        emit(.connecting(host: configuration.host, port: configuration.port, attempt: attempt))
        logger.info("Connecting to \(configuration.host):\(configuration.port) (attempt \(attempt))")
        let tlsSetup: IRCTLSSetup?
        do {
            tlsSetup =
                configuration.tls.enabled
                ? try IRCTLSSetup(configuration: configuration.tls, host: configuration.host, logger: logger)
                : nil
        } catch {
            // Unusable TLS settings will not fix themselves: stop rather than retry forever.
            fatalReason = "TLS configuration: \(error)"
            emit(.connectionFailed(reason: fatalReason ?? ""))
            return nil
        }
        let (signals, signalSink) = AsyncStream.makeStream(of: ConnectionSignal.self)
        let maximumLineLength = configuration.maximumLineLength
        let decoderLogger = logger
        let statistics = inboundStatistics
        // The pipeline runs on the actor's own executor (the event loop), so a decoded line is handled
        // in the actor right away, without a task switch (see IRCLineForwarder).
        earlyLines = []
        let deliverLine: @Sendable (String) -> Void = { line in
            self.assumeIsolated { client in client.receiveLine(line) }
        }
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(.nanoseconds(Self.nanoseconds(configuration.connectTimeout)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let tlsSetup { try pipeline.addHandler(try tlsSetup.makeHandler()) }
                    try pipeline.addHandler(
                        ByteToMessageHandler(
                            IRCLineDecoder(
                                maximumLineLength: maximumLineLength,
                                logger: decoderLogger,
                                statistics: statistics
                            )
                        )
                    )
                    try pipeline.addHandler(IRCLineForwarder(continuation: signalSink, deliver: deliverLine))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: configuration.host, port: configuration.port).get()
        } catch {
            signalSink.finish()
            let reason = "cannot connect to \(configuration.host):\(configuration.port): \(error)"
            logger.warning("\(reason)")
            emit(.connectionFailed(reason: reason))
            return nil
        }
        if stopRequested || Task.isCancelled {
            try? await channel.close()
            return nil
        }
        connectionID += 1
        let id = connectionID
        startConnection(channel)
        emit(.connected(host: configuration.host, port: configuration.port))
        beginRegistration()
        let early = earlyLines ?? []
        earlyLines = nil
        for line in early { handleLine(line) }

        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.runWriter(connectionID: id) }
            group.addTask { await self.runMaintenance(connectionID: id) }
            for await signal in signals {
                switch signal {
                case .closed(let error):
                    if closeReason == nil { closeReason = error }
                }
            }
            group.cancelAll()
        }
        if channel.isActive { try? await channel.close() }
        var reason = closeReason ?? "connection closed by the server"
        if let pinFailure = tlsSetup?.lastPinFailure { reason = pinFailure.description }
        if let tlsSetup, !isRegistered, reason.hasPrefix(IRCLineForwarder.certificateRefused) {
            reason = await explainRefusedCertificate(tlsSetup, fallback: reason)
        }
        let registeredFor = registeredAt.map { $0.duration(to: clock.now) }
        let wasRegistered = isRegistered
        endConnection()
        if stopRequested {
            logger.info("Connection to \(configuration.host) closed: \(reason)")
        } else {
            logger.warning("Connection to \(configuration.host) ended: \(reason)")
        }
        emit(wasRegistered ? .disconnected(reason: reason) : .connectionFailed(reason: reason))
        return registeredFor
    }

    /// The reason for refusing a server certificate, in words (expired, wrong name, untrusted), logged
    /// as an error: a refused certificate is never a reason to connect without TLS.
    private func explainRefusedCertificate(_ tlsSetup: IRCTLSSetup, fallback: String) async -> String {
        let server = "\(configuration.host):\(configuration.port)"
        var reason = fallback
        if let leaf = await CertificateDiagnosis.probe(
            host: configuration.host,
            port: configuration.port,
            serverHostname: tlsSetup.serverHostname,
            group: eventLoopGroup,
            timeout: configuration.connectTimeout
        )?.first {
            let problems = CertificateDiagnosis.problems(
                leaf: leaf,
                expectedName: tlsSetup.expectedName,
                trusted: tlsSetup.trustedCertificates
            )
            if !problems.isEmpty {
                reason = "TLS certificate refused: \(problems.joined(separator: "; "))"
            }
        }
        logger.error("Refusing the TLS connection to \(server): \(reason) (no plaintext fallback)")
        return reason
    }

    private func startConnection(_ channel: any Channel) {
        self.channel = channel
        let now = clock.now
        closeReason = nil
        connectedAt = now
        registeredAt = nil
        lastReceivedAt = now
        pingSentAt = nil
        pingRetries = 0
        isRegistered = false
        account = nil
        enabledCapabilities = []
        capEndSent = false
        sasl = .idle
        let mechanism = saslGivenUp ? nil : configuration.sasl?.mechanism.rawValue
        capabilities = CapabilityNegotiator(saslMechanism: mechanism)
        nicks = NickSequence(primary: configuration.nick, alternates: configuration.altNicks)
        currentNick = configuration.nick
        identityTracker = IdentityTracker()
        pendingJoins = [:]
        nextNickRegain = nil
        resetPresence()
    }

    private func endConnection() {
        channel = nil
        disconnectedAt = clock.now
        isRegistered = false
        registeredAt = nil
        writerWake?.finish()
        writerWake = nil
        identityTracker.reset()
        resetPresence()
    }

    /// Closes the current connection; `reason` becomes the reported disconnect reason.
    private func dropConnection(_ reason: String) {
        guard let channel else { return }
        if closeReason == nil { closeReason = reason }
        logger.warning("Dropping the connection: \(reason)")
        channel.close(promise: nil)
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

    // MARK: Registration

    private func beginRegistration() {
        if let password = configuration.serverPassword, !password.isEmpty {
            write(IRCMessage(command: "PASS", parameters: [password]))
        }
        write(.cap("LS", "302"))
        write(.nick(currentNick))
        write(.user(configuration.username, realName: configuration.realname))
    }

    private func handleCapabilityActions(_ actions: [CapabilityNegotiator.Action]) {
        enabledCapabilities = capabilities.enabled
        for action in actions {
            switch action {
            case .send(let message):
                write(message)
            case .startSASL:
                guard let saslConfiguration = configuration.sasl else {
                    endCapabilityNegotiation()
                    continue
                }
                sasl = .awaitingContinuation
                write(IRCMessage(command: "AUTHENTICATE", parameters: [saslConfiguration.mechanism.rawValue]))
            case .end:
                if let saslConfiguration = configuration.sasl, !saslGivenUp,
                    !capabilities.enabled.contains("sasl")
                {
                    let mechanism = saslConfiguration.mechanism.rawValue
                    saslFailed(
                        capabilities.saslOffered == true
                            ? "the server refused the sasl capability"
                            : "the server does not offer SASL \(mechanism)"
                    )
                    if fatalReason != nil { return }
                }
                endCapabilityNegotiation()
            }
        }
    }

    private func endCapabilityNegotiation() {
        capabilities.finish()
        guard !capEndSent else { return }
        capEndSent = true
        write(.cap("END"))
    }

    private func sendSASLPayload() {
        guard let saslConfiguration = configuration.sasl else { return }
        let payload: [UInt8]
        switch saslConfiguration.mechanism {
        case .plain:
            payload = SASLPayload.plain(
                username: saslConfiguration.username,
                password: saslConfiguration.password
            )
        case .external:
            payload = SASLPayload.external()
        }
        for message in SASLPayload.authenticateMessages(for: payload) { write(message) }
        sasl = .payloadSent
    }

    /// Reports a SASL failure once; stops the client if SASL is required, else registers without it.
    private func saslFailed(_ reason: String) {
        sasl = .finished
        guard !saslGivenUp else { return }
        saslGivenUp = true
        logger.error("SASL authentication failed: \(reason)")
        emit(.saslFailed(reason: reason))
        if configuration.sasl?.required == true {
            fatalReason = "SASL authentication failed and is required: \(reason)"
            closeReason = fatalReason
            write(.quit(configuration.quitMessage))
            dropConnection(fatalReason ?? reason)
        } else if capabilities.pending.isEmpty {
            endCapabilityNegotiation()
        }
    }

    private func registered(as nick: String) {
        if !capEndSent { capabilities.finish() }
        if configuration.sasl?.required == true, account == nil, fatalReason == nil {
            saslFailed("registered without SASL (the server did not negotiate it)")
            if fatalReason != nil { return }
        }
        isRegistered = true
        registeredAt = clock.now
        currentNick = nick
        logger.info("Registered on \(configuration.host) as \(nick)")
        emit(.registered(nick: nick))
        dropStaleQueuedLines()
        // The JOINs go out before anything queued, so replies queued for a channel while the connection
        // was down reach it after the rejoin (the server handles a client's lines in order).
        for join in desiredChannels.values.sorted(by: { $0.name < $1.name }) {
            write(.join(join.name, key: join.key))
        }
        if !namesEqual(nick, configuration.nick) {
            nextNickRegain = clock.now + configuration.retry.nickRegainInterval
        }
        writerWake?.yield()
    }

    /// Lines queued before (or during) an outage are sent after the reconnect only if the outage was
    /// shorter than ``IRCClientConfiguration/Reconnect/keepQueuedLinesFor``; older replies would only
    /// confuse. Lines already written to the lost socket are never sent again (nobody knows which of
    /// them reached the server), so nothing is said twice.
    private func dropStaleQueuedLines() {
        guard let disconnectedAt else { return }
        self.disconnectedAt = nil
        let outage = disconnectedAt.duration(to: clock.now)
        guard outage > configuration.reconnect.keepQueuedLinesFor, !queue.isEmpty else { return }
        let count = queue.count
        queue.removeAll()
        receipts.queueEmptied()
        let limit = Self.format(configuration.reconnect.keepQueuedLinesFor)
        logger.warning(
            "Dropped \(count) queued line(s): the connection was down for \(Self.format(outage)), longer than \(limit)"
        )
    }

    private func nickRefused(_ message: IRCMessage) {
        let refused = message.parameters.count >= 2 ? message.parameters[1] : currentNick
        guard !isRegistered else {
            logger.debug("Nick \(refused) is not available (\(message.command))")
            return
        }
        let next = nicks.next(afterErroneous: message.command == "432")
        logger.info("Nick \(refused) refused (\(message.command)); trying \(next)")
        currentNick = next
        write(.nick(next))
    }

    func regainNick() {
        guard isRegistered, !namesEqual(currentNick, configuration.nick) else { return }
        logger.info("Trying to regain the nick \(configuration.nick)")
        enqueue(.nick(configuration.nick))
        nextNickRegain = clock.now + configuration.retry.nickRegainInterval
    }

    // MARK: Inbound

    /// A line from the pipeline: handled now, or kept until the connection is taken up.
    private func receiveLine(_ line: String) {
        if earlyLines != nil {
            earlyLines?.append(line)
        } else {
            handleLine(line)
        }
    }

    private func handleLine(_ line: String) {
        let now = clock.now
        lastReceivedAt = now
        pingSentAt = nil
        pingRetries = 0
        let message: IRCMessage
        do {
            message = try IRCMessage(parsing: line, maxLineBytes: configuration.maximumLineLength)
        } catch {
            logger.debug("Skipping an unparsable line (\(error)): \(LogRedaction.redact(line))")
            return
        }
        if logger.logLevel <= .trace {
            logger.trace("<< \(LogRedaction.redact(message) ?? line)")
        }
        let nickBefore = currentNick
        let changes = identityTracker.apply(message, ownNick: nickBefore)
        if let departure = SendQueue.Departure(message) { dropQueuedLines(of: departure) }
        emit(.message(message))
        for change in changes { emit(.identity(change)) }
        dispatch(message, ownNickBefore: nickBefore)
    }

    private func dispatch(_ message: IRCMessage, ownNickBefore: String) {
        let parameters = message.parameters
        switch message.command {
        case "PING":
            write(IRCMessage(command: "PONG", parameters: parameters.isEmpty ? [""] : parameters))
        case "CAP":
            let actions = capabilities.handle(message)
            if let saslConfiguration = configuration.sasl, !saslGivenUp, capabilities.saslOffered == false {
                saslFailed("the server does not offer SASL \(saslConfiguration.mechanism.rawValue)")
                if fatalReason != nil { return }
            }
            handleCapabilityActions(actions)
        case "AUTHENTICATE":
            if parameters.first == "+", sasl == .awaitingContinuation { sendSASLPayload() }
        case "900":
            if parameters.count >= 3 {
                account = parameters[2]
                emit(.loggedIn(account: parameters[2]))
            }
        case "903", "907":
            sasl = .finished
            endCapabilityNegotiation()
        case "902", "904", "905", "906":
            if sasl == .awaitingContinuation || sasl == .payloadSent {
                saslFailed("\(message.command) \(parameters.last ?? "")")
            }
        case "908":
            logger.info("Server SASL mechanisms: \(parameters.count >= 2 ? parameters[1] : "")")
        case "421":
            if parameters.count >= 2, parameters[1].uppercased() == "CAP" {
                logger.info("The server does not support CAP")
                capabilities.finish()
                capEndSent = true
                if configuration.sasl != nil, !saslGivenUp {
                    saslFailed("the server does not support CAP/SASL")
                }
            }
        case "001":
            registered(as: parameters.first ?? currentNick)
        case "005":
            var support = identityTracker.serverSupport
            support.apply(message)
            identityTracker.updateServerSupport(support)
            serverSupportChanged(support)
        case "730", "731", "734", "600", "601", "604", "605", "512":
            presenceReported(message)
        case "311", "317", "330", "318", "401":
            whoisReplied(message)
        case "303":
            isonReplied(message)
        case "432", "433", "436", "437":
            nickRefused(message)
        case "NICK":
            guard let source = message.sourceNick, let newNick = parameters.first else { return }
            if namesEqual(source, ownNickBefore) {
                currentNick = newNick
                logger.info("Nick changed from \(source) to \(newNick)")
                emit(.nickChanged(from: source, to: newNick))
                if namesEqual(newNick, configuration.nick) { nextNickRegain = nil }
            } else if namesEqual(source, configuration.nick) {
                regainNick()
            }
        case "QUIT":
            if let source = message.sourceNick, namesEqual(source, configuration.nick) { regainNick() }
        case "JOIN":
            guard let source = message.sourceNick, let channel = parameters.first,
                namesEqual(source, ownNickBefore)
            else { return }
            pendingJoins.removeValue(forKey: channel.lowercased())
            logger.info("Joined \(channel)")
            emit(.joined(channel: channel))
            enqueue(identityTracker.whoRequest(for: channel))
        case "PART":
            guard let source = message.sourceNick, let channel = parameters.first,
                namesEqual(source, ownNickBefore)
            else { return }
            emit(.parted(channel: channel))
        case "KICK":
            guard parameters.count >= 2, namesEqual(parameters[1], ownNickBefore) else { return }
            let channel = parameters[0]
            let kicker = message.sourceNick ?? ""
            let reason = parameters.count >= 3 ? parameters[2] : ""
            logger.warning("Kicked from \(channel) by \(kicker): \(reason)")
            emit(.kicked(channel: channel, by: kicker, reason: reason))
            if desiredChannels[channel.lowercased()] != nil {
                pendingJoins[channel.lowercased()] = clock.now + configuration.retry.rejoinAfterKick
            }
        case "471", "473", "474", "475", "477":
            guard parameters.count >= 2 else { return }
            let channel = parameters[1]
            let reason = parameters.last ?? ""
            logger.warning("Cannot join \(channel) (\(message.command)): \(reason); retrying later")
            emit(.joinRefused(channel: channel, code: message.command, reason: reason))
            if desiredChannels[channel.lowercased()] != nil {
                pendingJoins[channel.lowercased()] = clock.now + configuration.retry.rejoinAfterRefusal
            }
        case "ERROR":
            let reason = "server error: \(parameters.last ?? "")"
            if closeReason == nil { closeReason = reason }
            if stopRequested { logger.info("\(reason)") } else { logger.warning("\(reason)") }
            // The server closes after ERROR; close from our side too in case it does not.
            channel?.close(promise: nil)
        case "PRIVMSG", "NOTICE":
            deliverUserMessage(message)
        default:
            break
        }
    }

    private func deliverUserMessage(_ message: IRCMessage) {
        guard message.parameters.count >= 2, let source = message.sourceIdentity, !source.nick.isEmpty,
            source.user != nil || source.host != nil || !source.looksLikeServer
        else { return }
        let target = message.parameters[0]
        let text = message.parameters[message.parameters.count - 1]
        let tracked = identityTracker.identity(ofNick: source.nick)
        let sender = UserIdentity(
            nick: source.nick,
            user: source.user ?? tracked?.user,
            host: source.host ?? tracked?.host,
            account: message.tags["account"] ?? tracked?.account
        )
        let channelPart = target.drop { identityTracker.serverSupport.prefixSymbols.contains($0) }
        let isPrivate = !identityTracker.serverSupport.isChannel(channelPart)
        let userMessage = IRCUserMessage(
            sender: sender,
            target: target,
            text: text,
            isPrivate: isPrivate,
            message: message
        )
        if logger.logLevel <= .debug {
            let shown =
                LogRedaction.isSensitive(text) ? "<redacted>" : (LogRedaction.redactingLinkCredentials(text) ?? text)
            logger.debug("\(message.command) from \(sender) to \(target): \(shown)")
        }
        emit(message.command == "PRIVMSG" ? .privmsg(userMessage) : .notice(userMessage))
    }

    // MARK: Outbound

    private func splitText(_ text: String, command: String, target: String, maxLines: Int) -> [IRCMessage] {
        let safeTarget = TextSanitizer.singleLine(target).replacingSpaces()
        let safeText = String(decoding: text.utf8.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
        var userHost: String?
        if let me = identityTracker.identity(ofNick: currentNick), let user = me.user, let host = me.host {
            userHost = "\(user)@\(host)"
        }
        let splitter = LineSplitter(serverSupport: identityTracker.serverSupport, maxLines: maxLines)
        return splitter.messages(
            safeText,
            command: command,
            target: safeTarget,
            nick: currentNick,
            userHost: userHost
        )
        .map { message in
            var message = message
            message.parameters = message.parameters.map { TextSanitizer.singleLine($0) }
            return message
        }
    }

    private func textBudget(command: String, target: String) -> Int {
        let me = identityTracker.identity(ofNick: currentNick)
        let userHost = me.flatMap { me in me.user.flatMap { user in me.host.map { "\(user)@\($0)" } } }
        return LineSplitter(serverSupport: identityTracker.serverSupport).textBudget(
            command: command, target: TextSanitizer.singleLine(target).replacingSpaces(), nick: currentNick,
            userHost: userHost)
    }

    private func dropQueuedLines(of departure: SendQueue.Departure) {
        guard !queue.isEmpty, queue.dropLines(of: departure) > 0 else { return }
        receipts.settled(queue.takeDroppedTickets())
        if queue.isEmpty { receipts.queueEmptied() }
    }

    /// Queues a normal line; `fairnessKey` nil puts it in the control lane (JOIN, WHO, NICK…).
    func enqueue(_ message: IRCMessage, fairnessKey: String? = nil) {
        queueLine(message, fairnessKey: fairnessKey)
        if writeReadyLines() { writerWake?.yield() }
    }

    private func queueLine(_ message: IRCMessage, fairnessKey: String?, answer: SendQueue.Answer? = nil) {
        queue.enqueue(message.serialized(), fairnessKey: fairnessKey, answer: answer, ticket: receipts.queued())
        receipts.settled(queue.takeDroppedTickets())
    }

    /// Writes the queued lines the flood gate lets through now, in queue order, as one buffer (so
    /// one TLS record and one segment: a server relays the lines together instead of holding the
    /// later ones back for Nagle); true when lines remain that have to wait (the writer task sends
    /// those).
    private func writeReadyLines() -> Bool {
        guard isRegistered, let channel else { return !queue.isEmpty }
        var batch: ByteBuffer?
        defer { if let batch { channel.writeAndFlush(batch, promise: nil) } }
        while let line = queue.first {
            if floodGate.delay(beforeSending: FloodGate.cost(of: line), at: clock.now) > .zero { return true }
            guard let entry = queue.removeFirstEntry(packing: mustPack) else { break }
            if batch == nil { batch = channel.allocator.buffer(capacity: 512) }
            encodeLine(entry.line, into: &batch!)
            receipts.settled(entry.tickets)
            if queue.isEmpty { receipts.queueEmptied() }
        }
        return false
    }

    /// Whether the flood gate will hold some queued lines back (so channel answers share lines).
    private var mustPack: Bool {
        queue.count > 1 && Double(queue.count) > floodGate.availableTokens(at: clock.now) && !floodGate.isUnlimited
    }

    /// Writes a line now (priority lane), bypassing the queue but not the flood accounting.
    private func write(_ message: IRCMessage) {
        writeLine(message.serialized(), message: message)
    }

    private func writeLine(_ line: String, message: IRCMessage? = nil) {
        guard let channel else { return }
        var buffer = channel.allocator.buffer(capacity: line.utf8.count + 2)
        encodeLine(line, message: message, into: &buffer)
        channel.writeAndFlush(buffer, promise: nil)
    }

    /// Appends `line` and CR LF to `buffer`, logs it at trace level and charges the flood gate.
    private func encodeLine(_ line: String, message: IRCMessage? = nil, into buffer: inout ByteBuffer) {
        // `serialized()` never emits NUL/CR/LF; this is the last line of defence for every path.
        let safe = String(
            decoding: line.utf8.map { $0 == 0 || $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 },
            as: UTF8.self
        )
        if logger.logLevel <= .trace {
            logger.trace(">> \((message.flatMap(LogRedaction.redact)) ?? LogRedaction.redact(safe))")
        }
        buffer.writeString(safe)
        buffer.writeStaticString("\r\n")
        floodGate.recordSend(costing: FloodGate.cost(of: safe), at: clock.now)
    }

    private func runWriter(connectionID id: Int) async {
        let (wakeups, wakeSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        writerWake = wakeSink
        wakeSink.yield()
        for await _ in wakeups {
            guard id == connectionID else { break }
            await drainQueue(connectionID: id)
        }
    }

    private func drainQueue(connectionID id: Int) async {
        while isRegistered, id == connectionID, !Task.isCancelled, let line = queue.first {
            let wait = floodGate.delay(beforeSending: FloodGate.cost(of: line), at: clock.now)
            if wait > .zero {
                do { try await Task.sleep(for: wait) } catch { return }
                continue
            }
            guard let entry = queue.removeFirstEntry(packing: mustPack) else { break }
            writeLine(entry.line)
            receipts.settled(entry.tickets)
            if queue.isEmpty { receipts.queueEmptied() }
        }
    }

    // MARK: Maintenance

    private func runMaintenance(connectionID id: Int) async {
        let tick = min(
            Duration.milliseconds(250),
            configuration.keepalive.timeout / 4,
            configuration.keepalive.pingAfterSilence / 4
        )
        while !Task.isCancelled, id == connectionID {
            do { try await Task.sleep(for: tick) } catch { return }
            guard id == connectionID else { return }
            maintenanceTick()
        }
    }

    private func maintenanceTick() {
        let dropped = queue.takeDroppedCount()
        if dropped > 0 {
            logger.warning(
                "Send queue full (\(queue.capacity) lines): dropped \(dropped) line(s) of the longest backlog"
            )
        }
        guard channel != nil else { return }
        let now = clock.now
        if !isRegistered, let connectedAt, connectedAt.duration(to: now) > configuration.registrationTimeout {
            dropConnection("registration timed out after \(Self.format(configuration.registrationTimeout))")
            return
        }
        if let pingSentAt {
            if pingSentAt.duration(to: now) >= configuration.keepalive.timeout {
                if pingRetries == 0 {
                    pingRetries = 1
                    self.pingSentAt = now
                    write(.ping("keepalive"))
                } else {
                    dropConnection("ping timeout: no reply from the server")
                    return
                }
            }
        } else if let lastReceivedAt,
            lastReceivedAt.duration(to: now) >= configuration.keepalive.pingAfterSilence
        {
            pingSentAt = now
            write(.ping("keepalive"))
        }
        guard isRegistered else { return }
        for (key, deadline) in pendingJoins where deadline <= now {
            pendingJoins.removeValue(forKey: key)
            if let join = desiredChannels[key], !identityTracker.isInChannel(join.name) {
                logger.info("Rejoining \(join.name)")
                enqueue(.join(join.name, key: join.key))
            }
        }
        if let nextNickRegain, nextNickRegain <= now { regainNick() }
        presenceTick(at: now)
    }

    // MARK: Helpers

    func emit(_ event: IRCEvent) {
        events.yield(event)
    }

    func namesEqual(_ lhs: String, _ rhs: String) -> Bool {
        identityTracker.serverSupport.namesEqual(lhs, rhs)
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }

    static func format(_ duration: Duration) -> String {
        let milliseconds = nanoseconds(duration) / 1_000_000
        return milliseconds >= 10_000 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}

extension String {
    fileprivate func replacingSpaces() -> String {
        String(decoding: utf8.map { $0 == 0x20 ? 0x5F : $0 }, as: UTF8.self)
    }
}
