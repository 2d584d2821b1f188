import BotKit
import ClassKit

// How the network's assembly (`ClassServices`) gives each plugin the capabilities it declared in its
// `Needs`, and nothing else. A plugin never holds the assembly; a test builds a `Needs` of its own
// from the parts the command under test uses.

extension WherePlugin.Needs {
    /// The capabilities of `services` that `!where` uses.
    public init(_ services: ClassServices) {
        self.init(
            settingsInForce: services.settingsInForce, logins: services.logins, placeFinder: services.placeFinder,
            directory: services.directory, classMap: services.classMap, timeZones: services.timeZones,
            now: services.now)
    }
}

extension TimePlugin.Needs {
    /// The capabilities of `services` that `!time`, `!awake` and `!overlap` use.
    public init(_ services: ClassServices) {
        self.init(
            settingsInForce: services.settingsInForce, logins: services.logins, placeFinder: services.placeFinder,
            directory: services.directory, classMap: services.classMap, timeZones: services.timeZones,
            now: services.now)
    }
}

extension ListPlugin.Needs {
    /// The capabilities of `services` that `!list` uses.
    public init(_ services: ClassServices) {
        self.init(
            settingsInForce: services.settingsInForce, logins: services.logins, classMap: services.classMap,
            now: services.now)
    }
}

extension RefreshPlugin.Needs {
    /// The capabilities of `services` that `!refresh` uses.
    public init(_ services: ClassServices) {
        self.init(settingsInForce: services.settingsInForce, logins: services.logins, classMap: services.classMap)
    }
}

extension NearPlugin.Needs {
    /// The capabilities of `services` that `!near` and `!units` use.
    public init(_ services: ClassServices) {
        self.init(
            settingsInForce: services.settingsInForce, logins: services.logins, placeFinder: services.placeFinder,
            directory: services.directory, classMap: services.classMap, privacyGates: services.privacyGates,
            keptState: services.keptStateHome, keepers: services.keepers, now: services.now)
    }
}

extension LanguageCommand.Needs {
    /// The capabilities of `services` that `!lang` uses.
    public init(_ services: ClassServices) {
        self.init(languages: services.languages, logins: services.logins, keepers: services.keepers)
    }
}

extension MapPlugin.Needs {
    /// The capabilities of `services` that `!map` uses.
    public init(_ services: ClassServices) {
        self.init(
            settingsInForce: services.settingsInForce, logins: services.logins, accounts: services.accounts,
            stateStore: services.stateStore, now: services.now)
    }
}

extension AnnouncePlugin.Needs {
    /// The capabilities of `services` that the announcer uses.
    public init(_ services: ClassServices) {
        self.init(
            settingsInForce: services.settingsInForce, classMap: services.classMap, ledger: services.ledger,
            timeZones: services.timeZones, pinWakeups: services.pinWakeups, pinChanges: services.pinChanges,
            now: services.now)
    }
}

extension PostPlugin.Needs {
    /// The capabilities of `services` that `!post` and `!unpost` use.
    public init(_ services: ClassServices) {
        self.init(
            settingsInForce: services.settingsInForce, logins: services.logins, placeFinder: services.placeFinder,
            directory: services.directory, classMap: services.classMap, privacyGates: services.privacyGates,
            trips: services.trips, accounts: services.accounts, ledger: services.ledger,
            pinWakeups: services.pinWakeups, timeZones: services.timeZones, keptState: services.keptStateHome,
            keepers: services.keepers, now: services.now)
    }
}

extension PrivacyPlugin.Needs {
    /// The capabilities of `services` that `!privacy`, `!mydata`, `!forget` and the retention of
    /// pins use.
    public init(_ services: ClassServices) {
        self.init(
            settingsInForce: services.settingsInForce, logins: services.logins, privacyGates: services.privacyGates,
            directory: services.directory, trips: services.trips, accounts: services.accounts,
            stateStore: services.stateStore, classMap: services.classMap, loginThrottle: services.loginThrottle,
            keepers: services.keepers, networks: services.everyNetworkReach,
            retentionStarted: services.retentionStarted,
            now: services.now)
    }
}

extension LoginPlugin.Needs {
    /// The capabilities of `services` that the login commands use.
    public init(_ services: ClassServices) {
        self.init(
            settingsInForce: services.settingsInForce, logins: services.logins, directory: services.directory,
            accounts: services.accounts, stateStore: services.stateStore, sessionArchive: services.sessionArchive,
            loginThrottle: services.loginThrottle, registrations: services.registrations,
            accountEvents: services.accountEvents, keepers: services.keepers, networks: services.everyNetworkReach)
    }
}
