import Foundation
import IRCProtocol
import Logging
import Metrics

/// Recognises commands in what users say and runs them, enforcing each command's declarations
/// (venue, login, rate limit, secret arguments), the per-user flood rule, per-channel disabled
/// plugins and a time limit. A failing handler gets a short human reply and a log line; it never
/// takes the bot down. Commands of one user run in order; different users run side by side.
public actor CommandRouter {
    /// How the router behaves.
    public struct Settings: Sendable {
        /// The command prefix ("!").
        public var prefix: String
        /// Lines one command may put into a channel.
        public var channelLineCap: Int
        /// Plugins turned off per channel: channel name (as configured; compared under the server's
        /// casemapping) → plugin names.
        public var disabledPlugins: [String: Set<String>]
        /// The longest a handler may run before the user is told it took too long.
        public var commandTimeout: Duration
        /// What each user may send: too many commands → ignored for a while, and the commands' rate
        /// limits. `nil` limits nobody: for a private server where one client speaks for many (the
        /// benchmarks' probe, `plugins.user_limits: false`).
        public var userLimits: UserLimits?
        /// The CTCP VERSION reply.
        public var version: String
        /// How many CTCP queries are answered, per host and in all; the rest are ignored.
        public var ctcpBudget = CTCPBudget()
        /// Who may run owner commands (``Command/requiresOwner``); nobody when empty.
        public var owners = OwnerList()
        /// Dimensions added to the router's metrics (the network, on a bot that serves several).
        public var metricDimensions: [(String, String)] = []

        public init(
            prefix: String = "!", channelLineCap: Int = 3, disabledPlugins: [String: Set<String>] = [:],
            commandTimeout: Duration = .seconds(20), floodGuard: CommandFloodGuard = CommandFloodGuard(),
            version: String = "OnTheMapBot"
        ) {
            self.prefix = prefix
            self.channelLineCap = channelLineCap
            self.disabledPlugins = disabledPlugins
            self.commandTimeout = commandTimeout
            self.userLimits = UserLimits(floodGuard: floodGuard)
            self.version = version
        }
    }

    public private(set) var catalog: CommandCatalog
    /// The session book (see ``sessions(storing:)`` for what it stores).
    public nonisolated let sessions: any SessionRegistry
    /// The plugins that also work in the background (see ``runBackgroundPlugins()``).
    public nonisolated let backgroundPlugins: [any BackgroundPlugin]
    /// The plugins the router started with that keep state across restarts (see
    /// ``restorePlugins(_:)``).
    public nonisolated let restoringPlugins: [any RestoringPlugin]
    var settings: Settings
    private var parser: CommandLineParser
    private nonisolated let transport: any BotTransport
    /// The sender's session for a command (a ``BoundSession`` of what ``sessions`` stores), checked
    /// by a ``SessionKeeper``.
    private nonisolated let findSession: @Sendable (UserIdentity) async -> (any Sendable)?
    private nonisolated let logger: Logger
    let clock: any BotClock
    var caseMapping: CaseMapping = .rfc1459
    /// Masks whose commands are ignored (`!ignore`).
    var ignores = IgnoreList()
    /// The last command started per user (the next one of that user waits for it).
    private var inFlight: [String: (id: Int, task: Task<Void, Never>)] = [:]
    private var lastCommandID = 0
    /// Running handlers' time limits; one watchdog task enforces them all.
    private var deadlines = CommandDeadlines()
    private var watchdog: Task<Void, Never>?
    /// Metric handles per command (and outcome), made on first use.
    private var outcomeCounters: [String: Counter] = [:]
    private var durationTimers: [String: Metrics.Timer] = [:]

    /// `sessions` holds the users' logins; its `Login` is what plugins find in
    /// ``Invocation/session(as:)``.
    public init<Login: ExpiringLogin>(
        plugins: [any Plugin], settings: Settings = Settings(), transport: any BotTransport,
        sessions: SessionBook<Login>, logger: Logger = Logger(label: "onthemap.router"),
        clock: any BotClock = SystemBotClock()
    ) {
        self.catalog = CommandCatalog(plugins: plugins)
        self.backgroundPlugins = plugins.compactMap { $0 as? any BackgroundPlugin }
        self.restoringPlugins = plugins.compactMap { $0 as? any RestoringPlugin }
        self.settings = settings
        self.parser = CommandLineParser(prefix: settings.prefix)
        self.transport = transport
        self.sessions = sessions
        self.findSession = { sender in
            await SessionKeeper(sessions: sessions, transport: transport).session(for: sender)
        }
        self.logger = logger
        self.clock = clock
    }

    /// Takes new settings (a config reload): the prefix, owners, limits and the rest apply to the
    /// next line. What the limits learned so far is kept when they stay on.
    public func apply(_ newSettings: Settings) {
        var updated = newSettings
        if var limits = settings.userLimits, let wanted = newSettings.userLimits {
            limits.floodGuard.maxCommands = wanted.floodGuard.maxCommands
            limits.floodGuard.window = wanted.floodGuard.window
            limits.floodGuard.ignoreFor = wanted.floodGuard.ignoreFor
            limits.hostBudget.burst = wanted.hostBudget.burst
            limits.hostBudget.perMinute = wanted.hostBudget.perMinute
            updated.userLimits = limits
        }
        updated.ctcpBudget = settings.ctcpBudget
        settings = updated
        parser = CommandLineParser(prefix: updated.prefix)
    }

    /// Replaces the command plugins (a config reload enabled, disabled or rebuilt some); commands
    /// already running finish as they are. Background plugins stay those the router started with.
    public func replacePlugins(_ plugins: [any Plugin]) {
        catalog = CommandCatalog(plugins: plugins)
    }

    /// Follows the server's CASEMAPPING for nick and channel comparisons.
    public func setCaseMapping(_ mapping: CaseMapping) async {
        caseMapping = mapping
        await sessions.setCaseMapping(mapping)
    }

    /// The session book, which stores `Login`s (the router's host knows which).
    public nonisolated func sessions<Login: ExpiringLogin>(storing type: Login.Type) -> SessionBook<Login> {
        guard let book = sessions as? SessionBook<Login> else {
            preconditionFailure("the router's session book holds \(Swift.type(of: sessions)), not \(Login.self)")
        }
        return book
    }

    /// Handles one line said to the bot or in one of its channels. Returns once the line is
    /// checked; the handler itself may still be running (see ``waitUntilIdle()``).
    public func handle(_ line: IRCUserMessage) async {
        if !ignores.isEmpty && isIgnored(line.sender) { return }
        // A bot never answers a bot: what the server marks as sent by one (IRCv3 bot mode) gets
        // nothing, so two bots can never keep each other talking.
        if Self.isFromABot(line) { return }
        if line.text.hasPrefix(String(CTCP.delimiter)) {
            if let query = CTCP(parsing: line.text) { await answer(query, from: line.sender) }
            return
        }
        // Most channel lines are chatter: they leave here, before the nick is asked for.
        guard parser.mayBeCommand(line.text, isPrivate: line.origin == .privateMessage) else { return }
        let botNick = await transport.currentNick()
        let mapping = caseMapping
        // Nor does it answer itself (a line an owner's !say sent to its own nick).
        if mapping.lowercased(line.sender.nick) == mapping.lowercased(botNick) { return }
        guard
            let parsed = parser.parse(
                line.text, isPrivate: line.origin == .privateMessage, botNick: botNick,
                nicksEqual: { mapping.lowercased($0) == mapping.lowercased($1) })
        else { return }
        let entry = catalog.lookup(parsed.word)

        // Every line addressed to the bot counts against the flood rule before anything is sent,
        // the greeting of a chat line included; the bot's owners are never held back by it (a busy
        // owner must still be able to !quit).
        let userKey = limitKey(for: line.sender)
        let owner = isOwner(line.sender)
        switch owner ? .allow : settings.userLimits?.floodGuard.register(userKey, at: clock.now()) ?? .allow {
        case .allow: break
        case .ignore: return
        case .startIgnoring(let duration):
            logger.notice("ignoring a user who sends too many commands", metadata: ["user": "\(line.sender.mask)"])
            await transport.send(
                OutgoingText(
                    .notice, to: line.sender.nick,
                    text: "You are sending commands too fast; I will ignore you for \(Self.describe(duration)).",
                    fairnessGroup: placeKey(for: line.sender))
            )
            return
        }
        // However many connections and user names one address uses, they share one budget.
        switch owner
            ? .allow
            : settings.userLimits?.hostBudget.register(placeKey(for: line.sender), at: clock.now())
                ?? .allow
        {
        case .allow: break
        case .refuse(let retryAfter, let tell):
            guard tell else { return }
            logger.notice(
                "refusing commands from a busy host", metadata: ["user": "\(line.sender.mask)"])
            await transport.send(
                OutgoingText(
                    .notice, to: line.sender.nick,
                    text:
                        "Too many commands are coming from your address right now; try again in \(Self.describe(retryAfter)).",
                    fairnessGroup: placeKey(for: line.sender))
            )
            return
        }

        guard let entry else { return await replyUnknown(parsed, line: line) }
        let command = entry.command
        if command.requiresOwner && !owner {
            logger.notice(
                "owner command refused", metadata: ["command": "\(command.name)", "user": "\(line.sender.description)"])
            return await reply("\(settings.prefix)\(command.name) is for the bot's owners only.", to: line)
        }
        let hint = "/msg \(botNick) \(settings.prefix)\(command.name)"

        if command.hasSecretArguments, case .channel(let channel) = line.origin {
            logger.warning(
                "secret command said in a channel; line dropped",
                metadata: ["command": "\(command.name)", "user": "\(line.sender.mask)", "channel": "\(channel)"])
            let text =
                "\(line.sender.nick): never type a password in a channel. Everyone here has seen it: change that password now, then log in privately with \(hint) …"
            await transport.send(OutgoingText(.privmsg, to: channel, text: text, inReplyTo: line.messageID))
            return
        }
        guard command.allowed.allows(line.origin) else {
            let text =
                command.allowed == .privateMessage
                ? "\(settings.prefix)\(command.name) works only in a private message: \(hint)\(command.usage.contains(" ") ? " …" : "")"
                : "\(settings.prefix)\(command.name) works only in a channel."
            return await reply(text, to: line)
        }
        if case .channel(let channel) = line.origin,
            settings.disabledPlugins.contains(where: {
                mapping.equals($0.key, channel) && $0.value.contains(entry.pluginName)
            })
        {
            return await reply(
                "\(settings.prefix)\(command.name) is turned off in \(channel); try it in a private message: \(hint)",
                to: line)
        }
        if let limit = command.rateLimit, let wait = checkRateLimit(limit, command: command, line: line) {
            return await reply(
                "Please wait \(Self.describe(wait)) before using \(settings.prefix)\(command.name) again.", to: line)
        }

        start(command, argument: parsed.argument, line: line, botNick: botNick, userKey: userKey)
    }

    /// Starts `command` for `line` once the user's earlier commands are done (see ``handle(_:)``).
    private func start(_ command: Command, argument: String, line: IRCUserMessage, botNick: String, userKey: String) {
        let (prefix, lineCap, sessions, transport, catalog, findSession, mapping) = (
            settings.prefix, settings.channelLineCap, sessions, transport, catalog, findSession, caseMapping
        )
        let makeInvocation = { (session: (any Sendable)?) in
            Invocation(
                sender: line.sender, origin: line.origin, commandName: command.name, argument: argument,
                prefix: prefix, botNick: botNick, caseMapping: mapping, session: session, sessions: sessions,
                channelLineCap: lineCap, transport: transport, catalog: catalog,
                questionID: line.origin == .privateMessage ? nil : line.messageID)
        }
        let context = PluginContext(transport: transport, sessions: sessions, logger: logger)
        let loginHint = "You need to log in first: /msg \(botNick) \(settings.prefix)login <email> <password>"
        let previous = inFlight[userKey]?.task
        let timeout = settings.commandTimeout
        lastCommandID += 1
        let id = lastCommandID
        // One task per command, isolated to the router; the handler itself runs off it (so a slow
        // handler holds up only its own user), and its time limit is kept by the watchdog.
        let task = Task {
            await previous?.value
            // The session is looked up once the user's earlier commands are done (one of them may be a
            // login); checking an unwatched one asks the server, which must not hold up other users.
            let (session, vouched) = await Self.servicesSession(
                line, found: await findSession(line.sender), signIns: catalog.signIns, caseMapping: mapping,
                transport: transport, context: context)
            if command.requiresLogin && session == nil {
                await self.reply(loginHint, to: line)
            } else {
                var invocation = makeInvocation(session)
                invocation.vouchedAccount = vouched
                await self.execute(command, invocation: invocation, id: id, timeout: timeout)
            }
            self.finished(id, key: userKey)
        }
        inFlight[userKey] = (id, task)
        deadlines.register(id, task: task)
    }

    /// The services account the server vouches for as `line`'s sender's (see ``AccountTracking``), and
    /// the session their command runs with once the ``ServicesAccountSignIn`` plugins saw `found`.
    private nonisolated static func servicesSession(
        _ line: IRCUserMessage, found: (any Sendable)?, signIns: [any ServicesAccountSignIn],
        caseMapping: CaseMapping, transport: any BotTransport, context: PluginContext
    ) async -> (session: (any Sendable)?, vouched: String?) {
        var vouched: String?
        var sender = line.sender
        if line.sender.loggedInAccount != nil {
            let tracking = await transport.accountTracking()
            let shares = tracking == .notified ? await transport.sharesChannel(withNick: line.sender.nick) : false
            vouched = tracking.vouchedAccount(of: line, sharesChannel: shares)
            if let vouched { sender.account = vouched }
        }
        var session = found
        for plugin in signIns {
            session = await plugin.session(
                for: sender, vouchedAccount: vouched, found: session, caseMapping: caseMapping, context: context)
        }
        return (session, vouched)
    }

    /// Runs every background plugin until the calling task is cancelled.
    public nonisolated func runBackgroundPlugins() async {
        let context = PluginContext(transport: transport, sessions: sessions, logger: logger)
        await withDiscardingTaskGroup { group in
            for plugin in backgroundPlugins {
                group.addTask { await plugin.run(context: context) }
            }
        }
    }

    /// Restores the state `plugins` kept across restarts (see ``RestoringPlugin``), one after the
    /// other; the plugins the router started with when nil. The host calls it before it reads
    /// commands.
    public nonisolated func restorePlugins(_ plugins: [any Plugin]? = nil) async {
        let context = PluginContext(transport: transport, sessions: sessions, logger: logger)
        let chosen = plugins ?? restoringPlugins
        for case let plugin as any RestoringPlugin in chosen {
            await plugin.restore(context: context)
        }
    }

    /// Waits until every command started so far has finished (tests, shutdown).
    public func waitUntilIdle() async {
        while let running = inFlight.values.first {
            await running.task.value
            await Task.yield()
        }
    }

    private func finished(_ id: Int, key: String) {
        deadlines.finished(id)
        if inFlight[key]?.id == id { inFlight[key] = nil }
    }

    /// Starts the watchdog unless it runs: it sleeps until the earliest deadline and cancels the
    /// handlers that passed theirs. With no handler running it waits one more time limit before it
    /// ends, so commands in quick succession (most take microseconds) do not each start a watchdog
    /// task. Every deadline is "start + the same time limit", so one that begins during that wait
    /// is never earlier than the wait's end.
    private func armWatchdog() {
        guard watchdog == nil else { return }
        watchdog = Task { await self.runWatchdog() }
    }

    private func runWatchdog() async {
        var idleUntil: ContinuousClock.Instant?
        while !Task.isCancelled {
            let now = ContinuousClock.now
            if let next = deadlines.earliest {
                idleUntil = nil
                if next > now {
                    try? await Task.sleep(for: now.duration(to: next))
                } else {
                    deadlines.expire(at: now)
                }
            } else if let end = idleUntil {
                if now >= end { break }
                try? await Task.sleep(for: now.duration(to: end))
            } else {
                idleUntil = now + settings.commandTimeout
            }
        }
        watchdog = nil
    }

    private func execute(_ command: Command, invocation: Invocation, id: Int, timeout: Duration) async {
        let started = clock.now()
        var metadata: Logger.Metadata = [
            "command": "\(command.name)", "user": "\(invocation.sender.mask)",
            "where": "\(invocation.origin.channelName ?? "private")",
        ]
        if !command.hasSecretArguments && !invocation.argument.isEmpty {
            metadata["argument"] = "\(Self.loggable(invocation.argument))"
        }
        let outcome: String
        deadlines.start(id, deadline: ContinuousClock.now + timeout)
        armWatchdog()
        do {
            // A handler stopped by the watchdog ends with its reply "took too long", however it ended.
            do {
                try await command.handler(invocation)
            } catch {
                if deadlines.hasTimedOut(id) { throw CommandTimedOut() }
                throw error
            }
            if deadlines.hasTimedOut(id) { throw CommandTimedOut() }
            outcome = "ok"
        } catch let error as UserFacingError {
            outcome = "refused"
            await invocation.reply(error.message)
        } catch is CommandTimedOut {
            outcome = "timeout"
            await invocation.reply(
                "Sorry, \(invocation.prefix)\(command.name) took too long and was stopped; please try again in a moment."
            )
        } catch {
            outcome = "error"
            metadata["error"] = "\(String(describing: error))"
            await invocation.reply(
                "Sorry, \(invocation.prefix)\(command.name) failed on my side; the operator can see the details in the log."
            )
        }
        let elapsed = clock.now() - started
        metadata["outcome"] = "\(outcome)"
        metadata["ms"] = "\(elapsed.milliseconds)"
        commandCounter(command.name, outcome: outcome).increment()
        commandTimer(command.name)
            .recordNanoseconds(
                elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        if outcome == "error" {
            logger.error("command failed", metadata: metadata)
        } else if command.requiresOwner {
            metadata["account"] = "\(invocation.sender.loggedInAccount ?? "none")"
            logger.notice("owner command", metadata: metadata)
        } else {
            logger.info("command", metadata: metadata)
        }
    }

    /// The counter of one command's outcomes, made once (a metrics factory looks labels up under a
    /// lock and validates them on every `Counter(label:)`).
    private func commandCounter(_ name: String, outcome: String) -> Counter {
        let key = name + "\u{0}" + outcome
        if let counter = outcomeCounters[key] { return counter }
        let counter = Counter(
            label: "onthemap_commands_total",
            dimensions: [("command", name), ("outcome", outcome)] + settings.metricDimensions)
        outcomeCounters[key] = counter
        return counter
    }

    /// The duration timer of one command, made once.
    private func commandTimer(_ name: String) -> Metrics.Timer {
        if let timer = durationTimers[name] { return timer }
        let timer = Metrics.Timer(
            label: "onthemap_command_duration_seconds", dimensions: [("command", name)] + settings.metricDimensions)
        durationTimers[name] = timer
        return timer
    }

    /// How long the sender must wait before `command` may run again, or nil when it may run now
    /// (and that run is recorded); nil for everyone without ``Settings/userLimits``.
    private func checkRateLimit(_ limit: RateLimit, command: Command, line: IRCUserMessage) -> Duration? {
        let key: String
        let interval: Duration
        switch limit {
        case .perUser(let every):
            (key, interval) = ("u|\(command.name)|\(limitKey(for: line.sender))", every)
        case .perVenue(let every):
            let venue = line.origin.channelName.map { caseMapping.lowercased($0) } ?? "pm:" + limitKey(for: line.sender)
            (key, interval) = ("v|\(command.name)|\(venue)", every)
        }
        return settings.userLimits?.cooldowns.check(key, every: interval, at: clock.now())
    }

    /// The answer to a line that names no command: a NOTICE, which by convention is never
    /// answered automatically, so another program's automatic reply cannot start a loop with it.
    private func replyUnknown(_ parsed: CommandLineParser.Parsed, line: IRCUserMessage) async {
        guard parsed.addressed else { return }
        let word = TextSanitizer.untrusted(parsed.word, maxBytes: 32)
        if parsed.bare {
            // A private chat line that is not a command: a gentle pointer, not an error.
            return await reply(
                "Hi! I am a class map bot. Try \(settings.prefix)help for what I can do.", to: line, kind: .notice)
        }
        await reply("I don't know the command \"\(word)\". Try \(settings.prefix)help.", to: line, kind: .notice)
    }

    /// The message tags with which a server marks a line sent by a bot (+B): IRCv3 bot mode's
    /// `bot`, its draft name, and InspIRCd's own.
    static let botTags = ["bot", "draft/bot", "inspircd.org/bot"]

    /// Whether the server says `line` comes from a bot.
    static func isFromABot(_ line: IRCUserMessage) -> Bool {
        !line.message.tags.isEmpty && botTags.contains { line.message.tags[$0] != nil }
    }

    private func reply(_ text: String, to line: IRCUserMessage, kind: OutgoingText.Kind = .privmsg) async {
        switch line.origin {
        case .privateMessage:
            await transport.send(
                OutgoingText(kind, to: line.sender.nick, text: text, fairnessGroup: placeKey(for: line.sender)))
        case .channel(let channel):
            let addressed = "\(line.sender.nick): \(text)"
            await transport.send(
                OutgoingText(
                    kind, to: channel, text: addressed, fairnessKey: line.sender.nick,
                    fairnessGroup: placeKey(for: line.sender), inReplyTo: line.messageID))
        }
    }

    /// Answers a CTCP VERSION, PING, TIME or CLIENTINFO query (others are ignored), within the
    /// sender's flood limit and the CTCP budget.
    private func answer(_ query: CTCP, from sender: UserIdentity) async {
        let answer: String
        switch query.verb {
        case "VERSION": answer = settings.version
        case "PING": answer = TextSanitizer.untrusted(query.arguments, maxBytes: 64)
        case "TIME": answer = Date().formatted(.iso8601)
        case "CLIENTINFO": answer = "CLIENTINFO PING TIME VERSION"
        default: return
        }
        switch settings.userLimits?.floodGuard.register(limitKey(for: sender), at: clock.now()) ?? .allow {
        case .allow: break
        case .ignore, .startIgnoring: return
        }
        let host = sender.host.map { $0.lowercased() } ?? "n:" + caseMapping.lowercased(sender.nick)
        guard settings.ctcpBudget.allows(host: host, at: clock.now()) else { return }
        await transport.send(
            OutgoingText(
                .notice, to: sender.nick, text: CTCP(verb: query.verb, arguments: answer).encoded,
                fairnessGroup: placeKey(for: sender)))
    }

    /// Whose limits a command counts against: the services account when known, else user@host
    /// (a nick change does not escape a limit, and students behind one school NAT or web gateway,
    /// who differ in their user names, do not share one), else the nick.
    private func limitKey(for sender: UserIdentity) -> String {
        sender.key(by: .userAtHost, caseMapping: caseMapping)
    }

    /// Where a sender connects from, for the host budget and the send queue's turns: the services
    /// account when known, else the host (an IPv6 address by its /64), else the nick.
    private func placeKey(for sender: UserIdentity) -> String {
        sender.key(by: .network, caseMapping: caseMapping)
    }

    /// An argument as it may be logged: one clean line of at most 200 bytes, with the user name
    /// and password of any link (`https://user:password@host`) replaced.
    static func loggable(_ argument: String) -> String {
        let text = TextSanitizer.untrusted(argument)
        return TextSanitizer.truncated(LinkCredentials.redacting(text) ?? text, maxBytes: 200)
    }

    static func describe(_ duration: Duration) -> String {
        let seconds = max(
            1, Int((Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18).rounded(.up)))
        if seconds >= 120 { return "\((seconds + 59) / 60) minutes" }
        return seconds == 1 ? "1 second" : "\(seconds) seconds"
    }
}

private struct CommandTimedOut: Error {}

extension Duration {
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
