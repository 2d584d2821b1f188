import ArgumentParser
import Logging
import ServiceLifecycle

/// `onthemap-bot run`: connects to the configured network and serves the class until stopped.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Runs the bot on the configured IRC network.")

    @OptionGroup var options: ConfigOptions

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    func run() async throws {
        let config = try options.load()
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: "onthemap")
        logger.logLevel = level
        logger.info(
            "starting",
            metadata: [
                "server": "\(config.irc.server):\(config.irc.port)", "tls": "\(config.irc.tls)",
                "nick": "\(config.irc.nick)", "backend": "\(config.service.backend.rawValue)",
            ])
        let bot = BotAssembly.makeService(config: config, logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: bot, successTerminationBehavior: .gracefullyShutdownGroup)],
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
