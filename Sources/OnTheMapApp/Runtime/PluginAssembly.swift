import BotKit
import OnTheMapPlugins
import OnTheMapService

/// Builds the class command plugins of a config on top of its service stack.
public enum PluginAssembly {
    /// The plugin settings a config asks for. Without the "announce" plugin nothing is announced,
    /// not even the bot's own posts.
    public static func settings(for config: BotConfiguration) -> ClassSettings {
        ClassSettings(
            units: config.units == .mi ? .mi : .km,
            pollInterval: .seconds(config.service.pollSeconds),
            announceChannels: config.plugins.enabled.contains("announce") ? config.irc.announceTo : [],
            allowRegistration: config.service.allowRegistration,
            postFlowLifetime: .seconds(config.service.postFlowMinutes * 60),
            webMapURL: config.web.enabled && !config.web.publicURL.isEmpty ? config.web.publicURL : nil,
            commandPrefix: config.irc.commandPrefix)
    }

    /// The shared state of the class plugins for `stack`.
    public static func services(config: BotConfiguration, stack: ServiceStack) -> ClassServices {
        ClassServices(
            directory: stack.directory, accounts: stack.accounts, stateStore: stack.state,
            pinChanges: stack.pinChanges, geocoder: stack.geocoder, settings: settings(for: config))
    }

    /// Every plugin the config enables, in `!help` order: the class plugins, then help/ping.
    public static func plugins(config: BotConfiguration, stack: ServiceStack) -> [any Plugin] {
        var plugins = ClassPlugins.make(
            enabled: config.plugins.enabled, services: services(config: config, stack: stack))
        if config.plugins.enabled.contains("help") {
            plugins.append(CorePlugin(aboutLines: BotAssembly.aboutLines))
        }
        return plugins
    }
}
