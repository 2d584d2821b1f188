import BotKit
import ClassKit
import IRCProtocol
import OnTheMapPlugins
import OnTheMapService

/// Builds the plugins of a config on top of its service stack.
public enum PluginAssembly {
    /// Every plugin a config can enable, in `!help` order: the class plugins, then help/ping.
    public static let registrations: [ClassPluginRegistration] =
        ClassPlugins.all + [
            ClassPluginRegistration("help", settings: NoSettings.self) { services, _ in
                CorePlugin(
                    aboutLines: BotAssembly.aboutLines(contact: services.settings.contact),
                    conversationCommands: [LanguageCommand(services: .init(services)).command])
            }
        ]

    /// The names of ``registrations``.
    public static var names: [String] { registrations.map(\.name) }

    /// What the config says that several class plugins read, for the network called `network`
    /// (the first when nil). Without the "announce" plugin nothing is announced, not even the
    /// bot's own posts.
    public static func settings(for config: BotConfiguration, network: String? = nil) -> ClassSettings {
        let chosen = network.flatMap(config.network(named:)) ?? config.networks.first
        let irc = chosen?.irc ?? config.irc
        let name = chosen?.name ?? BotConfiguration.defaultNetworkName
        let announceChannels = config.plugins.enabled.contains("announce") ? irc.announceTo : []
        return ClassSettings(
            announceChannels: announceChannels,
            webMapURL: config.web.enabled && !config.web.publicURL.isEmpty ? config.web.publicURL : nil,
            commandPrefix: irc.commandPrefix, pagingCap: config.service.udacityMaxPins,
            instanceName: instanceName(network: name, server: irc.server, port: irc.port, channels: announceChannels),
            networkName: name, privacy: config.privacyPolicy, contact: irc.contact.isEmpty ? nil : irc.contact,
            languages: config.channelLanguages(of: irc))
    }

    /// What names a bot instance for the state it keeps (announcement ledger, sessions, open posts,
    /// ignore list): its IRC server and the channels it announces in
    /// ("irc.example.org:6697/#class,#lab"), so that instances sharing a directory keep apart what
    /// each announced, and a restarted instance finds its own; a network other than the default one
    /// is named in front ("libera@irc.libera.chat:6697/#class"), so that two networks of one bot never
    /// share state, and the state of a bot configured with `irc:` alone keeps its name.
    static func instanceName(network: String, server: String, port: Int, channels: [String]) -> String {
        // Folded as a server does before it says otherwise (rfc1459): `#Foo[1]` and `#foo{1}` are one.
        let folded = Set(channels.map { CaseMapping.rfc1459.lowercased($0) }).sorted().joined(separator: ",")
        let place = "\(server.lowercased()):\(port)/\(folded)"
        return network == BotConfiguration.defaultNetworkName ? place : "\(network)@\(place)"
    }

    /// The shared state of the class plugins for `stack`, on the network called `network` (the
    /// first when nil); `first` is the services of the bot's first network, which these share.
    public static func services(
        config: BotConfiguration, stack: ServiceStack, network: String? = nil, sharing first: ClassServices? = nil
    ) -> ClassServices {
        ClassServices(
            directory: stack.directory, trips: stack.trips, accounts: stack.accounts, stateStore: stack.state,
            pinChanges: stack.pinChanges, accountEvents: stack.accountEvents, geocoder: stack.geocoder,
            places: stack.placeLevels,
            settings: settings(for: config, network: network),
            sharing: first)
    }

    /// Every plugin the config enables, in `!help` order, each with the settings of its section.
    public static func plugins(config: BotConfiguration, stack: ServiceStack) -> [any Plugin] {
        plugins(config: config, services: services(config: config, stack: stack))
    }

    /// Every plugin the config enables, sharing `services`.
    public static func plugins(config: BotConfiguration, services: ClassServices) -> [any Plugin] {
        let enabled = Set(config.plugins.enabled.map { $0.lowercased() })
        return registrations.filter { enabled.contains($0.name) }.map {
            $0.make(section: config.plugins.sections[$0.name], services: services)
        }
    }
}
