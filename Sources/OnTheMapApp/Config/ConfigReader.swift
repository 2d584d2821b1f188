import BotKit
import Localization
import OnTheMapService

/// Reads the sections of a config file into a ``BotConfiguration``, collecting problems (unknown
/// keys, wrong types). Each plugin reads its own section, `plugins.<name>:`.
enum ConfigReader {
    /// Reads `root` (the whole file) into `config`; returns every problem found.
    static func read(_ root: SettingsValue?, into config: inout BotConfiguration) -> [ConfigProblem] {
        var top = SettingsSection(root, at: "")
        readNetworks(&top, into: &config)
        top.section("service") { s in
            s.choice("backend", into: &config.service.backend)
            s.string("database", into: &config.service.database)
            s.string("postgres_url", into: &config.service.postgresURL)
            s.string("udacity_url", into: &config.service.udacityURL)
            s.int("udacity_max_pins", into: &config.service.udacityMaxPins, range: 100...1_000_000)
            s.string("signup_url", into: &config.service.signupURL)
            s.section("api") { a in
                a.bool("enabled", into: &config.service.api.enabled)
            }
        }
        top.section("geocoder") { g in
            g.choice("kind", into: &config.geocoder.kind)
            g.string("nominatim_url", into: &config.geocoder.nominatimURL)
            g.string("user_agent", into: &config.geocoder.userAgent)
        }
        var ownSections: [String: SettingsValue] = [:]
        top.section("plugins") { p in
            p.strings("enabled", into: &config.plugins.enabled)
            if let disabled = p.value("disabled_in") { readDisabledIn(disabled, &p, into: &config.plugins) }
            p.bool("user_limits", into: &config.plugins.userLimits)
            p.section("commands_per_host") { h in
                h.int("burst", into: &config.plugins.commandsPerHost.burst, range: 1...100_000)
                h.int("per_minute", into: &config.plugins.commandsPerHost.perMinute, range: 1...100_000)
            }
            for registration in PluginAssembly.registrations {
                ownSections[registration.name] = p.value(registration.name)
            }
        }
        for registration in PluginAssembly.registrations {
            let section = ownSections[registration.name]
            top.include(registration.problems(in: section))
            config.plugins.sections[registration.name] = section
        }
        top.section("web") { w in
            w.bool("enabled", into: &config.web.enabled)
            w.string("listen", into: &config.web.listen)
            w.string("public_url", into: &config.web.publicURL)
            w.string("tls_cert", into: &config.web.tlsCert)
            w.string("tls_key", into: &config.web.tlsKey)
            w.bool("behind_proxy", into: &config.web.behindProxy)
            w.choice("visibility", into: &config.web.visibility)
            w.section("tiles") { t in
                t.string("url", into: &config.web.tiles.url)
                t.string("attribution", into: &config.web.tiles.attribution)
            }
        }
        top.section("privacy") { p in
            p.choice("default", into: &config.privacy.defaultPrecision)
            p.choice("finest", into: &config.privacy.finestPrecision)
            p.choice("channel_answers", into: &config.privacy.channelAnswers)
            p.choice("open_channel", into: &config.privacy.openChannel)
            p.int("pin_days", into: &config.privacy.pinDays, range: 0...3650)
            p.int("city_min_population", into: &config.privacy.cityMinimumPopulation, range: 0...100_000_000)
        }
        top.section("operator") { o in
            o.bool("enabled", into: &config.operatorListener.enabled)
            o.string("listen", into: &config.operatorListener.listen)
        }
        top.section("log") { l in
            l.bool("student_data", into: &config.log.studentData)
        }
        readLanguage(&top, "language", into: &config.language)
        return top.finish()
    }

    /// A `language:` key: the tag of a language with a catalogue ("es", "pt-BR").
    static func readLanguage(_ section: inout SettingsSection, _ key: String, into language: inout Language?) {
        guard let value = section.value(key), !value.isNull else { return }
        guard let text = value.text, let found = Language(tag: text) else {
            section.problem(
                key,
                "must be one of \(Language.supported.map(\.tag).joined(separator: ", ")), not \"\(value.text ?? "a list")\""
            )
            return
        }
        language = found
    }

    /// `plugins.disabled_in`: channel → plugins turned off there.
    static func readDisabledIn(
        _ value: SettingsValue, _ plugins: inout SettingsSection, into config: inout BotConfiguration.PluginsSection
    ) {
        guard case .section(let channels) = value else {
            if !value.isNull {
                plugins.problem(
                    "disabled_in", "must map channels to lists of plugins, like {\"#quiet\": [near]}")
            }
            return
        }
        var section = SettingsSection(value, at: plugins.path(of: "disabled_in"))
        for channel in channels {
            var names: [String] = []
            section.strings(channel.key, into: &names)
            config.disabledIn[channel.key] = names
        }
        plugins.include(section.finish())
    }

    /// `irc:` (one network, named ``BotConfiguration/defaultNetworkName``) or `networks:` (a list
    /// of sections, each with a `name` and the keys of `irc:`), not both.
    static func readNetworks(_ top: inout SettingsSection, into config: inout BotConfiguration) {
        let single = top.value("irc")
        guard let list = top.value("networks") else {
            top.section("irc") { readIRC(&$0, into: &config.irc) }
            return
        }
        if single != nil {
            top.problem(
                "networks", "and irc: are both set: keep irc: for one network, or move it into networks: with a name")
        }
        // Not a list, or an empty one: no network (the checks say what `networks:` must be).
        guard case .list(let entries) = list else {
            config.networks = []
            return
        }
        config.networks = entries.enumerated().map { index, entry in
            let path = "networks[\(index)]"
            var section = SettingsSection(entry, at: path)
            var network = BotConfiguration.Network(name: "", keyPath: path)
            section.string("name", into: &network.name)
            readIRC(&section, into: &network.irc)
            top.include(section.finish())
            return network
        }
    }

    /// `mechanism:` is one name, `auto`, or a list of names in order of preference.
    static func readSASLMechanisms(_ s: inout SettingsSection, into mechanisms: inout [BotConfiguration.SASL.Mechanism])
    {
        guard let value = s.value("mechanism") else { return }
        var names: [String] = []
        if let text = value.text {
            names = text.split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }
        } else {
            s.strings("mechanism", into: &names)
        }
        if names.count == 1, names[0].lowercased() == "auto" {
            mechanisms = []
            return
        }
        var read: [BotConfiguration.SASL.Mechanism] = []
        for name in names {
            guard let mechanism = BotConfiguration.SASL.Mechanism(rawValue: name.uppercased()) else {
                let allowed = BotConfiguration.SASL.Mechanism.allCases.map(\.rawValue).joined(separator: ", ")
                return s.problem("mechanism", "must be auto, or one or more of \(allowed), not \"\(name)\"")
            }
            if !read.contains(mechanism) { read.append(mechanism) }
        }
        guard !read.isEmpty else { return s.problem("mechanism", "must name at least one mechanism, or auto") }
        mechanisms = read
    }

    static func readIRC(_ i: inout SettingsSection, into irc: inout BotConfiguration.IRCSection) {
        i.string("server", into: &irc.server)
        i.int("port", into: &irc.port, range: 1...65535)
        i.bool("tls", into: &irc.tls)
        i.string("tls_ca_file", into: &irc.tlsCAFile)
        i.string("tls_fingerprint", into: &irc.tlsFingerprint)
        i.string("tls_client_cert", into: &irc.tlsClientCert)
        i.string("tls_client_key", into: &irc.tlsClientKey)
        i.string("server_password", into: &irc.serverPassword)
        i.string("nick", into: &irc.nick)
        i.strings("alt_nicks", into: &irc.altNicks)
        i.string("username", into: &irc.username)
        i.string("realname", into: &irc.realname)
        i.string("contact", into: &irc.contact)
        readLanguage(&i, "language", into: &irc.language)
        if let node = i.value("sasl"), !node.isNull {
            i.section("sasl") { s in
                var sasl = BotConfiguration.SASL()
                readSASLMechanisms(&s, into: &sasl.mechanisms)
                s.string("username", into: &sasl.username)
                s.string("password", into: &sasl.password)
                s.bool("required", into: &sasl.required)
                irc.sasl = sasl
            }
        }
        readChannels(&i, into: &irc)
        i.strings("announce_to", into: &irc.announceTo)
        i.string("command_prefix", into: &irc.commandPrefix)
        i.strings("owners", into: &irc.owners)
        i.section("flood") { f in
            f.bool("enabled", into: &irc.flood.enabled)
            f.int("burst", into: &irc.flood.burst, range: 1...20)
            // 0 turns the bot's own throttle off (benchmarks; a server that exempts the bot).
            f.double("lines_per_second", into: &irc.flood.linesPerSecond, range: 0...10)
        }
        i.string("quit_message", into: &irc.quitMessage)
        i.double("shutdown_drain_seconds", into: &irc.shutdownDrainSeconds, range: 0...600)
    }

    /// `irc.channels`: "#chan" or "#chan key" (a channel name has no spaces, and a key is one word),
    /// or a section `{name: "#chan", key: …, language: es}`.
    static func readChannels(_ i: inout SettingsSection, into irc: inout BotConfiguration.IRCSection) {
        guard let value = i.value("channels") else { return }
        guard case .list(let items) = value else {
            var channels: [String] = []
            i.strings("channels", into: &channels)
            return
        }
        irc.channels = []
        for (index, item) in items.enumerated() {
            if case .section = item {
                var section = SettingsSection(item, at: i.path(of: "channels[\(index)]"))
                var entry = BotConfiguration.ChannelEntry(name: "")
                section.string("name", into: &entry.name)
                var key = ""
                section.string("key", into: &key)
                entry.key = key.isEmpty ? nil : key
                readLanguage(&section, "language", into: &entry.language)
                if entry.name.isEmpty { section.problem("name", "is missing: the channel to join, like \"#class\"") }
                i.include(section.finish())
                irc.channels.append(entry)
                continue
            }
            guard let entry = item.text else {
                i.problem("channels[\(index)]", "must be text (\"#chan\" or \"#chan key\") or a section with a name")
                continue
            }
            let parts = entry.split(separator: " ").map(String.init)
            guard parts.count <= 2 else {
                i.problem(
                    "channels[\(index)]",
                    "\"\(entry)\" has \(parts.count) words: an entry is a channel name, optionally followed by its key (\"#chan\" or \"#chan key\"); a channel name has no spaces"
                )
                continue
            }
            irc.channels.append(.init(name: parts.first ?? "", key: parts.count > 1 ? parts[1] : nil))
        }
    }
}
