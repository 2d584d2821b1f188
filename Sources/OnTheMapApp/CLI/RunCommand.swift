import ArgumentParser
import ClassKit
import Localization
import Logging
import OnTheMapPlugins
import Metrics
import NIOSSL
import OnTheMapService
import Prometheus
import ServiceLifecycle
import UnixSignals

/// `onthemap-bot run`: connects to the configured networks and serves the class until stopped.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Runs the bot on the configured IRC networks.")

    @OptionGroup var options: ConfigOptions

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    @Option(help: "Log format: text (for people) or json (one JSON object per line, for collectors).")
    var logFormat: LogFormat = .text

    enum LogFormat: String, ExpressibleByArgument {
        case text, json
    }

    func run() async throws {
        AllocatorPolicy.apply()
        let config = try options.load()
        bootstrapLogging()
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        var logger = Logger(label: "onthemap")
        logger.logLevel = logLevel
        logger.info("starting", metadata: ["backend": "\(config.service.backend.rawValue)"])
        for network in config.networks {
            logger.info(
                "network",
                metadata: [
                    "network": "\(network.name)", "server": "\(network.irc.server):\(network.irc.port)",
                    "tls": "\(network.irc.tls)", "nick": "\(network.irc.nick)",
                ])
        }
        for warning in ConfigLoader.warnings(for: config) {
            logger.warning("config: \(warning)")
        }
        let assets = try Self.installedFiles(for: config, logger: logger)
        Self.checkPlaceNames(missing: PlaceNames.missingFiles(), logger: logger)
        // A class configured to read another language than English will name places in it: their
        // names are read now, beside the start, rather than by the first command that needs them.
        if Self.readsAnotherLanguage(config) {
            Task.detached(priority: .utility) { _ = Catalogs.bundled.placeNames }
        }
        // The gazetteer loads on the other core while the bot connects and registers.
        let stack = try await ServiceStack.make(config: config, logger: logger, loadGazetteerInBackground: true)
        let bot = BotAssembly.makeService(config: config, configPath: options.config, stack: stack, logger: logger)
        // SIGHUP reloads the config as an owner's !reload does.
        let signals = await UnixSignalsSequence(trapping: .sighup)
        let reloads = Task { [logger] in
            for await _ in signals {
                logger.notice("SIGHUP: reloading the config")
                _ = await bot.control?.reload()
            }
        }
        defer { reloads.cancel() }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: bot, successTerminationBehavior: .gracefullyShutdownGroup)
        ]
        if config.operatorListener.enabled, let (host, port) = ConfigLoader.hostAndPort(config.operatorListener.listen)
        {
            let operatorServer = OperatorHTTPServer(
                host: host, port: port, health: { await bot.healthReport() }, registry: registry,
                beforeScrape: { await bot.sampleGauges() }, logger: logger.withLabel("onthemap.operator"))
            services.append(.init(service: operatorServer))
        }
        if let assets, let (host, port) = ConfigLoader.hostAndPort(config.web.listen) {
            let api = Self.classAPI(config, stack, bot, logger)
            let webMap = WebMap(
                feed: MapPinFeed(
                    classMap: bot.control?.services.classMap ?? ClassMap(directory: stack.directory),
                    timeZones: bot.control?.services.timeZones ?? PinTimeZones(finder: stack.placeLevels),
                    levels: stack.placeLevels),
                geocoder: stack.geocoder, assets: assets, access: Self.mapAccess(config, stack, bot),
                scenes: api == nil
                    ? nil
                    : WebMap.StudentScenes(
                        signupURL: config.service.signupURL,
                        passwords: LoginPlugin.Settings(section: config.plugins.sections["login"]).passwords),
                placeLabels: stack.placeLevels.map { MapPlaceLabels($0) } ?? MapPlaceLabels.none,
                tiles: config.web.tileLayer, languages: Self.webLanguages(config, bot), publicURL: config.web.publicURL,
                ownDataPlaces: Self.ownDataPlaces(stack, bot), logger: logger.withLabel("onthemap.web.map"))
            let tls = try Self.webTLS(for: config, logger: logger)
            services.append(
                .init(
                    service: WebMapServer(
                        host: host, port: port, webMap: webMap, api: api, tls: tls,
                        behindProxy: config.web.behindProxy, logger: logger.withLabel("onthemap.web"))))
        }
        let group = ServiceGroup(
            configuration: .init(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        do {
            try await group.run()
        } catch let stopped as BotStopped {
            logger.critical(
                "stopped", metadata: ["reason": "\(stopped.reason)", "exit_status": "\(stopped.exitStatus)"])
            throw BotExitStatus.exit(stopped.exitStatus)
        }
        logger.info("stopped cleanly")
    }

    private func bootstrapLogging() {
        let level = logLevel
        switch logFormat {
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = TextLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        case .json:
            LoggingSystem.bootstrap { label in
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        }
    }

    /// The v1 API of `config` (`service.api.enabled`) over the bot's own directory and class services.
    static func classAPI(_ config: BotConfiguration, _ stack: ServiceStack, _ bot: BotService, _ logger: Logger)
        -> ClassAPI?
    {
        guard config.service.api.enabled, let accounts = stack.accounts, let services = bot.control?.services
        else { return nil }
        let settings = ClassAPI.Settings(
            readRequiresLogin: config.web.visibility == .class,
            secureCookies: config.web.servesTLS || config.web.publicURL.lowercased().hasPrefix("https://"),
            behindProxy: config.web.behindProxy,
            passwords: LoginPlugin.Settings(section: config.plugins.sections["login"]).passwords)
        return ClassAPI(
            services: ClassAPI.Needs(services), accounts: accounts, settings: settings,
            logger: logger.withLabel("onthemap.web.api"))
    }

    /// The languages of the web pages: a signed-in student's `!lang` choice (read from the running
    /// bot's class services), else the browser's, else the bot's default language (`language:`,
    /// under the first network's `irc.language` when it has one, as its private answers use; kept
    /// current by a config reload through the class services' settings).
    static func webLanguages(_ config: BotConfiguration, _ bot: BotService) -> WebLanguages {
        guard let services = bot.control?.services else {
            return WebLanguages(catalogs: .bundled, fallback: config.language ?? .english)
        }
        let languages = services.languages
        return WebLanguages(
            catalogs: .bundled, defaultLanguage: { services.settings.languages.fallback },
            chosenByAccount: { accountKey in try? await languages.chosen(byAccount: accountKey) })
    }

    /// Who may read the web map's pins (`web.visibility`), over the stack's sessions and sign-in
    /// links; a sign-out "everywhere" ends the student's sessions through the running bot.
    static func mapAccess(_ config: BotConfiguration, _ stack: ServiceStack, _ bot: BotService) -> MapAccess {
        var endEverySession: (@Sendable (String) async -> Void)?
        if let services = bot.control?.services {
            endEverySession = { accountKey in await services.endEverySession(ofAccount: accountKey) }
        }
        return MapAccess(
            visibility: config.web.visibility, accounts: stack.accounts,
            signInLinks: stack.state.map { SignInLinks(store: $0) },
            dataFeeds: stack.state.map { DataFeedLinks(store: $0) },
            secureCookies: config.web.servesTLS || config.web.publicURL.lowercased().hasPrefix("https://"),
            endEverySession: endEverySession)
    }

    /// The levels and time zones of places a student's own data feeds read: the running bot's
    /// privacy gate and time zones, else the stack's gazetteer's zones and no levels.
    static func ownDataPlaces(_ stack: ServiceStack, _ bot: BotService) -> OwnDataFeeds.Places {
        let timeZones = bot.control?.services.timeZones ?? PinTimeZones(finder: stack.placeLevels)
        let gates = bot.control?.services.privacyGates
        return OwnDataFeeds.Places(
            precision: { coordinate, name in await gates?.current.precision(of: coordinate, named: name) },
            zones: { coordinate, name in await timeZones.finder?.timeZones(ofPinAt: coordinate, named: name) ?? [] })
    }

    /// The web listener's HTTPS configuration (`web.tls_cert`, `web.tls_key`), or nil without them.
    /// A file that cannot be used is named, and the bot exits with the configuration status.
    static func webTLS(for config: BotConfiguration, logger: Logger) throws -> TLSConfiguration? {
        guard config.web.servesTLS else { return nil }
        do {
            return try WebMapServer.tlsConfiguration(certificateFile: config.web.tlsCert, keyFile: config.web.tlsKey)
        } catch {
            logger.critical("cannot start: \(error)")
            var stderr = StandardError()
            print("onthemap-bot cannot start: \(error)", to: &stderr)
            throw BotExitStatus.exit(BotExitStatus.configuration)
        }
    }

    /// Says in one warning when the names of places in other languages (the iso-codes package)
    /// could not all be read: the bot runs, and those places read as stored.
    static func checkPlaceNames(missing: [String], logger: Logger) {
        guard !missing.isEmpty else { return }
        logger.warning(
            "place names stay as stored where a translation is missing (install the iso-codes package): missing \(missing.joined(separator: ", "))"
        )
    }

    /// Whether a channel or network of `config`, or its default, reads another language than English.
    static func readsAnotherLanguage(_ config: BotConfiguration) -> Bool {
        if let language = config.language, language != .english { return true }
        return config.networks.contains { network in
            network.irc.language.map { $0 != .english } == true
                || network.irc.channels.contains { $0.language.map { $0 != .english } == true }
        }
    }

    /// Checks that the resource folders `config` needs were installed beside the executable (the
    /// message catalogues; the gazetteer; the web map's files when `web.enabled`), and reads the web
    /// map's files. A missing or broken one is named, with where it was looked for, and the bot exits
    /// with the configuration status.
    static func installedFiles(for config: BotConfiguration, logger: Logger) throws -> WebMap.Assets? {
        do {
            _ = try Catalogs.loadBundled()
            if config.geocoder.kind == .gazetteer { _ = try GazetteerGeocoder.bundledFile() }
            return config.web.enabled ? try WebMap.Assets.bundled() : nil
        } catch {
            logger.critical("cannot start: \(error)")
            var stderr = StandardError()
            print("onthemap-bot cannot start: \(error)", to: &stderr)
            throw BotExitStatus.exit(BotExitStatus.configuration)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
