import BotKit
import IRCClient
import Logging
import OnTheMapPlugins
import OnTheMapService

/// Builds the running bot from a config: the IRC client, the plugins the config enables, and
/// the router between them.
public enum BotAssembly {
    /// What `!help about` says: the bot and the data it uses.
    static let aboutLines = [
        "On The Map \(BotVersion.current): put yourself on the class map and find your classmates.",
        GazetteerGeocoder.attribution + ".",
    ]

    /// Builds the service stack (backend, geocoder), the plugins and the IRC client of `config`.
    /// Throws a `ServiceError` when the backend cannot be opened. `tuneIRC` may change connection
    /// settings the config does not expose (tests shorten the reconnect backoff with it).
    public static func makeService(
        config: BotConfiguration, configPath: String? = nil, logger: Logger,
        tuneIRC: (inout IRCClientConfiguration) -> Void = { _ in }
    ) async throws -> BotService {
        let stack = try await ServiceStack.make(config: config, logger: logger)
        return makeService(config: config, configPath: configPath, stack: stack, logger: logger, tuneIRC: tuneIRC)
    }

    /// Builds the plugins and the IRC client of `config` over a service stack made beforehand
    /// (shared with the web map); the bot shuts the stack down when it stops. `configPath` is the
    /// file `!reload` and SIGHUP read again (none: they say there is nothing to reload).
    public static func makeService(
        config: BotConfiguration, configPath: String? = nil, stack: ServiceStack, logger: Logger,
        tuneIRC: (inout IRCClientConfiguration) -> Void = { _ in }
    ) -> BotService {
        var ircConfiguration = IRCClientConfiguration(config.irc)
        tuneIRC(&ircConfiguration)
        let ircLogger = logger.withLabel("onthemap.irc")
        let client = IRCClient(
            configuration: ircConfiguration, logger: ircLogger,
            stsStore: stack.state.map { StoredSTSPolicies(store: $0, logger: ircLogger) })
        let control = BotControl(
            config: config, configPath: configPath, services: PluginAssembly.services(config: config, stack: stack),
            logger: logger.withLabel("onthemap.owner"))
        let router = makeRouter(
            config: config, control: control, transport: IRCBotTransport(client: client), logger: logger)
        let directory = stack.directory
        let watch = stack.faultWatch
        let probeBackend: @Sendable () async -> HealthReport.Backend = {
            var backend = await checkBackend(directory, timeout: .seconds(3))
            // A probe stuck behind a command that waits on the same lock names no cause; the
            // command's failure does.
            if !backend.reachable, backend.error?.hasPrefix("no answer") == true, let cause = watch.currentFault {
                backend.error = cause
            }
            return backend
        }
        control.attach(client: client, checkBackend: probeBackend)
        return BotService(
            client: client, router: router, control: control, quitMessage: config.irc.quitMessage, logger: logger,
            onStop: { await stack.shutdown() }, checkBackend: probeBackend)
    }

    /// The command router of `config`: the plugins it enables on `stack`, replying through
    /// `transport` (the IRC client when running, the terminal in console mode).
    public static func makeRouter(
        config: BotConfiguration, stack: ServiceStack, transport: any BotTransport, logger: Logger
    ) -> CommandRouter {
        let control = BotControl(
            config: config, configPath: nil, services: PluginAssembly.services(config: config, stack: stack),
            logger: logger.withLabel("onthemap.owner"))
        return makeRouter(config: config, control: control, transport: transport, logger: logger)
    }

    /// The router of `config` over the services `control` holds, with the owner commands.
    static func makeRouter(
        config: BotConfiguration, control: BotControl, transport: any BotTransport, logger: Logger
    ) -> CommandRouter {
        let plugins = PluginAssembly.plugins(config: config, services: control.services)
        let router = CommandRouter(
            plugins: plugins + [OwnerPlugin(control: control)], settings: routerSettings(config: config),
            transport: transport, sessions: SessionBook<StudentLogin>(),
            logger: logger.withLabel("onthemap.router"))
        control.attach(router: router, plugins: plugins)
        return router
    }

    /// The router's settings of `config` (at start and on every reload).
    static func routerSettings(config: BotConfiguration) -> CommandRouter.Settings {
        let disabled = Dictionary(
            config.plugins.disabledIn.map { (key: $0.key.lowercased(), value: Set($0.value)) },
            uniquingKeysWith: { a, b in a.union(b) })
        var settings = CommandRouter.Settings(
            prefix: config.irc.commandPrefix, disabledPlugins: disabled, version: BotVersion.ctcpReply)
        if !config.plugins.userLimits { settings.userLimits = nil }
        settings.owners = OwnerList(config.irc.owners.compactMap(OwnerList.Entry.init(parsing:)))
        return settings
    }

    /// Whether `directory` answers within `timeout`.
    static func checkBackend(_ directory: any StudentDirectory, timeout: Duration) async -> HealthReport.Backend {
        let name = directory.backendName
        let outcome: String? = await withTaskGroup(of: String?.self) { group in
            group.addTask {
                do {
                    try await directory.checkHealth()
                    return nil
                } catch {
                    return ServiceErrorText.describe(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return "no answer within \(timeout)"
            }
            let first = await group.next() ?? "no answer"
            group.cancelAll()
            return first
        }
        return HealthReport.Backend(name: name, reachable: outcome == nil, error: outcome)
    }
}

extension Logger {
    /// The same logger (same handler, so a logger handed in by a test or an embedding program
    /// sees every line) with the part of the bot named in a `component` metadata field.
    func withLabel(_ label: String) -> Logger {
        var copy = self
        copy[metadataKey: "component"] = "\(label)"
        return copy
    }
}
