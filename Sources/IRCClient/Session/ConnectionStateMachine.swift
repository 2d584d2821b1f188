import IRCProtocol
import Logging

/// The IRC protocol side of the client, without I/O: registration (``Registration``), keepalive
/// (``Keepalive``), the channels to be in (``ChannelRejoin``), the nick (fallback while registering,
/// regain afterwards), who is online (MONITOR/WATCH, WHOIS, ISON), what the server says about
/// users (``IdentityTracker``) and whether each joined channel is open to anyone
/// (``ChannelModeTracker``).
///
/// A state machine in the style of SwiftNIO's: its I/O shell (``IRCClient``) feeds it events — a
/// connection is up, a line arrived, a tick of the maintenance timer, the connection closed, a
/// request of the client's user — each with the time, and carries out the actions it returns, in
/// order, logging included (the machine has no logger). Each event returns its own action type
/// (``LineAction``, ``TickAction``, ``ConnectedAction``, ``ClosedAction``, ``RequestAction``). Where it is in a connection's
/// life is one ``ConnectionPhase`` carrying the data of that phase; what outlives connections (the
/// channels asked for, a SASL failure, the nick, the identities seen) is kept beside it.
///
/// Transitions the shell never makes are programming errors and stop the process: a connection
/// that starts while one is up, a line or a close without a connection.
struct ConnectionStateMachine: Sendable {
    let configuration: IRCClientConfiguration
    /// The lowest level of the `log` actions returned (as the shell's
    /// logger's): lines below it are not even built.
    let logLevel: Logger.Level

    /// Where the machine is in a connection's life.
    var phase: ConnectionPhase = .disconnected(outageStart: nil)
    /// The nick in use (the configured one until the server says otherwise).
    var currentNick: String
    /// Channels and user identities seen on the current connection.
    var identityTracker = IdentityTracker()
    var registration: Registration
    var channels: ChannelRejoin
    /// Whether each channel the client is in keeps strangers out (its `+k` and `+i`), on the
    /// current connection.
    var channelModes = ChannelModeTracker()
    /// The labels of the client's labeled queries, and which one each inbound line answers.
    var responseLabels = ResponseLabels()
    /// The ISUPPORT values the last ``IRCEvent/serverSupportChanged(_:)`` told of (the defaults
    /// before the first): kept across connections, so that only a real change is told.
    var announcedSupport = ServerSupport()
    /// Set once the client is shutting down (the server's ERROR is then expected).
    private(set) var isStopping = false

    /// `makeSCRAMNonce` gives the client nonce of each SCRAM exchange (random; fixed test vectors
    /// give their own).
    init(
        configuration: IRCClientConfiguration, logLevel: Logger.Level = .info,
        makeSCRAMNonce: @escaping @Sendable () -> String = SCRAMClient.randomNonce
    ) {
        self.configuration = configuration
        self.logLevel = logLevel
        currentNick = configuration.nick
        registration = Registration(configuration: configuration, makeSCRAMNonce: makeSCRAMNonce)
        channels = ChannelRejoin(configuration.channels)
    }

    /// Between a connection's start and its end.
    var isConnected: Bool { phase.link != nil }
    /// Between the server's 001 and the end of that connection.
    var isRegistered: Bool { phase.registered != nil }
    /// When the current connection registered.
    var registeredAt: ContinuousClock.Instant? { phase.registered?.registeredAt }
    /// The bot user mode on the current connection.
    var botMode: BotMode? { phase.registered?.botMode }
    /// The services account logged in to with SASL on the current connection.
    var account: String? { registration.account }
    /// Capabilities enabled on the current connection.
    var enabledCapabilities: Set<String> { registration.enabledCapabilities }
    /// Why the client must stop for good, if it must.
    var fatalReason: String? { registration.fatalReason }
    /// The server's ISUPPORT values (defaults before the first 005).
    var serverSupport: ServerSupport { identityTracker.serverSupport }

    // MARK: Events

    /// The TCP (and TLS) connection is up: registration starts. `secure` and `port` say how it was
    /// made (by default as configured; an STS policy can make it TLS on another port).
    mutating func connected(
        at now: ContinuousClock.Instant, secure: Bool? = nil, port: Int? = nil
    ) -> [ConnectedAction] {
        guard case .disconnected(let outageStart) = phase else {
            preconditionFailure("A connection started while the previous one is still up")
        }
        var keepalive = Keepalive(configuration.keepalive)
        keepalive.connected(at: now)
        let link = ConnectionPhase.ConnectionLink(secure: secure ?? configuration.tls.enabled, keepalive: keepalive)
        phase = .registering(link, .init(connectedAt: now, outageStart: outageStart))
        currentNick = configuration.nick
        identityTracker = IdentityTracker()
        responseLabels.connectionStarted()
        channels.connectionStarted()
        channelModes.reset()
        // Until this server says how it compares names, the default casemapping holds.
        channels.setCaseMapping(identityTracker.serverSupport.caseMapping)
        channelModes.setCaseMapping(identityTracker.serverSupport.caseMapping)
        let lines = registration.begin(nick: currentNick, secure: link.secure)
        return [.emit(.connected(host: configuration.host, port: port ?? configuration.port))]
            + lines.map { .write($0) }
    }

    /// A line from the server.
    mutating func lineReceived(_ line: String, at now: ContinuousClock.Instant) -> [LineAction] {
        guard phase.updateLink({ $0.keepalive.received(at: now) }) != nil else {
            preconditionFailure("A line arrived without a connection")
        }
        var actions: [LineAction] = []
        let message: IRCMessage
        do {
            message = try IRCMessage(parsing: line, maxLineBytes: configuration.maximumLineLength)
        } catch {
            log(.debug, "Skipping an unparsable line (\(error)): \(LogRedaction.redact(line))", into: &actions)
            return actions
        }
        log(.trace, "<< \(LogRedaction.redact(message) ?? line)", into: &actions)
        let nickBefore = currentNick
        let changes = identityTracker.apply(message, ownNick: nickBefore)
        if let notice = identityTracker.takeLimitNotice() {
            log(.warning, "\(configuration.host): \(notice)", into: &actions)
        }
        let mapping = identityTracker.serverSupport.caseMapping
        for departure in SendQueue.Departure.announced(by: message, caseMapping: mapping) {
            actions.append(.dropQueuedLines(departure))
        }
        actions.append(.emit(.message(message)))
        for change in changes { actions.append(.emit(.identity(change))) }
        let labeled = responseLabels.read(message)
        // What the registered phase keeps is changed here and put back once the line is handled.
        var registered = phase.registered
        let inbound = Inbound(message: message, label: labeled.label, ownNickBefore: nickBefore, now: now)
        dispatch(inbound, registered: &registered, into: &actions)
        if var answering = registered {
            if labeled.isLast, let label = labeled.label { labeledAnswerEnded(label, in: &answering, into: &actions) }
            requestAnswered(by: message, label: labeled.label, ownNick: nickBefore, in: &answering, into: &actions)
            if case .registered(let link, _) = phase { phase = .registered(link, answering) }
        }
        return actions
    }

    /// The maintenance timer (a few times a second while connected): registration timeout,
    /// keepalive, rejoins, nick regain, overdue WHOIS lookups. Nothing to do without a connection.
    mutating func tick(at now: ContinuousClock.Instant) -> [TickAction] {
        var actions: [TickAction] = []
        switch phase {
        case .disconnected:
            break
        case .registering(var link, let registering):
            if registering.connectedAt.duration(to: now) > configuration.registrationTimeout {
                drop("registration timed out after \(Self.format(configuration.registrationTimeout))", into: &actions)
                return actions
            }
            let alive = keepaliveTick(&link.keepalive, at: now, into: &actions)
            phase = .registering(link, registering)
            guard alive else { return actions }
        case .registered(var link, var registered):
            let alive = keepaliveTick(&link.keepalive, at: now, into: &actions)
            phase = .registered(link, registered)
            guard alive else { return actions }
            if let due = registered.joinDeadline, due <= now {
                log(
                    .debug,
                    "No end of the welcome burst (376 or 422) within \(Self.format(configuration.welcomeBurstTimeout)); joining",
                    into: &actions)
                welcomeBurstEnded(in: &registered, into: &actions)
            }
            let tracker = identityTracker
            for join in channels.due(at: now, isIn: { tracker.isInChannel($0) }) {
                log(.info, "Rejoining \(join.name)", into: &actions)
                actions.append(.enqueue(.join(join.name, key: join.key)))
            }
            if let due = registered.nextNickRegain, due <= now { regainNick(at: now, in: &registered, into: &actions) }
            presenceTick(at: now, in: &registered, into: &actions)
            phase = .registered(link, registered)
        }
        return actions
    }

    /// The connection ended, for `reason`.
    mutating func connectionClosed(reason: String, at now: ContinuousClock.Instant) -> [ClosedAction] {
        var actions: [ClosedAction] = []
        let wasRegistered: Bool
        switch phase {
        case .disconnected:
            preconditionFailure("A connection closed while none was up")
        case .registering:
            wasRegistered = false
        case .registered(_, var registered):
            wasRegistered = true
            // No WHOIS or request will be answered now.
            let waiters = registered.cancelWaiters()
            if !waiters.whois.isEmpty { actions.append(.cancelWhois(waiters: waiters.whois)) }
            if !waiters.requests.isEmpty { actions.append(.cancelRequests(waiters: waiters.requests)) }
        }
        phase = .disconnected(outageStart: now)
        identityTracker.reset()
        channelModes.reset()
        let (level, text) =
            isStopping
            ? (Logger.Level.info, "Connection to \(configuration.host) closed: \(reason)")
            : (Logger.Level.warning, "Connection to \(configuration.host) ended: \(reason)")
        if level >= logLevel { actions.append(.log(level, text)) }
        actions.append(.emit(wasRegistered ? .disconnected(reason: reason) : .connectionFailed(reason: reason)))
        return actions
    }

    /// The client is shutting down.
    mutating func stopRequested() {
        isStopping = true
    }

    /// Joins `channel` now (if registered and past the welcome burst, which joins every wanted
    /// channel) and after every reconnect.
    mutating func join(_ channel: String, key: String?) -> [RequestAction] {
        channels.want(.init(channel, key: key))
        guard let registered = phase.registered, registered.joinDeadline == nil else { return [] }
        return [.enqueue(.join(channel, key: key))]
    }

    /// Leaves `channel` and stops rejoining it.
    mutating func part(_ channel: String, reason: String?) -> [RequestAction] {
        channels.forget(channel)
        return isRegistered ? [.enqueue(.part(channel, reason: reason))] : []
    }

    // MARK: Helpers

    /// A keepalive tick: a PING to write, or the connection dropped (false: nothing more to do on it).
    private func keepaliveTick(
        _ keepalive: inout Keepalive, at now: ContinuousClock.Instant, into actions: inout [TickAction]
    ) -> Bool {
        switch keepalive.tick(at: now) {
        case .wait:
            return true
        case .ping:
            actions.append(.write(.ping("keepalive")))
            return true
        case .timedOut:
            drop("ping timeout: no reply from the server", into: &actions)
            return false
        }
    }

    /// Closes the connection, logged as dropped for `reason`.
    func drop(_ reason: String, into actions: inout [TickAction]) {
        log(.warning, "Dropping the connection: \(reason)", into: &actions)
        actions.append(.closeConnection(reason: reason))
    }

    /// Asks the shell to log `text` at `level`, when its logger would show it (`text` is built only then).
    func log<Action: LoggedAction>(
        _ level: Logger.Level, _ text: @autoclosure () -> String, into actions: inout [Action]
    ) {
        guard level >= logLevel else { return }
        actions.append(.log(level, text()))
    }

    func namesEqual(_ lhs: String, _ rhs: String) -> Bool {
        identityTracker.serverSupport.namesEqual(lhs, rhs)
    }

    static func format(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds >= 10_000 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}

/// The user mode that marks the client as a bot on this connection (ISUPPORT `BOT=`).
public struct BotMode: Sendable, Equatable {
    /// The mode letter (`B` on InspIRCd, UnrealIRCd and Solanum).
    public var mode: Character
    /// Whether the server confirmed it is set.
    public var isSet: Bool
    /// Whether the server has said (its 221 or a MODE naming the client): while false, `isSet` is
    /// only what was asked for.
    public var answered: Bool

    public init(mode: Character, isSet: Bool, answered: Bool = false) {
        self.mode = mode
        self.isSet = isSet
        self.answered = answered
    }
}
