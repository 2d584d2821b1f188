import Foundation
import IRCProtocol
import Localization
import Logging

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
        /// What command log lines say of the sender and their words: by default neither the
        /// arguments nor who sent them.
        public var logDetail: CommandLogDetail = .pseudonymous(pseudonym: nil)
        /// The language of each channel, and of everyone who chose none.
        public var languages = ChannelLanguages()

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
    /// Who may act as a logged-in user.
    public nonisolated let gate: any SessionGate
    /// The sessions behind the gate, which the host keeps in step with the network.
    public nonisolated var sessions: any SessionRegistry { gate.registry }
    /// The plugins that also work in the background (see ``runBackgroundPlugins()``).
    public nonisolated let backgroundPlugins: [any BackgroundPlugin]
    /// The plugins the router started with that keep state across restarts (see
    /// ``restorePlugins(_:)``).
    public nonisolated let restoringPlugins: [any RestoringPlugin]
    var settings: Settings
    private var parser: CommandLineParser
    nonisolated let transport: any BotTransport
    private nonisolated let logger: Logger
    let clock: any BotClock
    var caseMapping: CaseMapping = .rfc1459
    /// Masks whose commands are ignored (`!ignore`).
    var ignores = IgnoreList()
    /// What the owners must hear about (``raiseOwnerAlert(_:key:)``).
    var ownerAlerts = OwnerAlerts()
    /// The last command started per user (the next one of that user waits for it).
    private var inFlight: [String: (id: Int, task: Task<Void, Never>)] = [:]
    private var lastCommandID = 0
    /// Running handlers' time limits; one watchdog task enforces them all.
    private var deadlines = CommandDeadlines()
    private var watchdog: Task<Void, Never>?
    /// The log lines and metrics of what commands did.
    private var commandLog: CommandLog
    /// The host's observer of what commands did (a test's record), told after the log.
    private nonisolated let observer: (any CommandObserver)?
    /// What language each user chose (none: everyone reads the channel's or default language).
    private nonisolated let languageChoices: (any LanguageChoices)?
    /// The messages of every language.
    private nonisolated let catalogs: Catalogs

    /// `gate` says who may act as a logged-in user; the host hands the same gate to the plugins that
    /// read sessions (see ``LoginGate/session(of:)``). `observer` is told how each command line
    /// ended, after the router's own log and metrics. Each user is answered in the language
    /// `languageChoices` says they chose, else in the channel's (``Settings/languages``).
    public init(
        plugins: [any Plugin], settings: Settings = Settings(), transport: any BotTransport,
        gate: any SessionGate, logger: Logger = Logger(label: "onthemap.router"),
        clock: any BotClock = SystemBotClock(), observer: (any CommandObserver)? = nil,
        languageChoices: (any LanguageChoices)? = nil, catalogs: Catalogs = .bundled
    ) {
        self.languageChoices = languageChoices
        self.catalogs = catalogs
        self.catalog = CommandCatalog(plugins: plugins)
        self.backgroundPlugins = plugins.compactMap { $0 as? any BackgroundPlugin }
        self.restoringPlugins = plugins.compactMap { $0 as? any RestoringPlugin }
        self.settings = settings
        self.parser = CommandLineParser(prefix: settings.prefix)
        self.transport = transport
        self.gate = gate
        self.logger = logger
        self.clock = clock
        self.commandLog = CommandLog(
            logger: logger, dimensions: settings.metricDimensions, detail: settings.logDetail)
        self.observer = observer
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
        commandLog = CommandLog(logger: logger, dimensions: updated.metricDimensions, detail: updated.logDetail)
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
        let phrases = await phrasebook(for: line.sender, in: line.origin.channelName, caseMapping: mapping)
        let facts = AdmissionFacts(
            botNick: botNick, caseMapping: mapping, senderIsOwner: isOwner(line.sender), now: clock.now(),
            phrases: phrases)
        switch Self.admit(parsed, entry: entry, line: line, facts: facts, settings: &settings) {
        case .ignore:
            return
        case .refuse(let refusal):
            await refuse(refusal, command: entry?.command.name, line: line)
        case .run(let entry):
            if facts.senderIsOwner { await tellStandingAlerts(to: line.sender) }
            start(
                entry.command, argument: parsed.argument, line: line, botNick: botNick,
                userKey: Self.limitKey(for: line.sender, caseMapping: mapping), phrases: phrases)
        }
    }

    /// The phrasebook of `channel`'s language, for a line said to the whole channel.
    public func phrasebook(forChannel channel: String) -> Phrasebook {
        catalogs.phrasebook(settings.languages.language(of: channel, caseMapping: caseMapping))
    }

    /// The phrasebook of the language `sender` reads: the one they chose, else `channel`'s (nil: a
    /// private conversation, the default language).
    func phrasebook(for sender: UserIdentity, in channel: String?, caseMapping: CaseMapping) async -> Phrasebook {
        let chosen = await languageChoices?.chosenLanguage(of: sender, caseMapping: caseMapping)
        return catalogs.phrasebook(chosen ?? settings.languages.language(of: channel, caseMapping: caseMapping))
    }

    /// Reports `refusal` and tells the sender.
    private func refuse(_ refusal: Refusal, command: String?, line: IRCUserMessage) async {
        report(.refused(refusal, command: command, line: line))
        switch refusal.delivery {
        case .reply(let kind):
            await reply(refusal.sentence, to: line, kind: kind)
        case .noticeToSender:
            var channelContext: String?
            if case .channel(let channel) = line.origin { channelContext = channel }
            await transport.send(
                OutgoingText(
                    .notice, to: line.sender.nick, text: refusal.sentence, fairnessGroup: placeKey(for: line.sender),
                    channelContext: channelContext))
        case .channel(let channel):
            await transport.send(
                OutgoingText(.privmsg, to: channel, text: refusal.sentence, inReplyTo: line.messageID))
        }
    }

    /// Tells the log and metrics, then the host's observer.
    private func report(_ event: CommandEvent) {
        commandLog.observe(event)
        observer?.observe(event)
    }

    /// Starts `command` for `line` once the user's earlier commands are done (see ``handle(_:)``).
    private func start(
        _ command: Command, argument: String, line: IRCUserMessage, botNick: String, userKey: String,
        phrases: Phrasebook
    ) {
        let (prefix, lineCap, gate, transport, catalog, mapping, languages) = (
            settings.prefix, settings.channelLineCap, gate, transport, catalog, caseMapping, settings.languages
        )
        lastCommandID += 1
        let id = lastCommandID
        let makeInvocation = {
            Invocation(
                sender: line.sender, origin: line.origin, commandName: command.name, argument: argument,
                prefix: prefix, botNick: botNick, caseMapping: mapping, commandID: id,
                channelLineCap: lineCap, transport: transport, catalog: catalog,
                questionID: line.origin == .privateMessage ? nil : line.messageID, phrases: phrases,
                languages: languages)
        }
        let context = PluginContext(transport: transport, logger: logger)
        let loginHint = phrases("router.notLoggedIn", ["hint": "/msg \(botNick) \(settings.prefix)login"])
        let previous = inFlight[userKey]?.task
        let timeout = settings.commandTimeout
        // One task per command, isolated to the router; the handler itself runs off it (so a slow
        // handler holds up only its own user), and its time limit is kept by the watchdog.
        let task = Task {
            await previous?.value
            // The session is looked up once the user's earlier commands are done (one of them may be a
            // login); checking an unwatched one asks the server, which must not hold up other users.
            let (sender, vouched) = await Self.vouchedSender(of: line, transport: transport)
            let admitted = await gate.admit(
                id, sender: sender, vouchedAccount: vouched, caseMapping: mapping, plugins: catalog.plugins,
                transport: transport, context: context)
            if command.requiresLogin && !admitted {
                await self.refuse(Refusal(.notLoggedIn, loginHint), command: command.name, line: line)
            } else {
                var invocation = makeInvocation()
                invocation.vouchedAccount = vouched
                await self.execute(command, invocation: invocation, id: id, timeout: timeout)
            }
            gate.release(id)
            self.finished(id, key: userKey)
        }
        inFlight[userKey] = (id, task)
        deadlines.register(id, task: task)
    }

    /// The services account the server vouches for as `line`'s sender's (see ``AccountTracking``),
    /// and the sender with that account (none: the sender as the line gave it).
    private nonisolated static func vouchedSender(
        of line: IRCUserMessage, transport: any BotTransport
    ) async -> (sender: UserIdentity, vouched: String?) {
        guard line.sender.loggedInAccount != nil else { return (line.sender, nil) }
        let tracking = await transport.accountTracking()
        let shares = tracking == .notified ? await transport.sharesChannel(withNick: line.sender.nick) : false
        guard let vouched = tracking.vouchedAccount(of: line, sharesChannel: shares) else { return (line.sender, nil) }
        var sender = line.sender
        sender.account = vouched
        return (sender, vouched)
    }

    /// Runs every background plugin until the calling task is cancelled.
    public nonisolated func runBackgroundPlugins() async {
        let context = PluginContext(transport: transport, logger: logger)
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
        let context = PluginContext(transport: transport, logger: logger)
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
        let outcome: CommandReport.Outcome
        var failure: String?
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
            outcome = .ok
        } catch let error as UserFacingError {
            outcome = .refused
            await invocation.reply(error.message(in: invocation.phrases))
        } catch is CommandTimedOut {
            outcome = .timeout
            await invocation.reply(
                invocation.phrases("router.timedOut", ["command": invocation.prefix + command.name]))
        } catch {
            outcome = .error
            failure = String(describing: error)
            await invocation.reply(
                invocation.phrases("router.failed", ["command": invocation.prefix + command.name]))
        }
        let argument = invocation.argument
        report(
            .finished(
                CommandReport(
                    command: command.name, outcome: outcome, sender: invocation.sender, origin: invocation.origin,
                    loggableArgument: command.hasSecretArguments || argument.isEmpty ? nil : Self.loggable(argument),
                    byOwner: command.requiresOwner, error: failure, duration: clock.now() - started)))
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

    /// See ``limitKey(for:caseMapping:)``.
    private func limitKey(for sender: UserIdentity) -> String {
        Self.limitKey(for: sender, caseMapping: caseMapping)
    }

    /// See ``placeKey(for:caseMapping:)``.
    private func placeKey(for sender: UserIdentity) -> String {
        Self.placeKey(for: sender, caseMapping: caseMapping)
    }

    /// An argument as it may be logged: one clean line of at most 200 bytes, with the user name
    /// and password of any link (`https://user:password@host`) replaced.
    static func loggable(_ argument: String) -> String {
        let text = TextSanitizer.untrusted(argument)
        return TextSanitizer.truncated(LinkCredentials.redacting(text) ?? text, maxBytes: 200)
    }

    /// `duration` in words, in whole seconds rounded up (see ``Phrasebook/duration(seconds:hours:)``).
    static func describe(_ duration: Duration, in phrases: Phrasebook) -> String {
        phrases.duration(
            seconds: Int(
                (Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18).rounded(.up)))
    }
}

private struct CommandTimedOut: Error {}

extension Duration {
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
