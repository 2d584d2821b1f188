import BotKit
import ClassKit

/// The class plugins, in `!help` order, by the names the config uses (`plugins.enabled`).
public enum ClassPlugins {
    /// Every class plugin (the core plugin "help" is BotKit's).
    public static let all: [ClassPluginRegistration] = [
        LoginPlugin.registration, WherePlugin.registration, NearPlugin.registration, TimePlugin.registration,
        PostPlugin.registration,
        ListPlugin.registration, RefreshPlugin.registration, AnnouncePlugin.registration, MapPlugin.registration,
        PrivacyPlugin.registration,
    ]

    /// Every class plugin name.
    public static var names: [String] { all.map(\.name) }

    /// The plugins whose names are in `enabled`, sharing `services`, each with the settings of its
    /// section in `sections` (by name; the defaults when it has none).
    public static func make(
        enabled: some Collection<String>, services: ClassServices, sections: [String: SettingsValue] = [:]
    ) -> [any Plugin] {
        let wanted = Set(enabled.map { $0.lowercased() })
        return all.filter { wanted.contains($0.name) }.map { $0.make(section: sections[$0.name], services: services) }
    }
}
