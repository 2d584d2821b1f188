import Localization

/// What a config reload changes: the keys applied while the bot runs, and the keys that differ from
/// what the running bot started with but only take effect after a restart. Only key names: a reply
/// or log line never carries a value (some are secrets).
struct ConfigChanges: Sendable, Equatable {
    /// Keys whose new values are now in force.
    var applied: [String] = []
    /// Keys whose new values wait for a restart.
    var needRestart: [String] = []

    /// Compares `new` with the config in force (`current`) for what can change live, and with the
    /// one the bot started with (`started`) for what cannot. The plugins named in `background` work
    /// in the background (the announcer): turning them on or off, or their sections, need a restart.
    /// `networks` names the networks the bot runs (none: the first of the config).
    init(
        current: BotConfiguration, started: BotConfiguration, new: BotConfiguration, background: Set<String>,
        networks: [String] = []
    ) {
        let names = networks.isEmpty ? Array(started.networks.prefix(1).map(\.name)) : networks
        let newNames = new.networks.map(\.name)
        if Set(newNames) != Set(names), !(names.count == 1 && new.networks.count == 1) {
            let added = newNames.filter { !names.contains($0) }
            let removed = names.filter { !newNames.contains($0) }
            let parts =
                (added.isEmpty ? [] : ["adding " + added.joined(separator: ", ")])
                + (removed.isEmpty ? [] : ["removing " + removed.joined(separator: ", ")])
            needRestart.append("networks (" + parts.joined(separator: "; ") + ")")
        }
        for name in names {
            // A single network keeps its section when the file renames it (`irc:` ↔ `networks:`).
            let pick = { (config: BotConfiguration) in
                config.network(named: name)
                    ?? (names.count == 1 && config.networks.count == 1 ? config.networks.first : nil)
            }
            guard let old = pick(current), let now = pick(new), let first = pick(started) else { continue }
            let key = now.keyPath == "irc" ? "irc" : "networks.\(name)"
            compareLive(old.irc, now.irc, at: key)
            compareAtStart(first.irc, now.irc, at: key)
        }
        compareShared(current: current, started: started, new: new, background: background)
    }

    /// The keys of one network's section applied live.
    private mutating func compareLive(
        _ old: BotConfiguration.IRCSection, _ now: BotConfiguration.IRCSection, at key: String
    ) {
        func live(_ name: String, _ changed: Bool) { if changed { applied.append("\(key).\(name)") } }
        live("channels", old.channels != now.channels)
        live("language", old.language != now.language)
        live("announce_to", old.announceTo != now.announceTo)
        live("command_prefix", old.commandPrefix != now.commandPrefix)
        live("flood", old.flood != now.flood)
        live("owners", old.owners != now.owners)
    }

    /// The keys of one network's section that take effect after a restart.
    private mutating func compareAtStart(
        _ first: BotConfiguration.IRCSection, _ now: BotConfiguration.IRCSection, at key: String
    ) {
        func restart(_ name: String, _ changed: Bool) { if changed { needRestart.append("\(key).\(name)") } }
        restart("server", first.server != now.server || first.port != now.port)
        restart(
            "tls",
            first.tls != now.tls || first.tlsCAFile != now.tlsCAFile || first.tlsFingerprint != now.tlsFingerprint
                || first.tlsClientCert != now.tlsClientCert || first.tlsClientKey != now.tlsClientKey)
        restart("server_password", first.serverPassword != now.serverPassword)
        restart("nick", first.nick != now.nick || first.altNicks != now.altNicks)
        restart("username", first.username != now.username || first.registeredRealname != now.registeredRealname)
        restart("sasl", first.sasl != now.sasl)
        restart(
            "quit_message",
            first.quitMessage != now.quitMessage || first.shutdownDrainSeconds != now.shutdownDrainSeconds)
    }

    /// The sections every network shares.
    private mutating func compareShared(
        current old: BotConfiguration, started first: BotConfiguration, new now: BotConfiguration,
        background: Set<String>
    ) {
        func live(_ key: String, _ changed: Bool) { if changed { applied.append(key) } }
        live("plugins.disabled_in", old.plugins.disabledIn != now.plugins.disabledIn)
        live("language", old.language != now.language)
        live("plugins.user_limits", old.plugins.userLimits != now.plugins.userLimits)
        live("plugins.commands_per_host", old.plugins.commandsPerHost != now.plugins.commandsPerHost)
        let enabledBefore = Set(old.plugins.enabled.map { $0.lowercased() })
        let enabledNow = Set(now.plugins.enabled.map { $0.lowercased() })
        live("plugins.enabled", enabledBefore.subtracting(background) != enabledNow.subtracting(background))
        for name in PluginAssembly.names where !background.contains(name) {
            live("plugins.\(name)", old.plugins.sections[name] != now.plugins.sections[name])
        }

        func restart(_ key: String, _ changed: Bool) { if changed { needRestart.append(key) } }
        restart("service", first.service != now.service)
        restart("geocoder", first.geocoder != now.geocoder)
        restart("web", first.web != now.web)
        restart("operator", first.operatorListener != now.operatorListener)
        let startedWith = Set(first.plugins.enabled.map { $0.lowercased() })
        for name in background.sorted() {
            restart("plugins.enabled (\(name))", startedWith.contains(name) != enabledNow.contains(name))
            restart("plugins.\(name)", first.plugins.sections[name] != now.plugins.sections[name])
        }
    }

    /// The reply of `!reload` in `phrases`' language and the log line of SIGHUP (English); the
    /// config keys are named as the file writes them.
    func summary(path: String, in phrases: Phrasebook = .english) -> String {
        var parts: [String] = []
        parts.append(
            applied.isEmpty
                ? phrases("owner.reload.nothing")
                : phrases("owner.reload.applied", ["keys": applied.joined(separator: ", ")]))
        if !needRestart.isEmpty {
            parts.append(phrases("owner.reload.needsRestart", ["keys": needRestart.joined(separator: ", ")]))
        }
        return phrases("owner.reload.summary", ["path": path, "changes": parts.joined(separator: "; ")])
    }
}
