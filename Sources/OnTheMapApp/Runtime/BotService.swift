import BotKit
import IRCClient
import IRCProtocol
import Logging
import Metrics
import ServiceLifecycle

/// The running bot: the IRC connection feeding the command router, stopped cleanly (QUIT, drain)
/// on SIGINT/SIGTERM through swift-service-lifecycle.
public final class BotService: Service {
    public let client: IRCClient
    public let router: CommandRouter
    /// What owner commands and SIGHUP act on.
    public let control: BotControl?
    private let logger: Logger
    private let quitMessage: String
    private let onStop: @Sendable () async -> Void
    private let checkBackend: @Sendable () async -> HealthReport.Backend

    /// `onStop` runs once the bot has stopped (e.g. closing the service stack); `checkBackend`
    /// tells `/healthz` whether the backend answers.
    public init(
        client: IRCClient, router: CommandRouter, control: BotControl? = nil, quitMessage: String, logger: Logger,
        onStop: @escaping @Sendable () async -> Void = {},
        checkBackend: @escaping @Sendable () async -> HealthReport.Backend = {
            HealthReport.Backend(name: "none", reachable: true)
        }
    ) {
        self.client = client
        self.router = router
        self.control = control
        self.quitMessage = quitMessage
        self.logger = logger
        self.onStop = onStop
        self.checkBackend = checkBackend
    }

    /// Is the bot registered on IRC, and does its backend answer (for `/healthz`).
    public func healthReport() async -> HealthReport {
        let irc = HealthReport.IRC(
            registered: await client.isRegistered, nick: await client.currentNick,
            channels: await client.joinedChannels.sorted())
        return HealthReport(irc: irc, backend: await checkBackend())
    }

    /// Samples the gauges `/metrics` shows: send-queue depth and live sessions.
    public func sampleGauges() async {
        Gauge(label: "onthemap_send_queue_lines").record(await client.queuedLineCount)
        Gauge(label: "onthemap_sessions").record(await router.sessions.count)
        Gauge(label: "onthemap_irc_registered").record(await client.isRegistered ? 1 : 0)
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

    /// Runs until the connection stops; a graceful-shutdown signal sends QUIT first.
    public func runUntilStopped() async -> Outcome {
        let client = self.client
        let router = self.router
        let quitMessage = self.quitMessage
        // What was kept across the last restart is back before the first command is read.
        if let control { await control.restoreKeptState() } else { await router.restorePlugins() }
        let outcome = await withGracefulShutdownHandler {
            await withTaskGroup(of: Outcome?.self) { group in
                group.addTask {
                    await client.run()
                    return nil
                }
                group.addTask { await self.pumpEvents(into: router) }
                // Background plugins (the announcer) run until the bot stops.
                let background = Task { await router.runBackgroundPlugins() }
                var outcome = Outcome.shutDown
                for await result in group {
                    if let result { outcome = result }
                }
                background.cancel()
                await background.value
                return outcome
            }
        } onGracefulShutdown: {
            Task { await client.shutdown(quitMessage: quitMessage) }
        }
        await onStop()
        return outcome
    }

    /// Stops the bot: QUIT, drain a little, close.
    public func shutdown() async {
        await client.shutdown(quitMessage: quitMessage)
    }

    /// Feeds the client's events to `router`, isolated to it: a line said to the bot reaches the
    /// router without another task switch (the router then runs the command in a task of its own).
    private func pumpEvents(into router: isolated CommandRouter) async -> Outcome {
        // Channels told that the bot is not on its configured nick (until it is again).
        var toldChannels: Set<String> = []
        // A required SASL login that failed is what a fatal stop after it is about.
        var saslFailed = false
        for await event in client.events {
            switch event {
            case .privmsg(let message):
                await router.handle(message)
            case .message(let message):
                if message.command == "005" { await router.setCaseMapping(await client.serverSupport.caseMapping) }
            case .identity(let change):
                // Sessions follow nick changes, QUITs, services logouts and losses of sight.
                await router.sessions.follow(change)
            case .registered(let nick):
                logger.info("registered", metadata: ["nick": "\(nick)"])
                toldChannels = []
            case .joined(let channel):
                logger.info("joined", metadata: ["channel": "\(channel)"])
                await sayWhileOnAnotherNick(in: [channel], told: &toldChannels)
            case .nickChanged(_, let new):
                if client.configuration.nick.lowercased() == new.lowercased() {
                    toldChannels = []
                } else {
                    await sayWhileOnAnotherNick(in: await client.joinedChannels, told: &toldChannels)
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
                Counter(label: "onthemap_reconnects_total").increment()
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

    /// While the bot is not on its configured nick, it says so once in each channel: whoever holds
    /// that nick would receive the logins students send to it.
    private func sayWhileOnAnotherNick(in channels: [String], told: inout Set<String>) async {
        let wanted = client.configuration.nick
        let current = client.nick
        guard current.lowercased() != wanted.lowercased() else { return }
        for channel in channels where told.insert(channel.lowercased()).inserted {
            await client.sendPrivmsg(
                to: channel,
                text:
                    "I am \(current) until I get my nick back; do not send logins to \(wanted) (whoever has that nick now is not me)."
            )
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
