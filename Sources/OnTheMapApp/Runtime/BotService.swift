import BotKit
import IRCClient
import IRCProtocol
import Localization
import Logging
import Metrics
import ServiceLifecycle

/// The running bot: on each IRC network, a connection feeding its own command router; all of
/// them stopped cleanly (QUIT, drain) on SIGINT/SIGTERM through swift-service-lifecycle. A network
/// that stops (an owner's `!quit`, a fatal error) leaves the others serving; the bot stops when no
/// network is left.
public final class BotService: Service {
    /// One network the bot serves: its connection, router and owner control.
    public struct Network: Sendable {
        public let name: String
        public let client: IRCClient
        public let router: CommandRouter
        public let control: BotControl?
        let quitMessage: String
        let logger: Logger

        public init(
            name: String, client: IRCClient, router: CommandRouter, control: BotControl? = nil, quitMessage: String,
            logger: Logger
        ) {
            self.name = name
            self.client = client
            self.router = router
            self.control = control
            self.quitMessage = quitMessage
            self.logger = logger
        }
    }

    /// Every network, in the config's order.
    public let networks: [Network]
    /// The first network's connection (the only one of a bot configured with `irc:`).
    public var client: IRCClient { networks[0].client }
    /// The first network's router.
    public var router: CommandRouter { networks[0].router }
    /// What owner commands and SIGHUP act on (the first network's control; a reload applies to all).
    public var control: BotControl? { networks[0].control }
    private let logger: Logger
    private let onStop: @Sendable () async -> Void
    private let checkBackend: @Sendable () async -> HealthReport.Backend

    /// A bot on one network. `onStop` runs once the bot has stopped (e.g. closing the service
    /// stack); `checkBackend` tells `/healthz` whether the backend answers.
    public convenience init(
        client: IRCClient, router: CommandRouter, control: BotControl? = nil, quitMessage: String, logger: Logger,
        onStop: @escaping @Sendable () async -> Void = {},
        checkBackend: @escaping @Sendable () async -> HealthReport.Backend = {
            HealthReport.Backend(name: "none", reachable: true)
        }
    ) {
        let name = control?.network ?? BotConfiguration.defaultNetworkName
        self.init(
            networks: [
                Network(
                    name: name, client: client, router: router, control: control, quitMessage: quitMessage,
                    logger: logger)
            ], logger: logger, onStop: onStop, checkBackend: checkBackend)
    }

    /// A bot on `networks` (at least one).
    public init(
        networks: [Network], logger: Logger, onStop: @escaping @Sendable () async -> Void = {},
        checkBackend: @escaping @Sendable () async -> HealthReport.Backend = {
            HealthReport.Backend(name: "none", reachable: true)
        }
    ) {
        precondition(!networks.isEmpty, "a bot serves at least one network")
        self.networks = networks
        self.logger = logger
        self.onStop = onStop
        self.checkBackend = checkBackend
    }

    /// Each network's registration, and whether the backend answers (for `/healthz`).
    public func healthReport() async -> HealthReport {
        var states: [HealthReport.IRC] = []
        for network in networks {
            states.append(
                HealthReport.IRC(
                    name: network.name, registered: await network.client.isRegistered,
                    nick: await network.client.currentNick, channels: await network.client.joinedChannels.sorted(),
                    lastError: await network.client.lastConnectionFailure))
        }
        return HealthReport(networks: states, backend: await checkBackend())
    }

    /// Samples the gauges `/metrics` shows, per network: send-queue depth, live sessions, registration.
    public func sampleGauges() async {
        for network in networks {
            let dimensions = [("network", network.name)]
            Gauge(label: "onthemap_send_queue_lines", dimensions: dimensions)
                .record(await network.client.queuedLineCount)
            Gauge(label: "onthemap_sessions", dimensions: dimensions).record(await network.router.sessions.count)
            Gauge(label: "onthemap_irc_registered", dimensions: dimensions)
                .record(await network.client.isRegistered ? 1 : 0)
        }
    }

    /// Why the bot stopped on its own (a fatal error), or nil after a clean shutdown.
    public enum Outcome: Sendable, Equatable {
        case shutDown
        case fatal(BotStopped)
    }

    public func run() async throws {
        let outcome = await runUntilStopped()
        if case .fatal(let stopped) = outcome { throw stopped }
    }

    /// Runs until every network's connection stops; a graceful-shutdown signal sends QUIT on each.
    /// The outcome is the first fatal stop of a network, if one stopped so.
    public func runUntilStopped() async -> Outcome {
        let networks = self.networks
        // What was kept across the last restart is back before the first command is read.
        for network in networks {
            if let control = network.control {
                await control.restoreKeptState()
            } else {
                await network.router.restorePlugins()
            }
        }
        let outcome = await withGracefulShutdownHandler {
            await withTaskGroup(of: Outcome.self) { group in
                for network in networks {
                    group.addTask { await self.run(network) }
                }
                var outcome = Outcome.shutDown
                for await result in group {
                    if case .fatal = result, outcome == .shutDown { outcome = result }
                }
                return outcome
            }
        } onGracefulShutdown: {
            for network in networks {
                Task { await network.client.shutdown(quitMessage: network.quitMessage) }
            }
        }
        await onStop()
        return outcome
    }

    /// Runs one network until its connection stops.
    private func run(_ network: Network) async -> Outcome {
        let outcome = await withTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                await network.client.run()
                return nil
            }
            group.addTask { await self.pumpEvents(of: network, into: network.router) }
            // Background plugins (the announcer) run until this network stops.
            let background = Task { await network.router.runBackgroundPlugins() }
            var outcome = Outcome.shutDown
            for await result in group {
                if let result { outcome = result }
            }
            background.cancel()
            await background.value
            return outcome
        }
        if case .fatal(let stopped) = outcome {
            network.logger.critical("this network stopped", metadata: ["reason": "\(stopped.reason)"])
        } else {
            network.logger.info("this network stopped")
        }
        return outcome
    }

    /// Stops the bot: QUIT on every network, drain a little, close.
    public func shutdown() async {
        for network in networks { await network.client.shutdown(quitMessage: network.quitMessage) }
    }

    /// Feeds a network's events to its `router`, isolated to it: a line said to the bot reaches the
    /// router without another task switch (the router then runs the command in a task of its own).
    private func pumpEvents(of network: Network, into router: isolated CommandRouter) async -> Outcome {
        let client = network.client
        let logger = network.logger
        // Channels told that the bot is not on its configured nick (until it is again).
        var toldChannels: Set<String> = []
        // A required SASL login that failed is what a fatal stop after it is about.
        var saslFailed = false
        // Channels warned about as open to anyone (folded names), once each until they are closed.
        var warnedOpen: Set<String> = []
        for await event in client.events {
            switch event {
            case .privmsg(let message):
                await router.handle(message)
            case .serverSupportChanged(let changes):
                // The router and its session book compare nicks and channels the server's way.
                for case .caseMapping(let mapping) in changes { await router.setCaseMapping(mapping) }
            case .identity(let change):
                // Sessions follow nick changes, QUITs, services logouts and losses of sight.
                await router.sessions.follow(change)
            case .registered(let nick):
                logger.info("registered", metadata: ["nick": "\(nick)"])
                toldChannels = []
                if let warning = await network.control?.accountTrackingWarning() { logger.warning("\(warning)") }
            case .joined(let channel):
                logger.info("joined", metadata: ["channel": "\(channel)"])
                let mapping = await client.serverSupport.caseMapping
                router.clearOwnerAlert(key: Self.inviteAlertKey(channel, caseMapping: mapping))
                await sayWhileOnAnotherNick(on: client, router: network.router, in: [channel], told: &toldChannels)
            case .channelAccess(let channel, let access):
                let key = await client.serverSupport.caseMapping.lowercased(channel)
                guard access.isOpen else {
                    warnedOpen.remove(key)
                    continue
                }
                if network.control?.withholdsPlacesInOpenChannels == true, warnedOpen.insert(key).inserted {
                    logger.warning(
                        "\(channel) is open to anyone (no key, not invite-only): students' places and links are withheld there (names only); key it (+k) or make it invite-only (+i), or set privacy.open_channel: full"
                    )
                }
            case .joinRefused(let channel, let code, let reason) where code == "473":
                // ERR_INVITEONLYCHAN: invite-only (+i), or Solanum's "+B - bots must be invited".
                let alert = Self.inviteAlert(channel: channel, reason: reason, nick: client.nick)
                let key = Self.inviteAlertKey(channel, caseMapping: await client.serverSupport.caseMapping)
                // Told once, however often the retry is refused: the channels are searched for owners
                // only when the alert is new. Each owner reads it in their language; the log in English.
                guard router.raiseOwnerAlert(alert, key: key) else { continue }
                logger.warning("\(alert.text(in: .english))")
                for owner in await visibleOwners(on: client, router: router) {
                    await router.tellStandingAlerts(to: owner)
                }
            case .nickChanged(_, let new):
                if await client.serverSupport.caseMapping.equals(client.configuration.nick, new) {
                    toldChannels = []
                } else {
                    await sayWhileOnAnotherNick(
                        on: client, router: network.router, in: await client.joinedChannels, told: &toldChannels)
                }
            case .saslFailed(let reason):
                saslFailed = true
                logger.error("SASL login failed", metadata: ["reason": "\(reason)"])
            case .disconnected(let reason):
                if await client.isShuttingDown {
                    logger.info("disconnected after QUIT")
                } else {
                    logger.warning("connection lost", metadata: ["reason": "\(reason)"])
                }
                await router.sessions.connectionLost()
            case .connectionFailed(let reason):
                logger.warning("connection lost", metadata: ["reason": "\(reason)"])
            case .reconnecting(let delay):
                Counter(label: "onthemap_reconnects_total", dimensions: [("network", network.name)]).increment()
                logger.info("reconnecting", metadata: ["after": "\(delay)"])
            case .stopped(let reason):
                await router.waitUntilIdle()
                guard let reason else { return .shutDown }
                return .fatal(
                    BotStopped(reason: reason, cause: BotStopped.Cause(reason: reason, afterSASLFailure: saslFailed)))
            default:
                break
            }
        }
        return .shutDown
    }

    /// The owners' alert when `channel` refused the bot's JOIN as invite-only (`reason` is the
    /// server's text: Solanum's bot-only form says "bots must be invited").
    static func inviteAlert(channel: String, reason: String, nick: String) -> OwnerAlert {
        let forBots = reason.range(of: "bot", options: .caseInsensitive) != nil
        return OwnerAlert(
            message: forBots ? "owner.alert.botsInvited" : "owner.alert.inviteOnly",
            values: ["channel": channel, "invite": "/invite \(nick) \(channel)"])
    }

    private static func inviteAlertKey(_ channel: String, caseMapping: CaseMapping) -> String {
        "invite \(caseMapping.lowercased(channel))"
    }

    /// The owners the bot sees now in its channels (one look at what the client tracks).
    private func visibleOwners(on client: IRCClient, router: isolated CommandRouter) async -> [UserIdentity] {
        let tracker = await client.identityTracker
        var owners: [UserIdentity] = []
        var seen: Set<String> = []
        for channel in tracker.channelNames {
            for member in tracker.members(ofChannel: channel) ?? [] {
                guard let identity = tracker.identity(ofNick: member.nick), router.isOwner(identity),
                    seen.insert(tracker.serverSupport.caseMapping.lowercased(identity.nick)).inserted
                else { continue }
                owners.append(identity)
            }
        }
        return owners
    }

    /// While the bot is not on its configured nick, it says so once in each channel: whoever holds
    /// that nick would receive the logins students send to it (in the channel's language).
    private func sayWhileOnAnotherNick(
        on client: IRCClient, router: CommandRouter, in channels: [String], told: inout Set<String>
    ) async {
        let wanted = client.configuration.nick
        let current = client.nick
        let mapping = await client.serverSupport.caseMapping
        guard !mapping.equals(current, wanted) else { return }
        for channel in channels where told.insert(mapping.lowercased(channel)).inserted {
            let phrases = await router.phrasebook(forChannel: channel)
            await client.sendPrivmsg(
                to: channel, text: phrases("bot.onAnotherNick", ["current": current, "wanted": wanted]))
        }
    }
}

/// The bot stopped because of something it cannot fix by retrying (e.g. a required SASL login failed).
public struct BotStopped: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of mistake stopped it: each has its exit status (``BotExitStatus``).
    public enum Cause: Sendable, Equatable {
        /// The network refused the required login.
        case authentication
        /// A setting cannot be used (the TLS files).
        case configuration
        /// Anything else.
        case other

        /// The cause of the IRC client's fatal `reason`; `afterSASLFailure` when a SASL failure was
        /// reported before it.
        init(reason: String, afterSASLFailure: Bool) {
            if afterSASLFailure {
                self = .authentication
            } else if reason.hasPrefix("TLS configuration") {
                self = .configuration
            } else {
                self = .other
            }
        }
    }

    public var reason: String
    public var cause: Cause
    public var description: String { reason }

    public init(reason: String, cause: Cause) {
        self.reason = reason
        self.cause = cause
    }

    /// The process's exit status for this stop.
    public var exitStatus: Int32 {
        switch cause {
        case .authentication: BotExitStatus.authentication
        case .configuration: BotExitStatus.configuration
        case .other: BotExitStatus.failure
        }
    }
}
