import IRCProtocol
import Logging

/// The IRC protocol side of the client, without I/O: registration (``Registration``), keepalive
/// (``Keepalive``), the channels to be in (``ChannelRejoin``), the nick (fallback while registering,
/// regain afterwards), who is online (MONITOR/WATCH, WHOIS, ISON) and what the server says about
/// users (``IdentityTracker``).
///
/// A state machine in the style of ``CapabilityNegotiator``: its I/O shell (``IRCClient``) feeds it
/// events — a connection is up, a line arrived, a tick of the maintenance timer, the connection
/// closed, a request of the client's user — each with the time, and carries out the
/// ``ConnectionAction``s it returns, in order. It outlives connections: the channels asked for and a
/// SASL failure carry over to the next one. Only its logging reaches the outside world directly.
struct ConnectionStateMachine: Sendable {
    let configuration: IRCClientConfiguration
    let logger: Logger

    /// The nick in use (the configured one until the server says otherwise).
    private(set) var currentNick: String
    /// Between a connection's start and its end.
    private(set) var isConnected = false
    /// Between the server's 001 and the end of that connection.
    private(set) var isRegistered = false
    /// Whether the current connection is TLS.
    private(set) var isSecure = true
    /// Whether the current connection's STS policy was acted on already.
    var stsSeen = false
    private(set) var registeredAt: ContinuousClock.Instant?
    /// Channels and user identities seen on the current connection.
    private(set) var identityTracker = IdentityTracker()
    private(set) var registration: Registration
    var channels: ChannelRejoin
    /// Set once the client is shutting down (the server's ERROR is then expected).
    private(set) var isStopping = false
    /// The bot user mode on the current connection: asked for once registered on a server that
    /// names one (ISUPPORT `BOT=`), and whether the server has confirmed it.
    private(set) var botMode: BotMode?
    private var keepalive: Keepalive
    private var connectedAt: ContinuousClock.Instant?
    private var disconnectedAt: ContinuousClock.Instant?

    // Who is online (see ConnectionStateMachine+Presence.swift).
    /// The nicks watched with MONITOR or WATCH on the current connection.
    var presence = PresenceWatch()
    /// WHOIS requests waiting for the server's answer, by the shell's waiter id.
    var whoisLookups = WhoisLookups<Int>()
    /// The labels of the client's labeled queries, and which one each inbound line answers.
    var responseLabels = ResponseLabels()
    /// Commands sent on someone's behalf (an owner's JOIN or PART) waiting for the server's word.
    var pendingRequests = PendingRequests<Int>()
    /// While the client is not on its configured nick: whether that nick is watched (MONITOR/WATCH),
    /// else when to ask again with ISON, and when to try to take it back anyway.
    var configuredNickWatched = false
    var nextConfiguredNickCheck: ContinuousClock.Instant?
    var nextNickRegain: ContinuousClock.Instant?

    /// `makeSCRAMNonce` gives the client nonce of each SCRAM exchange (random; fixed test vectors
    /// give their own).
    init(
        configuration: IRCClientConfiguration, logger: Logger,
        makeSCRAMNonce: @escaping @Sendable () -> String = SCRAMClient.randomNonce
    ) {
        self.configuration = configuration
        self.logger = logger
        currentNick = configuration.nick
        registration = Registration(configuration: configuration, logger: logger, makeSCRAMNonce: makeSCRAMNonce)
        channels = ChannelRejoin(configuration.channels)
        keepalive = Keepalive(configuration.keepalive)
    }

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
    ) -> [ConnectionAction] {
        isConnected = true
        isRegistered = false
        isSecure = secure ?? configuration.tls.enabled
        stsSeen = false
        connectedAt = now
        registeredAt = nil
        keepalive.connected(at: now)
        currentNick = configuration.nick
        identityTracker = IdentityTracker()
        responseLabels.connectionStarted()
        botMode = nil
        channels.connectionStarted()
        // Until this server says how it compares names, the default casemapping holds.
        channels.setCaseMapping(identityTracker.serverSupport.caseMapping)
        nextNickRegain = nil
        var actions: [ConnectionAction] = []
        resetPresence(into: &actions)
        actions.append(.emit(.connected(host: configuration.host, port: port ?? configuration.port)))
        registration.begin(nick: currentNick, secure: isSecure, into: &actions)
        return actions
    }

    /// A line from the server.
    mutating func lineReceived(_ line: String, at now: ContinuousClock.Instant) -> [ConnectionAction] {
        keepalive.received(at: now)
        let message: IRCMessage
        do {
            message = try IRCMessage(parsing: line, maxLineBytes: configuration.maximumLineLength)
        } catch {
            logger.debug("Skipping an unparsable line (\(error)): \(LogRedaction.redact(line))")
            return []
        }
        if logger.logLevel <= .trace {
            logger.trace("<< \(LogRedaction.redact(message) ?? line)")
        }
        let nickBefore = currentNick
        let changes = identityTracker.apply(message, ownNick: nickBefore)
        if let notice = identityTracker.takeLimitNotice() {
            logger.warning("\(configuration.host): \(notice)")
        }
        var actions: [ConnectionAction] = []
        let mapping = identityTracker.serverSupport.caseMapping
        for departure in SendQueue.Departure.announced(by: message, caseMapping: mapping) {
            actions.append(.dropQueuedLines(departure))
        }
        actions.append(.emit(.message(message)))
        for change in changes { actions.append(.emit(.identity(change))) }
        let labeled = responseLabels.read(message)
        dispatch(message, answering: labeled.label, ownNickBefore: nickBefore, at: now, into: &actions)
        if labeled.isLast, let label = labeled.label { labeledAnswerEnded(label, into: &actions) }
        requestAnswered(by: message, label: labeled.label, ownNick: nickBefore, into: &actions)
        return actions
    }

    /// The maintenance timer (a few times a second while connected): registration timeout,
    /// keepalive, rejoins, nick regain, overdue WHOIS lookups.
    mutating func tick(at now: ContinuousClock.Instant) -> [ConnectionAction] {
        guard isConnected else { return [] }
        var actions: [ConnectionAction] = []
        if !isRegistered, let connectedAt, connectedAt.duration(to: now) > configuration.registrationTimeout {
            drop("registration timed out after \(Self.format(configuration.registrationTimeout))", into: &actions)
            return actions
        }
        switch keepalive.tick(at: now) {
        case .wait:
            break
        case .ping:
            actions.append(.write(.ping("keepalive")))
        case .timedOut:
            drop("ping timeout: no reply from the server", into: &actions)
            return actions
        }
        guard isRegistered else { return actions }
        let tracker = identityTracker
        for join in channels.due(at: now, isIn: { tracker.isInChannel($0) }) {
            logger.info("Rejoining \(join.name)")
            actions.append(.enqueue(.join(join.name, key: join.key)))
        }
        if let nextNickRegain, nextNickRegain <= now { regainNick(at: now, into: &actions) }
        presenceTick(at: now, into: &actions)
        return actions
    }

    /// The connection ended, for `reason`.
    mutating func connectionClosed(reason: String, at now: ContinuousClock.Instant) -> [ConnectionAction] {
        let wasRegistered = isRegistered
        isConnected = false
        isRegistered = false
        registeredAt = nil
        disconnectedAt = now
        identityTracker.reset()
        var actions: [ConnectionAction] = []
        resetPresence(into: &actions)
        if isStopping {
            logger.info("Connection to \(configuration.host) closed: \(reason)")
        } else {
            logger.warning("Connection to \(configuration.host) ended: \(reason)")
        }
        actions.append(.emit(wasRegistered ? .disconnected(reason: reason) : .connectionFailed(reason: reason)))
        return actions
    }

    /// The client is shutting down.
    mutating func stopRequested() {
        isStopping = true
    }

    /// Joins `channel` now (if registered) and after every reconnect.
    mutating func join(_ channel: String, key: String?) -> [ConnectionAction] {
        channels.want(.init(channel, key: key))
        return isRegistered ? [.enqueue(.join(channel, key: key))] : []
    }

    /// Leaves `channel` and stops rejoining it.
    mutating func part(_ channel: String, reason: String?) -> [ConnectionAction] {
        channels.forget(channel)
        return isRegistered ? [.enqueue(.part(channel, reason: reason))] : []
    }

    // MARK: Inbound

    /// Acts on one inbound line; `label` is the label of the client's query it answers, if any.
    private mutating func dispatch(
        _ message: IRCMessage, answering label: String?, ownNickBefore: String, at now: ContinuousClock.Instant,
        into actions: inout [ConnectionAction]
    ) {
        let parameters = message.parameters
        switch message.command {
        case "PRIVMSG", "NOTICE":
            deliverUserMessage(message, into: &actions)
        case "PING":
            actions.append(.write(IRCMessage(command: "PONG", parameters: parameters.isEmpty ? [""] : parameters)))
        case "CAP":
            // An STS upgrade leaves this connection before anything else is negotiated on it.
            if stsAdvertised(in: message, into: &actions) { return }
            registration.handle(message, into: &actions)
        case "AUTHENTICATE", "421", "900", "902", "903", "904", "905", "906", "907", "908":
            registration.handle(message, into: &actions)
        case "001":
            welcome(as: parameters.first ?? currentNick, at: now, into: &actions)
        case "005":
            var support = identityTracker.serverSupport
            support.apply(message)
            identityTracker.updateServerSupport(support)
            serverSupportChanged(support)
            channels.setCaseMapping(support.caseMapping)
            askForBotMode(into: &actions)
        case "MODE", "221":
            ownModesChanged(message)
        case "FAIL", "WARN", "NOTE":
            standardReply(message)
        case "730", "731", "734", "600", "601", "604", "605", "512":
            presenceReported(message, at: now, into: &actions)
        case "311", "317", "330", "318", "401":
            whoisReplied(message, label: label, into: &actions)
        case "303":
            isonReplied(message, at: now, into: &actions)
        case "432", "433", "436", "437":
            if isRegistered {
                let refused = parameters.count >= 2 ? parameters[1] : currentNick
                logger.debug("Nick \(refused) is not available (\(message.command))")
            } else {
                currentNick = registration.nickRefused(message, current: currentNick, into: &actions)
            }
        case "NICK":
            nickChanged(message, ownNickBefore: ownNickBefore, at: now, into: &actions)
        case "QUIT":
            if let source = message.sourceNick, namesEqual(source, configuration.nick) {
                regainNick(at: now, into: &actions)
            }
        case "JOIN", "PART", "KICK", "471", "473", "474", "475", "477":
            membershipChanged(message, ownNickBefore: ownNickBefore, at: now, into: &actions)
        case "ERROR":
            let reason = "server error: \(parameters.last ?? "")"
            // After our QUIT the server's ERROR is its goodbye, not a fault.
            if isStopping { logger.debug("\(reason)") } else { logger.warning("\(reason)") }
            // The server closes after ERROR; close from our side too in case it does not.
            actions.append(.closeConnection(reason: reason))
        default:
            break
        }
    }

    private mutating func welcome(
        as nick: String, at now: ContinuousClock.Instant, into actions: inout [ConnectionAction]
    ) {
        guard registration.welcome(into: &actions) else { return }
        isRegistered = true
        registeredAt = now
        currentNick = nick
        logger.info("Registered on \(configuration.host) as \(nick)")
        actions.append(.emit(.registered(nick: nick)))
        // Lines queued before (or during) an outage go out after the reconnect only if the outage was
        // short; lines already written to the lost socket are never sent again.
        if let disconnectedAt {
            self.disconnectedAt = nil
            let outage = disconnectedAt.duration(to: now)
            if outage > configuration.reconnect.keepQueuedLinesFor {
                actions.append(.discardQueuedLines(outage: outage))
            }
        }
        // The JOINs go out before anything queued, so replies queued for a channel while the connection
        // was down reach it after the rejoin (the server handles a client's lines in order).
        for join in channels.joinsAfterRegistration { actions.append(.write(.join(join.name, key: join.key))) }
        if !namesEqual(nick, configuration.nick) { nextNickRegain = now + configuration.retry.nickRegainInterval }
        actions.append(.startSending)
        askForBotMode(into: &actions)
    }

    /// A standard reply (`FAIL`/`WARN`/`NOTE <command> <code> [context…] :text`): logged with its
    /// command, code, context and text (a FAIL and a WARN as warnings, a NOTE as information).
    private func standardReply(_ message: IRCMessage) {
        let parameters = message.parameters
        guard parameters.count >= 3 else { return }
        let context = parameters.dropFirst(2).dropLast().joined(separator: " ")
        // The text may quote what was sent: no credentials or secret links reach the log.
        let said = parameters[parameters.count - 1]
        let text = LogRedaction.isSensitive(said) ? "<redacted>" : LogRedaction.redactingSecrets(said) ?? said
        let line =
            "\(configuration.host) says \(message.command) \(parameters[0]) \(parameters[1])"
            + (context.isEmpty ? "" : " (\(LogRedaction.redactingSecrets(context) ?? context))") + ": \(text)"
        let safe = TextSanitizer.singleLine(line)
        if message.command == "NOTE" { logger.info("\(safe)") } else { logger.warning("\(safe)") }
    }

    /// Once registered on a server that names a bot mode (usually in the 005 lines after 001):
    /// sets it on the client, once per connection.
    private mutating func askForBotMode(into actions: inout [ConnectionAction]) {
        guard isRegistered, botMode == nil, let mode = identityTracker.serverSupport.botMode else { return }
        botMode = BotMode(mode: mode, isSet: false)
        actions.append(.enqueue(IRCMessage(command: "MODE", parameters: [currentNick, "+\(mode)"])))
    }

    /// The client's own user modes changed (`MODE <own nick> +B`) or were listed (221): follows
    /// the bot mode.
    private mutating func ownModesChanged(_ message: IRCMessage) {
        guard var state = botMode, message.parameters.count >= 2, namesEqual(message.parameters[0], currentNick)
        else { return }
        if message.command == "221" {
            state.isSet = message.parameters[1].contains(state.mode)
        } else {
            var adding = true
            for character in message.parameters[1] {
                switch character {
                case "+": adding = true
                case "-": adding = false
                case state.mode: state.isSet = adding
                default: break
                }
            }
        }
        botMode = state
    }

    private mutating func nickChanged(
        _ message: IRCMessage, ownNickBefore: String, at now: ContinuousClock.Instant,
        into actions: inout [ConnectionAction]
    ) {
        guard let source = message.sourceNick, let newNick = message.parameters.first else { return }
        if namesEqual(source, ownNickBefore) {
            currentNick = newNick
            logger.info("Nick changed from \(source) to \(newNick)")
            actions.append(.emit(.nickChanged(from: source, to: newNick)))
            if namesEqual(newNick, configuration.nick) { nextNickRegain = nil }
        } else if namesEqual(source, configuration.nick) {
            regainNick(at: now, into: &actions)
        }
    }

    /// The client's own JOIN, PART or KICK, or a refused JOIN.
    private mutating func membershipChanged(
        _ message: IRCMessage, ownNickBefore: String, at now: ContinuousClock.Instant,
        into actions: inout [ConnectionAction]
    ) {
        let parameters = message.parameters
        switch message.command {
        case "JOIN":
            guard let source = message.sourceNick, let channel = parameters.first, namesEqual(source, ownNickBefore)
            else { return }
            channels.joined(channel)
            logger.info("Joined \(channel)")
            actions.append(.emit(.joined(channel: channel)))
            actions.append(.enqueue(identityTracker.whoRequest(for: channel)))
        case "PART":
            guard let source = message.sourceNick, let channel = parameters.first, namesEqual(source, ownNickBefore)
            else { return }
            actions.append(.emit(.parted(channel: channel)))
        case "KICK":
            guard parameters.count >= 2, namesEqual(parameters[1], ownNickBefore) else { return }
            let channel = parameters[0]
            let kicker = message.sourceNick ?? ""
            let reason = parameters.count >= 3 ? parameters[2] : ""
            logger.warning("Kicked from \(channel) by \(kicker): \(reason)")
            actions.append(.emit(.kicked(channel: channel, by: kicker, reason: reason)))
            channels.retry(channel, at: now + configuration.retry.rejoinAfterKick)
        default:
            // 471, 473, 474, 475, 477: a JOIN refused.
            guard parameters.count >= 2 else { return }
            let channel = parameters[1]
            let reason = parameters.last ?? ""
            logger.warning("Cannot join \(channel) (\(message.command)): \(reason); retrying later")
            actions.append(.emit(.joinRefused(channel: channel, code: message.command, reason: reason)))
            channels.retry(channel, at: now + configuration.retry.rejoinAfterRefusal)
        }
    }

    private func deliverUserMessage(_ message: IRCMessage, into actions: inout [ConnectionAction]) {
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
        let support = identityTracker.serverSupport
        let isPrivate = !support.isChannel(target.drop { support.prefixSymbols.contains($0) })
        let userMessage = IRCUserMessage(
            sender: sender, target: target, text: text, isPrivate: isPrivate, message: message)
        if logger.logLevel <= .debug {
            let shown =
                LogRedaction.isSensitive(text) ? "<redacted>" : (LogRedaction.redactingSecrets(text) ?? text)
            logger.debug("\(message.command) from \(sender) to \(target): \(shown)")
        }
        actions.append(.emit(message.command == "PRIVMSG" ? .privmsg(userMessage) : .notice(userMessage)))
    }

    // MARK: Helpers

    /// Closes the connection, logged as dropped for `reason`.
    private func drop(_ reason: String, into actions: inout [ConnectionAction]) {
        logger.warning("Dropping the connection: \(reason)")
        actions.append(.closeConnection(reason: reason))
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

    public init(mode: Character, isSet: Bool) {
        self.mode = mode
        self.isSet = isSet
    }
}
