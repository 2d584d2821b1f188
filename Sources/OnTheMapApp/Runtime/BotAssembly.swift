import BotKit
import ClassKit
import IRCClient
import Logging
import OnTheMapService

/// Builds the running bot from a config: the IRC client, the plugins the config enables, and
/// the router between them.
public enum BotAssembly {
    /// What `!help about` says: the bot, the data it uses, and who runs it (`irc.contact`).
    static func aboutLines(contact: String?) -> [String] {
        [
            "On The Map \(BotVersion.current): put yourself on the class map and find your classmates.",
            GazetteerGeocoder.attribution + ".",
            "Your privacy: !privacy shows and sets how precisely your pin shows where you are, !mydata what this bot keeps about you, !forget erases it.",
        ] + (contact.map { ["Run by \($0)."] } ?? [])
    }

    /// Builds the service stack (backend, geocoder), the plugins and the IRC client of `config`.
    /// Throws a `ServiceError` when the backend cannot be opened.
    public static func makeService(
        config: BotConfiguration, configPath: String? = nil, logger: Logger
    ) async throws -> BotService {
        let stack = try await ServiceStack.make(config: config, logger: logger)
        return makeService(config: config, configPath: configPath, stack: stack, logger: logger, tuneIRC: { _ in })
    }

    /// ``makeService(config:configPath:logger:)`` with connection settings the config does not
    /// expose changed by `tuneIRC` (a live test shortens the reconnect backoff with it).
    @_spi(Testing)
    public static func makeService(
        config: BotConfiguration, logger: Logger, tuneIRC: (inout IRCClientConfiguration) -> Void
    ) async throws -> BotService {
        let stack = try await ServiceStack.make(config: config, logger: logger)
        return makeService(config: config, configPath: nil, stack: stack, logger: logger, tuneIRC: tuneIRC)
    }

    /// Builds the plugins and the IRC clients of `config` over a service stack made beforehand
    /// (shared with the web map), one of each per network; the bot shuts the stack down when it
    /// stops. `configPath` is the file `!reload` and SIGHUP read again (none: they say there is
    /// nothing to reload).
    public static func makeService(
        config: BotConfiguration, configPath: String? = nil, stack: ServiceStack, logger: Logger
    ) -> BotService {
        makeService(config: config, configPath: configPath, stack: stack, logger: logger, tuneIRC: { _ in })
    }

    private static func makeService(
        config: BotConfiguration, configPath: String?, stack: ServiceStack, logger: Logger,
        tuneIRC: (inout IRCClientConfiguration) -> Void
    ) -> BotService {
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
        let group = BotControlGroup()
        var first: ClassServices?
        var networks: [BotService.Network] = []
        for network in config.networks {
            var networkLogger = logger
            networkLogger[metadataKey: "network"] = "\(network.name)"
            var ircConfiguration = IRCClientConfiguration(network.irc)
            ircConfiguration.metadata = Self.publishedMetadata(config: config, irc: network.irc)
            tuneIRC(&ircConfiguration)
            let ircLogger = networkLogger.withLabel("onthemap.irc")
            let client = IRCClient(
                configuration: ircConfiguration, logger: ircLogger,
                stsStore: stack.state.map { StoredSTSPolicies(store: $0, logger: ircLogger) })
            let (control, router) = makeNetwork(
                network.name, config: config, configPath: configPath, stack: stack, sharing: first, group: group,
                transport: IRCBotTransport(client: client), logger: networkLogger)
            first = first ?? control.services
            control.attach(client: client, capabilities: stack.capabilities, checkBackend: probeBackend)
            networks.append(
                BotService.Network(
                    name: network.name, client: client, router: router, control: control,
                    quitMessage: network.irc.quitMessage, logger: networkLogger))
        }
        return BotService(
            networks: networks, logger: logger, onStop: { await stack.shutdown() }, checkBackend: probeBackend)
    }

    /// What the bot publishes about itself where the server offers `draft/metadata-2`: that it is a
    /// bot (its name and version), and its homepage, the class map's address (the web page is on)
    /// or else `irc.contact`.
    static func publishedMetadata(
        config: BotConfiguration, irc: BotConfiguration.IRCSection
    ) -> [IRCClientConfiguration.MetadataEntry] {
        var entries = [IRCClientConfiguration.MetadataEntry(key: "bot", value: BotVersion.ctcpReply)]
        let homepage = config.web.enabled && !config.web.publicURL.isEmpty ? config.web.publicURL : irc.contact
        if !homepage.isEmpty { entries.append(.init(key: "homepage", value: homepage)) }
        return entries
    }

    /// One network's class services (sharing `first`'s class map, login throttle and announcer
    /// wake-ups), owner control (in `group`) and router, replying through `transport`.
    static func makeNetwork(
        _ name: String, config: BotConfiguration, configPath: String?, stack: ServiceStack,
        sharing first: ClassServices?,
        group: BotControlGroup, transport: any BotTransport, logger: Logger
    ) -> (BotControl, CommandRouter) {
        let services = PluginAssembly.services(config: config, stack: stack, network: name, sharing: first)
        let control = BotControl(
            config: config, configPath: configPath, services: services, logger: logger.withLabel("onthemap.owner"),
            logPseudonyms: stack.logPseudonyms, network: name, group: group)
        return (control, makeRouter(config: config, control: control, transport: transport, logger: logger))
    }

    /// The command router of `config`: the plugins it enables on `stack`, replying through
    /// `transport` (the IRC client when running, the terminal in console mode).
    public static func makeRouter(
        config: BotConfiguration, stack: ServiceStack, transport: any BotTransport, logger: Logger
    ) -> CommandRouter {
        let control = BotControl(
            config: config, configPath: nil, services: PluginAssembly.services(config: config, stack: stack),
            logger: logger.withLabel("onthemap.owner"), logPseudonyms: stack.logPseudonyms)
        return makeRouter(config: config, control: control, transport: transport, logger: logger)
    }

    /// The router of `config` over the services `control` holds, with the owner commands.
    static func makeRouter(
        config: BotConfiguration, control: BotControl, transport: any BotTransport, logger: Logger
    ) -> CommandRouter {
        let plugins = PluginAssembly.plugins(config: config, services: control.services)
        let router = CommandRouter(
            plugins: plugins + [OwnerPlugin(control: control)],
            settings: routerSettings(config: config, network: control.network, pseudonyms: control.logPseudonyms),
            transport: transport, gate: control.services.logins,
            logger: logger.withLabel("onthemap.router"), languageChoices: control.services.languages)
        control.attach(router: router, plugins: plugins)
        return router
    }

    /// The router's settings of `config` on the network called `network` (the first when nil), at
    /// start and on every reload: its prefix and owners are that network's; its log names senders
    /// by `pseudonyms` unless `log.student_data` is on.
    static func routerSettings(
        config: BotConfiguration, network: String? = nil, pseudonyms: LogPseudonyms
    ) -> CommandRouter.Settings {
        let chosen = network.flatMap(config.network(named:))
        let irc = chosen?.irc ?? config.irc
        // Channel names as written: the router compares them under the server's casemapping.
        let disabled = Dictionary(
            config.plugins.disabledIn.map { (key: $0.key, value: Set($0.value)) },
            uniquingKeysWith: { a, b in a.union(b) })
        var settings = CommandRouter.Settings(
            prefix: irc.commandPrefix, disabledPlugins: disabled, version: irc.versionReply)
        settings.userLimits?.hostBudget.burst = config.plugins.commandsPerHost.burst
        settings.userLimits?.hostBudget.perMinute = config.plugins.commandsPerHost.perMinute
        if !config.plugins.userLimits { settings.userLimits = nil }
        settings.owners = OwnerList(irc.owners.compactMap(OwnerList.Entry.init(parsing:)))
        let name = chosen?.name ?? config.networks.first?.name ?? BotConfiguration.defaultNetworkName
        settings.metricDimensions = [("network", name)]
        settings.logDetail =
            config.log.studentData ? .studentData : .pseudonymous(pseudonym: { pseudonyms.pseudonym(of: $0) })
        settings.languages = config.channelLanguages(of: irc)
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
