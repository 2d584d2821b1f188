import BotKit
import ClassKit

/// What the config can set for one class plugin, read from its own section (`plugins.<name>:`).
/// Adding an option is a field and the line of ``read(_:)`` that reads it: every key this does
/// not read is reported as unknown.
public protocol ClassPluginSettings: Sendable {
    /// The defaults.
    init()
    /// Reads the keys of the plugin's section, reporting bad values in `section`.
    mutating func read(_ section: inout SettingsSection)
}

extension ClassPluginSettings {
    /// The settings a checked section gives (the config check has reported its problems already).
    public init(section value: SettingsValue?) {
        self.init()
        var section = SettingsSection(value, at: "")
        read(&section)
    }
}

/// The settings of a plugin that has none: any key in its section is unknown.
public struct NoSettings: ClassPluginSettings {
    public init() {}
    public func read(_ section: inout SettingsSection) {}
}

/// A plugin as the bot knows it before building it: its name (in `plugins.enabled`), how it reads
/// its settings, and how it is built on the shared ``ClassServices``. ``ClassPlugins/all`` lists them.
public struct ClassPluginRegistration: Sendable {
    public let name: String
    private let check: @Sendable (SettingsSection) -> [SettingsProblem]
    private let build: @Sendable (SettingsValue?, ClassServices) -> any Plugin

    /// `make` builds the plugin with the settings read from its section.
    public init<Settings: ClassPluginSettings>(
        _ name: String, settings: Settings.Type, make: @escaping @Sendable (ClassServices, Settings) -> any Plugin
    ) {
        self.name = name
        self.check = { section in
            var section = section
            var settings = Settings()
            settings.read(&section)
            return section.finish()
        }
        self.build = { value, services in make(services, Settings(section: value)) }
    }

    /// The problems of the plugin's section `value`.
    public func problems(in value: SettingsValue?) -> [SettingsProblem] {
        check(SettingsSection(value, at: "plugins.\(name)"))
    }

    /// The plugin with the settings of its section `value` (nil: the defaults).
    public func make(section value: SettingsValue? = nil, services: ClassServices) -> any Plugin {
        build(value, services)
    }
}
