import BotKit
import Foundation
import IRCClient
import Logging
import OnTheMapPlugins
import NIOConcurrencyHelpers

/// What the owner commands and SIGHUP act on: the running bot's connection, router, plugins and
/// config. It is made before the router (the owner plugin holds it) and told about the connection
/// once that exists; without one (the console) the IRC commands say so.
public final class BotControl: Sendable {
    private struct State: Sendable {
        var client: IRCClient?
        var router: CommandRouter?
        var checkBackend: (@Sendable () async -> HealthReport.Backend)?
        /// The config in force (reloads apply to it).
        var current: BotConfiguration
        /// The class plugins running now, by name (a reload keeps those whose section is unchanged,
        /// with what they remember).
        var plugins: [String: any Plugin] = [:]
        var reloading = false
        /// Whether the state kept across restarts was restored (then plugins a reload makes afresh
        /// restore theirs too).
        var restored = false
    }

    /// The config file reloads read; nil when the bot was not started from one.
    let configPath: String?
    /// The config the bot started with (what needs a restart is compared with it).
    let started: BotConfiguration
    let services: ClassServices
    let startedAt = ContinuousClock.now
    let logger: Logger
    private let state: NIOLockedValueBox<State>
    /// The ignore list as kept across restarts.
    let keptIgnores: KeptState<[KeptIgnore]>

    init(config: BotConfiguration, configPath: String?, services: ClassServices, logger: Logger) {
        self.configPath = configPath
        self.started = config
        self.services = services
        self.logger = logger
        self.state = NIOLockedValueBox(State(current: config))
        self.keptIgnores = KeptState(
            key: Self.ignoresKey(instance: services.keptStateInstance), store: services.stateStore)
    }

    /// Remembers the router and the plugins it runs.
    func attach(router: CommandRouter, plugins: [any Plugin]) {
        state.withLockedValue { s in
            s.router = router
            s.plugins = Dictionary(plugins.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Remembers the IRC connection and how to ask the backend whether it answers.
    func attach(client: IRCClient, checkBackend: @escaping @Sendable () async -> HealthReport.Backend) {
        state.withLockedValue { s in
            s.client = client
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
        /// One line: what was applied and what needs a restart, or why nothing was.
        public var summary: String
        public var succeeded: Bool
    }

    /// Reads the config file again and applies what can change while the bot runs: channels,
    /// announce_to, the command prefix, flood limits, owners, plugins on/off and per channel, user
    /// limits and the command plugins' own sections. A config with problems changes nothing.
    public func reload() async -> ReloadOutcome {
        guard let configPath else {
            return ReloadOutcome(
                summary: "There is no config file to reload: this bot was not started from one.", succeeded: false)
        }
        let new: BotConfiguration
        do {
            new = try ConfigLoader.load(path: configPath)
        } catch {
            let problems = error.problems.prefix(3).map(\.description).joined(separator: "; ")
            let more = error.problems.count > 3 ? " (and \(error.problems.count - 3) more)" : ""
            logger.error("config reload refused: the file has problems", metadata: ["problems": "\(error.problems)"])
            return ReloadOutcome(
                summary: "\(configPath) has problems, nothing changed: \(problems)\(more)", succeeded: false)
        }
        let mayReload = state.withLockedValue { s -> Bool in
            if s.reloading { return false }
            s.reloading = true
            return true
        }
        guard mayReload else {
            return ReloadOutcome(summary: "A reload is already under way; try again in a moment.", succeeded: false)
        }
        defer { state.withLockedValue { $0.reloading = false } }
        let (old, running, router, client) = state.withLockedValue { ($0.current, $0.plugins, $0.router, $0.client) }
        let background = Set(running.compactMap { $0.value is any BackgroundPlugin ? $0.key : nil } + ["announce"])
        let changes = ConfigChanges(current: old, started: started, new: new, background: background)
        let plugins = rebuiltPlugins(old: old, new: new, running: running, background: background)
        state.withLockedValue { s in
            s.current = new
            s.plugins = Dictionary(plugins.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        }
        services.update(settings: PluginAssembly.settings(for: new))
        if let router {
            let fresh = plugins.filter {
                !background.contains($0.name)
                    && (running[$0.name] == nil || old.plugins.sections[$0.name] != new.plugins.sections[$0.name])
            }
            if state.withLockedValue({ $0.restored }) { await router.restorePlugins(fresh) }
            await router.replacePlugins(plugins + [OwnerPlugin(control: self)])
            await router.apply(BotAssembly.routerSettings(config: new))
        }
        if let client { await follow(old: old.irc, new: new.irc, on: client) }
        let summary = changes.summary(path: configPath)
        logger.notice(
            "config reloaded", metadata: ["applied": "\(changes.applied)", "needRestart": "\(changes.needRestart)"])
        return ReloadOutcome(summary: summary, succeeded: true)
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
        let before = Set(old.channels.map { $0.name.lowercased() })
        let after = Set(new.channels.map { $0.name.lowercased() })
        for channel in new.channels where !before.contains(channel.name.lowercased()) {
            await client.join(channel.name, key: channel.key)
        }
        for channel in old.channels where !after.contains(channel.name.lowercased()) {
            await client.part(channel.name, reason: "Channel removed from my config")
        }
        if old.flood != new.flood { await client.setFlood(IRCClientConfiguration(new).flood) }
    }

    // MARK: - Status

    /// `!status`: connection, nick, channels, backend, sessions, send queue, uptime, version.
    func statusLines() async -> [String] {
        let (client, router, checkBackend, config) = state.withLockedValue {
            ($0.client, $0.router, $0.checkBackend, $0.current)
        }
        var lines: [String] = []
        let uptime = Self.describe(startedAt.duration(to: .now))
        if let client {
            let registered = await client.isRegistered
            let channels = await client.joinedChannels.sorted()
            let link = "\(config.irc.server):\(config.irc.port)\(config.irc.tls ? " over TLS" : " WITHOUT TLS")"
            lines.append(
                "On The Map \(BotVersion.current), up \(uptime). IRC: \(registered ? "registered" : "NOT registered") on \(link) as \(await client.currentNick); channels: \(channels.isEmpty ? "none" : channels.joined(separator: ", "))."
            )
        } else {
            lines.append("On The Map \(BotVersion.current), up \(uptime); not connected to IRC (console).")
        }
        if let checkBackend {
            let backend = await checkBackend()
            lines.append(
                "Backend \(backend.name): "
                    + (backend.reachable ? "answers." : "NOT answering (\(backend.error ?? "no answer"))."))
        }
        var counts: [String] = []
        if let router {
            counts.append("\(await router.sessions.count) logged in")
            counts.append("\(await router.ignoredMasks().count) ignored masks")
        }
        if let client { counts.append("\(await client.queuedLineCount) lines queued to send") }
        if !counts.isEmpty { lines.append(counts.joined(separator: "; ") + ".") }
        return lines
    }

    static func describe(_ duration: Duration) -> String {
        let minutes = Int(duration.components.seconds / 60)
        if minutes < 1 { return "\(duration.components.seconds) s" }
        if minutes < 60 { return "\(minutes) min" }
        if minutes < 48 * 60 { return "\(minutes / 60) h \(minutes % 60) min" }
        return "\(minutes / 1440) days \(minutes % 1440 / 60) h"
    }
}
