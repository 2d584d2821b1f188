import BotKit
import ClassKit
import Foundation
import IRCClient
import IRCProtocol
import Localization
import Logging
import OnTheMapPlugins
import NIOConcurrencyHelpers
import OnTheMapService

/// What the owner commands and SIGHUP act on: one network's connection, router, plugins and the
/// config. It is made before the router (the owner plugin holds it) and told about the connection
/// once that exists; without one (the console) the IRC commands say so. The controls of a bot's
/// networks form one ``BotControlGroup``: a reload reads the file once and applies it to each,
/// `!status` shows them all, and `!quit all` stops them all.
public final class BotControl: Sendable {
    private struct State: Sendable {
        var client: IRCClient?
        var router: CommandRouter?
        var checkBackend: (@Sendable () async -> HealthReport.Backend)?
        /// What the directory keeps beyond pins, as the stack found it.
        var capabilities: DirectoryCapabilities?
        /// The config in force (reloads apply to it).
        var current: BotConfiguration
        /// The class plugins running now, by name (a reload keeps those whose section is unchanged,
        /// with what they remember).
        var plugins: [String: any Plugin] = [:]
        /// Whether the state kept across restarts was restored (then plugins a reload makes afresh
        /// restore theirs too).
        var restored = false
    }

    /// The config file reloads read; nil when the bot was not started from one.
    let configPath: String?
    /// The network this control acts on (a name of the config's `networks`).
    public let network: String
    /// Every network's control, this one's included.
    let group: BotControlGroup
    /// The config the bot started with (what needs a restart is compared with it).
    let started: BotConfiguration
    /// The class this network serves (its sessions among them).
    public let services: ClassServices
    let startedAt = ContinuousClock.now
    let logger: Logger
    private let state: NIOLockedValueBox<State>
    /// The ignore list as kept across restarts.
    let keptIgnores: KeptState<[KeptIgnore]>
    /// How the router's log names the senders of commands (the router's settings on every reload).
    let logPseudonyms: LogPseudonyms

    init(
        config: BotConfiguration, configPath: String?, services: ClassServices, logger: Logger,
        logPseudonyms: LogPseudonyms, network: String? = nil, group: BotControlGroup = BotControlGroup()
    ) {
        self.logPseudonyms = logPseudonyms
        self.configPath = configPath
        self.network = network ?? config.networks.first?.name ?? BotConfiguration.defaultNetworkName
        self.group = group
        self.started = config
        self.services = services
        self.logger = logger
        self.state = NIOLockedValueBox(State(current: config))
        self.keptIgnores = KeptState(
            key: Self.ignoresKey(instance: services.keptStateInstance), store: services.stateStore)
        group.add(self)
    }

    /// This network's section of `config` (the first network's when it has none of that name).
    func section(of config: BotConfiguration) -> BotConfiguration.IRCSection {
        config.network(named: network)?.irc ?? config.irc
    }

    /// Remembers the router and the plugins it runs.
    func attach(router: CommandRouter, plugins: [any Plugin]) {
        state.withLockedValue { s in
            s.router = router
            s.plugins = Dictionary(plugins.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Remembers the IRC connection, how to ask the backend whether it answers, and what the
    /// directory keeps beyond pins (for `!status`).
    func attach(
        client: IRCClient, capabilities: DirectoryCapabilities,
        checkBackend: @escaping @Sendable () async -> HealthReport.Backend
    ) {
        state.withLockedValue { s in
            s.client = client
            s.capabilities = capabilities
            s.checkBackend = checkBackend
        }
    }

    /// Notes that the kept state was restored (see ``restoreKeptState()``).
    func markRestored() { state.withLockedValue { $0.restored = true } }

    var client: IRCClient? { state.withLockedValue { $0.client } }
    var router: CommandRouter? { state.withLockedValue { $0.router } }
    var current: BotConfiguration { state.withLockedValue { $0.current } }

    // MARK: - Reload

    /// What a reload did, for the owner and the log.
    public struct ReloadOutcome: Sendable {
        /// One line: what was applied and what needs a restart, or why nothing was (in the
        /// language of the phrasebook the reload was asked with; the config checker's problems and
        /// warnings in it are English, as `check-config` writes them).
        public var summary: String
        public var succeeded: Bool
    }

    /// Reads the config file again and applies, on every network, what can change while the bot
    /// runs: channels, announce_to, the command prefix, flood limits, owners, plugins on/off and per
    /// channel, user limits and the command plugins' own sections. A config with problems changes
    /// nothing; a network added or removed waits for a restart. The outcome is said in `phrases`'
    /// language (an owner's `!reload`; SIGHUP's is English).
    public func reload(in phrases: Phrasebook = .english) async -> ReloadOutcome {
        guard let configPath else {
            return ReloadOutcome(summary: phrases("owner.reload.noFile"), succeeded: false)
        }
        let new: BotConfiguration
        do {
            new = try ConfigLoader.load(path: configPath)
        } catch {
            let problems = error.problems.prefix(3).map(\.description).joined(separator: "; ")
            logger.error("config reload refused: the file has problems", metadata: ["problems": "\(error.problems)"])
            let summary =
                error.problems.count > 3
                ? phrases(
                    "owner.reload.problemsAndMore",
                    ["path": configPath, "problems": problems, "count": error.problems.count - 3])
                : phrases("owner.reload.problems", ["path": configPath, "problems": problems])
            return ReloadOutcome(summary: summary, succeeded: false)
        }
        guard group.beginReload() else {
            return ReloadOutcome(summary: phrases("owner.reload.busy"), succeeded: false)
        }
        defer { group.endReload() }
        let running = state.withLockedValue { $0.plugins }
        let background = Set(running.compactMap { $0.value is any BackgroundPlugin ? $0.key : nil } + ["announce"])
        let controls = group.controls
        let changes = ConfigChanges(
            current: current, started: started, new: new, background: background, networks: controls.map(\.network))
        for control in controls where new.network(named: control.network) != nil || controls.count == 1 {
            await control.apply(new, background: background)
        }
        // What check-config would warn about is said here too: a reload is how owners change.
        let warnings = ConfigLoader.warnings(for: new)
        for warning in warnings {
            logger.warning(
                "config reloaded with a warning", metadata: ["key": "\(warning.key)", "warning": "\(warning.message)"])
        }
        let more =
            warnings.count > 2
            ? [
                phrases(
                    "owner.reload.moreWarnings", ["count": warnings.count - 2, "check": "onthemap-bot check-config"])
            ]
            : []
        let summary =
            ([changes.summary(path: configPath, in: phrases)]
            + warnings.prefix(2).map { phrases("owner.reload.warning", ["warning": $0.description]) } + more)
            .joined(separator: " ")
        logger.notice(
            "config reloaded", metadata: ["applied": "\(changes.applied)", "needRestart": "\(changes.needRestart)"])
        return ReloadOutcome(summary: summary, succeeded: true)
    }

    /// Puts `new` in force on this network: its plugins, router settings, channels and flood limits.
    private func apply(_ new: BotConfiguration, background: Set<String>) async {
        let (old, running, router, client) = state.withLockedValue { ($0.current, $0.plugins, $0.router, $0.client) }
        let plugins = rebuiltPlugins(old: old, new: new, running: running, background: background)
        state.withLockedValue { s in
            s.current = new
            s.plugins = Dictionary(plugins.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        }
        services.update(settings: PluginAssembly.settings(for: new, network: network))
        if let router {
            let fresh = plugins.filter {
                !background.contains($0.name)
                    && (running[$0.name] == nil || old.plugins.sections[$0.name] != new.plugins.sections[$0.name])
            }
            if state.withLockedValue({ $0.restored }) { await router.restorePlugins(fresh) }
            await router.replacePlugins(plugins + [OwnerPlugin(control: self)])
            await router.apply(BotAssembly.routerSettings(config: new, network: network, pseudonyms: logPseudonyms))
        }
        if let client { await follow(old: section(of: old), new: section(of: new), on: client) }
    }

    /// The class plugins of `new`: a running plugin whose section did not change stays as it is;
    /// one turned on or with a new section is made afresh. Background plugins stay as they started.
    private func rebuiltPlugins(
        old: BotConfiguration, new: BotConfiguration, running: [String: any Plugin], background: Set<String>
    ) -> [any Plugin] {
        let enabled = Set(new.plugins.enabled.map { $0.lowercased() })
        return PluginAssembly.registrations.compactMap { registration in
            let name = registration.name
            if background.contains(name) { return running[name] }
            guard enabled.contains(name) else { return nil }
            if let plugin = running[name], old.plugins.sections[name] == new.plugins.sections[name] { return plugin }
            return registration.make(section: new.plugins.sections[name], services: services)
        }
    }

    /// Joins the channels `new` adds, leaves those it drops, and sends at its flood pace.
    private func follow(old: BotConfiguration.IRCSection, new: BotConfiguration.IRCSection, on client: IRCClient) async
    {
        let mapping = await client.serverSupport.caseMapping
        let before = Set(old.channels.map { mapping.lowercased($0.name) })
        let after = Set(new.channels.map { mapping.lowercased($0.name) })
        for channel in new.channels where !before.contains(mapping.lowercased(channel.name)) {
            await client.join(channel.name, key: channel.key)
        }
        for channel in old.channels where !after.contains(mapping.lowercased(channel.name)) {
            await client.part(channel.name, reason: "Channel removed from my config")
        }
        if old.flood != new.flood { await client.setFlood(IRCClientConfiguration(new).flood) }
    }

    // MARK: - Status

    /// `!status`: connection, nick, channels, backend, sessions, send queue, uptime, version; with
    /// several networks, one line for each; in `phrases`' language (what the directory keeps and
    /// the count of pins kept finer than their level in English, as the log and `check-config`
    /// say them).
    func statusLines(in phrases: Phrasebook = .english) async -> [String] {
        let controls = group.controls
        let (checkBackend, capabilities) = state.withLockedValue { ($0.checkBackend, $0.capabilities) }
        let uptime = Self.describe(startedAt.duration(to: .now), in: phrases)
        let version = BotVersion.current
        var lines: [String] = []
        if controls.count > 1 {
            lines.append(
                phrases("owner.status.networks", ["version": version, "uptime": uptime, "count": controls.count]))
            for control in controls { lines.append(await control.networkStatus(in: phrases)) }
        } else if let link = await connectionStatus(in: phrases) {
            lines.append(phrases("owner.status.connected", ["version": version, "uptime": uptime, "link": link]))
        } else {
            lines.append(phrases("owner.status.console", ["version": version, "uptime": uptime]))
        }
        if let checkBackend {
            let backend = await checkBackend()
            let kept = capabilities.map { "; \($0.sentence)" } ?? ""
            lines.append(
                backend.reachable
                    ? phrases("owner.status.backendAnswers", ["name": backend.name, "capabilities": kept])
                    : phrases(
                        "owner.status.backendDown",
                        [
                            "name": backend.name, "error": backend.error ?? phrases("owner.status.noAnswer"),
                            "capabilities": kept,
                        ]))
        }
        if services.accounts != nil, let count = try? await services.finerPinCount(),
            let sentence = count.sentence(default: services.settings.privacy.defaultPrecision)
        {
            lines.append(sentence + ".")
        }
        for control in controls {
            if let warning = await control.accountTrackingWarning(in: phrases) {
                lines.append(
                    (controls.count > 1 ? "\(control.network): " : "")
                        + phrases("owner.status.warning", ["warning": warning]))
            }
            if let warning = await control.openChannelsWarning(in: phrases) {
                lines.append((controls.count > 1 ? "\(control.network): " : "") + warning)
            }
            for alert in await control.router?.standingOwnerAlerts(in: phrases) ?? [] {
                lines.append((controls.count > 1 ? "\(control.network): " : "") + alert)
            }
        }
        if controls.count <= 1 {
            let counts = await counts(in: phrases)
            if !counts.isEmpty { lines.append(counts.joined(separator: "; ") + ".") }
        }
        return lines
    }

    /// The warning for a class that turned passwords off (`plugins.login.passwords: false`) on a
    /// server that announces no account tracking: nobody can log in there. Nil when all is well or
    /// the bot is not registered yet. In `phrases`' language (the log's is English).
    func accountTrackingWarning(in phrases: Phrasebook = .english) async -> String? {
        guard let client, !LoginPlugin.Settings(section: current.plugins.sections["login"]).passwords,
            await client.isRegistered
        else { return nil }
        guard IRCBotTransport.accountTracking(enabled: await client.enabledCapabilities) == .none else { return nil }
        return phrases("owner.warning.noAccountTracking")
    }

    /// The channels the bot is in that the server says anyone may join (no key, not invite-only),
    /// where students' places and links are withheld while the class is for the class and
    /// `privacy.open_channel` is `names`, in a sentence; nil when there is none (or no connection).
    func openChannelsWarning(in phrases: Phrasebook = .english) async -> String? {
        guard let client, services.settings.privacy.withholdsPlacesInOpenChannels else { return nil }
        var open: [String] = []
        for channel in await client.joinedChannels.sorted() {
            if await client.channelAccess(channel)?.isOpen == true { open.append(channel) }
        }
        guard !open.isEmpty else { return nil }
        return phrases(
            open.count == 1 ? "owner.warning.openChannel" : "owner.warning.openChannels",
            ["channels": open.joined(separator: ", ")])
    }

    /// Whether the class withholds students' places in channels anyone may join (see
    /// ``openChannelsWarning()``).
    var withholdsPlacesInOpenChannels: Bool { services.settings.privacy.withholdsPlacesInOpenChannels }

    /// "registered on host:port over TLS as Nick; channels: …" in `phrases`' language, or nil
    /// without a connection.
    private func connectionStatus(in phrases: Phrasebook) async -> String? {
        guard let client else { return nil }
        let irc = section(of: current)
        let registered = await client.isRegistered
        let stopped = await client.isShuttingDown
        let channels = await client.joinedChannels.sorted()
        let state = phrases(
            registered ? "owner.status.registered" : stopped ? "owner.status.left" : "owner.status.notRegistered")
        var botMode = ""
        if registered, let mode = await client.botMode {
            let key =
                mode.isSet
                ? "owner.status.botModeKept"
                : mode.answered ? "owner.status.botModeRefused" : "owner.status.botModeAsked"
            botMode = phrases(key, ["mode": String(mode.mode)])
        }
        var pacing = ""
        if registered {
            switch await client.pacing {
            case .byServer: pacing = phrases("owner.status.pacingServer")
            case .byFloodGate(let burst, let rate) where rate > 0:
                let perSecond = rate == rate.rounded() ? "\(Int(rate))" : "\(rate)"
                pacing = phrases("owner.status.pacingGate", ["burst": String(burst), "rate": perSecond])
            case .byFloodGate: pacing = phrases("owner.status.pacingNone")
            }
        }
        return phrases(
            "owner.status.link",
            [
                "state": state, "server": "\(irc.server):\(irc.port)",
                "tls": phrases(irc.tls ? "owner.status.tls" : "owner.status.noTLS"), "nick": await client.currentNick,
                "mode": botMode, "pacing": pacing,
                "channels": channels.isEmpty ? phrases("owner.status.noChannels") : channels.joined(separator: ", "),
            ])
    }

    /// Sessions, ignored masks and queued lines of this network.
    private func counts(in phrases: Phrasebook) async -> [String] {
        var counts: [String] = []
        if let router {
            counts.append(phrases("owner.status.loggedIn", ["count": await router.sessions.count]))
            counts.append(phrases("owner.status.ignored", ["count": await router.ignoredMasks().count]))
        }
        if let client { counts.append(phrases("owner.status.queued", ["count": await client.queuedLineCount])) }
        return counts
    }

    /// This network's line of a several-network `!status`.
    func networkStatus(in phrases: Phrasebook = .english) async -> String {
        let link = await connectionStatus(in: phrases) ?? phrases("owner.status.notConnected")
        let counts = await counts(in: phrases)
        return phrases(
            "owner.status.network",
            ["network": network, "link": link, "counts": counts.isEmpty ? "" : "; " + counts.joined(separator: ", ")])
    }

    /// How long the bot has run, in `phrases`' language ("5 min", "2 h 3 min", "3 days 4 h").
    static func describe(_ duration: Duration, in phrases: Phrasebook = .english) -> String {
        let seconds = Int(duration.components.seconds)
        let minutes = seconds / 60
        if minutes < 1 { return phrases("owner.uptime.seconds", ["seconds": seconds]) }
        if minutes < 60 { return phrases("owner.uptime.minutes", ["minutes": minutes]) }
        if minutes < 48 * 60 { return phrases("owner.uptime.hours", ["hours": minutes / 60, "minutes": minutes % 60]) }
        return phrases("owner.uptime.days", ["days": minutes / 1440, "hours": minutes % 1440 / 60])
    }
}
