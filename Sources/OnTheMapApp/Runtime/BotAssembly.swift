import BotKit
import IRCClient
import Logging
import OnTheMapService

/// Builds the running bot from a config: the IRC client, the plugins the config enables, and
/// the router between them.
public enum BotAssembly {
    /// The plugins for a config, in `!help` order.
    static func plugins(for config: BotConfiguration) -> [any Plugin] {
        var plugins: [any Plugin] = []
        if config.plugins.enabled.contains("help") {
            plugins.append(CorePlugin(aboutLines: aboutLines))
        }
        return plugins
    }

    /// What `!help about` says: the bot and the data it uses.
    static let aboutLines = [
        "On The Map \(BotVersion.current): put yourself on the class map and find your classmates.",
        GazetteerGeocoder.attribution + ".",
    ]

    public static func makeService(config: BotConfiguration, logger: Logger) -> BotService {
        let client = IRCClient(
            configuration: IRCClientConfiguration(config.irc), logger: logger.withLabel("onthemap.irc"))
        let disabled = Dictionary(
            config.plugins.disabledIn.map { (key: $0.key.lowercased(), value: Set($0.value)) },
            uniquingKeysWith: { a, b in a.union(b) })
        let settings = CommandRouter.Settings(
            prefix: config.irc.commandPrefix, disabledPlugins: disabled, version: BotVersion.ctcpReply)
        let router = CommandRouter(
            plugins: plugins(for: config), settings: settings, transport: IRCBotTransport(client: client),
            logger: logger.withLabel("onthemap.router"))
        return BotService(client: client, router: router, quitMessage: config.irc.quitMessage, logger: logger)
    }
}

extension Logger {
    /// A logger with the same level and handler factory but another label.
    func withLabel(_ label: String) -> Logger {
        var copy = Logger(label: label)
        copy.logLevel = logLevel
        return copy
    }
}
