import ArgumentParser
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import UnixSignals

/// `onthemap-bot run`: connects to the configured network and serves the class until stopped.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Runs the bot on the configured IRC network.")

    @OptionGroup var options: ConfigOptions

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    @Option(help: "Log format: text (for people) or json (one JSON object per line, for collectors).")
    var logFormat: LogFormat = .text

    enum LogFormat: String, ExpressibleByArgument {
        case text, json
    }

    func run() async throws {
        let config = try options.load()
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
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        var logger = Logger(label: "onthemap")
        logger.logLevel = level
        logger.info(
            "starting",
            metadata: [
                "server": "\(config.irc.server):\(config.irc.port)", "tls": "\(config.irc.tls)",
                "nick": "\(config.irc.nick)", "backend": "\(config.service.backend.rawValue)",
            ])
        for warning in ConfigLoader.warnings(for: config) {
            logger.warning("config: \(warning)")
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
        if config.web.enabled, let (host, port) = ConfigLoader.hostAndPort(config.web.listen) {
            let webMap = WebMap(
                feed: MapPinFeed(directory: stack.directory), geocoder: stack.geocoder,
                assets: try WebMap.Assets.bundled(), logger: logger.withLabel("onthemap.web.map"))
            let web = OperatorHTTPServer(
                host: host, port: port, health: { await bot.healthReport() }, registry: registry,
                beforeScrape: { await bot.sampleGauges() }, webMap: webMap,
                logger: logger.withLabel("onthemap.web"))
            services.append(.init(service: web))
        }
        let group = ServiceGroup(
            configuration: .init(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        do {
            try await group.run()
        } catch let stopped as BotStopped {
            logger.critical("stopped", metadata: ["reason": "\(stopped.reason)"])
            throw ExitCode(1)
        }
        logger.info("stopped cleanly")
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
