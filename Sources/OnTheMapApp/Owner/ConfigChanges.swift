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
    init(current: BotConfiguration, started: BotConfiguration, new: BotConfiguration, background: Set<String>) {
        let (old, now) = (current, new)
        func live(_ key: String, _ changed: Bool) { if changed { applied.append(key) } }
        live("irc.channels", old.irc.channels != now.irc.channels)
        live("irc.announce_to", old.irc.announceTo != now.irc.announceTo)
        live("irc.command_prefix", old.irc.commandPrefix != now.irc.commandPrefix)
        live("irc.flood", old.irc.flood != now.irc.flood)
        live("irc.owners", old.irc.owners != now.irc.owners)
        live("plugins.disabled_in", old.plugins.disabledIn != now.plugins.disabledIn)
        live("plugins.user_limits", old.plugins.userLimits != now.plugins.userLimits)
        let enabledBefore = Set(old.plugins.enabled.map { $0.lowercased() })
        let enabledNow = Set(now.plugins.enabled.map { $0.lowercased() })
        live("plugins.enabled", enabledBefore.subtracting(background) != enabledNow.subtracting(background))
        for name in PluginAssembly.names where !background.contains(name) {
            live("plugins.\(name)", old.plugins.sections[name] != now.plugins.sections[name])
        }

        let first = started
        func restart(_ key: String, _ changed: Bool) { if changed { needRestart.append(key) } }
        restart("irc.server", first.irc.server != now.irc.server || first.irc.port != now.irc.port)
        restart(
            "irc.tls",
            first.irc.tls != now.irc.tls || first.irc.tlsCAFile != now.irc.tlsCAFile
                || first.irc.tlsFingerprint != now.irc.tlsFingerprint
                || first.irc.tlsClientCert != now.irc.tlsClientCert
                || first.irc.tlsClientKey != now.irc.tlsClientKey)
        restart("irc.server_password", first.irc.serverPassword != now.irc.serverPassword)
        restart("irc.nick", first.irc.nick != now.irc.nick || first.irc.altNicks != now.irc.altNicks)
        restart("irc.username", first.irc.username != now.irc.username || first.irc.realname != now.irc.realname)
        restart("irc.sasl", first.irc.sasl != now.irc.sasl)
        restart(
            "irc.quit_message",
            first.irc.quitMessage != now.irc.quitMessage
                || first.irc.shutdownDrainSeconds != now.irc.shutdownDrainSeconds)
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

    /// The reply of `!reload` and the log line of SIGHUP.
    func summary(path: String) -> String {
        var parts: [String] = []
        parts.append(applied.isEmpty ? "nothing to apply" : "applied " + applied.joined(separator: ", "))
        if !needRestart.isEmpty { parts.append("needs a restart: " + needRestart.joined(separator: ", ")) }
        return "Reloaded \(path): " + parts.joined(separator: "; ") + "."
    }
}
