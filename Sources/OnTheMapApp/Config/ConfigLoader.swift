import Foundation
import Yams

/// One thing wrong with a config file, named plainly: where and what.
public struct ConfigProblem: Sendable, Equatable, CustomStringConvertible {
    /// The dotted key path ("irc.port"), or "" for the whole file.
    public var key: String
    public var message: String

    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }

    public var description: String { key.isEmpty ? message : "\(key): \(message)" }
}

/// The config could not be used; every problem found is listed.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [ConfigProblem]
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// Reads and checks the YAML config. Environment variables override secrets:
/// `ONTHEMAP_SASL_PASSWORD`, `ONTHEMAP_SERVER_PASSWORD`, `ONTHEMAP_POSTGRES_URL`.
public enum ConfigLoader {
    /// "host:port" split, or nil when it is not that.
    public static func hostAndPort(_ text: String) -> (String, Int)? { NodeReader.hostAndPort(text) }

    /// Environment variables that override config keys.
    public static let environmentOverrides: [(variable: String, key: String)] = [
        ("ONTHEMAP_SASL_PASSWORD", "irc.sasl.password"),
        ("ONTHEMAP_SERVER_PASSWORD", "irc.server_password"),
        ("ONTHEMAP_POSTGRES_URL", "service.postgres_url"),
    ]

    public static func load(
        path: String, environment: [String: String] = ProcessInfo.processInfo.environment, requireIRC: Bool = true
    ) throws(ConfigError) -> BotConfiguration {
        let text: String
        do {
            text = try readText(path)
        } catch {
            throw ConfigError(problems: [.init(key: "", message: error.reason)])
        }
        return try parse(yaml: text, environment: environment, requireIRC: requireIRC)
    }

    private struct Unreadable: Error {
        var reason: String
    }

    /// The text of the config file, or why it cannot be had, said plainly.
    private static func readText(_ path: String) throws(Unreadable) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw Unreadable(reason: "there is no config file \(path)")
        }
        if isDirectory.boolValue { throw Unreadable(reason: "\(path) is a directory, not a config file") }
        guard FileManager.default.isReadableFile(atPath: path), let data = FileManager.default.contents(atPath: path)
        else {
            throw Unreadable(reason: "the config file \(path) cannot be read (no permission to read it)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw Unreadable(reason: "the config file \(path) is not UTF-8 text")
        }
        return text
    }

    /// What is allowed but probably not meant, for `check-config` and the log at start: the web
    /// listener on every network interface (the class map, with every student's name and link, and
    /// `/metrics` open to anyone who can reach the machine).
    public static func warnings(for config: BotConfiguration) -> [ConfigProblem] {
        var warnings: [ConfigProblem] = []
        if config.web.enabled, let (host, _) = hostAndPort(config.web.listen),
            ["0.0.0.0", "::", "*"].contains(host)
        {
            warnings.append(
                ConfigProblem(
                    key: "web.listen",
                    message:
                        "\(config.web.listen) listens on every network interface: the class map (every student's name and link), /healthz and /metrics are open to anyone who can reach this machine; listen on 127.0.0.1 behind a reverse proxy unless that is what you want"
                ))
        }
        return warnings
    }

    /// Parses and checks a config. With `requireIRC: false` (operator tools that only touch the
    /// directory) problems of the `irc:` section are not reported.
    public static func parse(
        yaml: String, environment: [String: String] = [:], requireIRC: Bool = true
    ) throws(ConfigError) -> BotConfiguration {
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch {
            throw ConfigError(problems: [.init(key: "", message: "this is not valid YAML: \(error)")])
        }
        var reader = NodeReader()
        var config = BotConfiguration()
        if let root {
            reader.read(root, into: &config)
        }
        reader.applyEnvironment(environment, to: &config)
        reader.validate(config)
        if !requireIRC { reader.problems.removeAll { $0.key.hasPrefix("irc.") } }
        if !reader.problems.isEmpty { throw ConfigError(problems: reader.problems) }
        return config
    }
}

/// Walks the YAML tree, filling the config and collecting problems (unknown keys, wrong types).
private struct NodeReader {
    var problems: [ConfigProblem] = []

    mutating func problem(_ key: String, _ message: String) {
        problems.append(ConfigProblem(key: key, message: message))
    }

    /// The pairs of a mapping, after reporting keys that are not in `known`.
    mutating func mapping(_ node: Node, at path: String, known: [String]) -> [String: Node] {
        guard case .mapping(let mapping) = node else {
            if node.null == nil { problem(path, "must be a section of keys (a mapping)") }
            return [:]
        }
        var result: [String: Node] = [:]
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            let full = path.isEmpty ? key : "\(path).\(key)"
            if known.contains(key) {
                result[key] = value
            } else {
                let suggestion = Self.closest(to: key, in: known)
                problem(
                    full,
                    "unknown key"
                        + (suggestion.map { " (did you mean \"\($0)\"?)" } ?? "; known keys here: "
                            + known.joined(separator: ", ")))
            }
        }
        return result
    }

    /// The known key a mistyped one most likely meant (case, `-`/`_` and up to two edits apart).
    static func closest(to key: String, in known: [String]) -> String? {
        func fold(_ text: String) -> [Character] {
            Array(text.lowercased().replacingOccurrences(of: "-", with: "_"))
        }
        let typed = fold(key)
        let scored = known.map { candidate -> (String, Int) in (candidate, editDistance(typed, fold(candidate))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= min(2, max(1, typed.count / 3)) else { return nil }
        return best.0
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1]
            for (j, cb) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    mutating func string(_ node: Node?, _ path: String, into value: inout String) {
        guard let node else { return }
        if node.null != nil {
            value = ""
            return
        }
        guard case .scalar = node, let text = node.string else { return problem(path, "must be text") }
        value = text
    }

    mutating func bool(_ node: Node?, _ path: String, into value: inout Bool) {
        guard let node else { return }
        guard case .scalar = node, let flag = node.bool else { return problem(path, "must be true or false") }
        value = flag
    }

    mutating func int(_ node: Node?, _ path: String, into value: inout Int, range: ClosedRange<Int>) {
        guard let node else { return }
        guard case .scalar = node, let number = node.int else {
            return problem(
                path,
                "must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(node.string ?? "?")\"")
        }
        guard range.contains(number) else {
            return problem(path, "must be from \(range.lowerBound) to \(range.upperBound), not \(number)")
        }
        value = number
    }

    mutating func double(_ node: Node?, _ path: String, into value: inout Double, range: ClosedRange<Double>) {
        guard let node else { return }
        guard case .scalar = node, let number = node.float, range.contains(number) else {
            return problem(path, "must be a number from \(range.lowerBound) to \(range.upperBound)")
        }
        value = number
    }

    mutating func strings(_ node: Node?, _ path: String, into value: inout [String]) {
        guard let node else { return }
        if node.null != nil {
            value = []
            return
        }
        guard case .sequence(let sequence) = node else { return problem(path, "must be a list, like [a, b]") }
        var result: [String] = []
        for (index, item) in sequence.enumerated() {
            guard case .scalar = item, let text = item.string else {
                problem("\(path)[\(index)]", "must be text")
                continue
            }
            result.append(text)
        }
        value = result
    }

    mutating func choice<T: RawRepresentable & CaseIterable>(_ node: Node?, _ path: String, into value: inout T)
    where T.RawValue == String {
        guard let node else { return }
        let allowed = T.allCases.map(\.rawValue)
        guard let text = node.string,
            let parsed = T(rawValue: text) ?? T(rawValue: text.lowercased()) ?? T(rawValue: text.uppercased())
        else {
            return problem(path, "must be one of \(allowed.joined(separator: ", ")), not \"\(node.string ?? "?")\"")
        }
        value = parsed
    }

    mutating func read(_ root: Node, into config: inout BotConfiguration) {
        let top = mapping(root, at: "", known: ["irc", "service", "geocoder", "units", "plugins", "web"])
        if let irc = top["irc"] { readIRC(irc, into: &config.irc) }
        if let node = top["service"] {
            let s = mapping(
                node, at: "service",
                known: [
                    "backend", "database", "postgres_url", "udacity_url", "signup_url", "poll_seconds",
                    "allow_registration", "post_flow_minutes",
                ])
            choice(s["backend"], "service.backend", into: &config.service.backend)
            string(s["database"], "service.database", into: &config.service.database)
            string(s["postgres_url"], "service.postgres_url", into: &config.service.postgresURL)
            string(s["udacity_url"], "service.udacity_url", into: &config.service.udacityURL)
            string(s["signup_url"], "service.signup_url", into: &config.service.signupURL)
            int(s["poll_seconds"], "service.poll_seconds", into: &config.service.pollSeconds, range: 10...86_400)
            bool(s["allow_registration"], "service.allow_registration", into: &config.service.allowRegistration)
            int(
                s["post_flow_minutes"], "service.post_flow_minutes", into: &config.service.postFlowMinutes,
                range: 1...1440)
        }
        if let node = top["geocoder"] {
            let g = mapping(node, at: "geocoder", known: ["kind", "nominatim_url", "user_agent"])
            choice(g["kind"], "geocoder.kind", into: &config.geocoder.kind)
            string(g["nominatim_url"], "geocoder.nominatim_url", into: &config.geocoder.nominatimURL)
            string(g["user_agent"], "geocoder.user_agent", into: &config.geocoder.userAgent)
        }
        choice(top["units"], "units", into: &config.units)
        if let node = top["plugins"] {
            let p = mapping(node, at: "plugins", known: ["enabled", "disabled_in", "user_limits"])
            strings(p["enabled"], "plugins.enabled", into: &config.plugins.enabled)
            bool(p["user_limits"], "plugins.user_limits", into: &config.plugins.userLimits)
            if let disabled = p["disabled_in"] {
                if case .mapping(let channels) = disabled {
                    for (channel, list) in channels {
                        let name = channel.string ?? ""
                        var plugins: [String] = []
                        strings(list, "plugins.disabled_in.\(name)", into: &plugins)
                        config.plugins.disabledIn[name] = plugins
                    }
                } else if disabled.null == nil {
                    problem("plugins.disabled_in", "must map channels to lists of plugins, like {\"#quiet\": [near]}")
                }
            }
        }
        if let node = top["web"] {
            let w = mapping(node, at: "web", known: ["enabled", "listen", "public_url"])
            bool(w["enabled"], "web.enabled", into: &config.web.enabled)
            string(w["listen"], "web.listen", into: &config.web.listen)
            string(w["public_url"], "web.public_url", into: &config.web.publicURL)
        }
    }

    mutating func readIRC(_ node: Node, into irc: inout BotConfiguration.IRCSection) {
        let i = mapping(
            node, at: "irc",
            known: [
                "server", "port", "tls", "tls_ca_file", "tls_fingerprint", "tls_client_cert", "tls_client_key",
                "server_password", "nick", "alt_nicks", "username", "realname", "sasl", "channels", "announce_to",
                "command_prefix", "flood", "quit_message", "shutdown_drain_seconds",
            ])
        string(i["server"], "irc.server", into: &irc.server)
        int(i["port"], "irc.port", into: &irc.port, range: 1...65535)
        bool(i["tls"], "irc.tls", into: &irc.tls)
        string(i["tls_ca_file"], "irc.tls_ca_file", into: &irc.tlsCAFile)
        string(i["tls_fingerprint"], "irc.tls_fingerprint", into: &irc.tlsFingerprint)
        string(i["tls_client_cert"], "irc.tls_client_cert", into: &irc.tlsClientCert)
        string(i["tls_client_key"], "irc.tls_client_key", into: &irc.tlsClientKey)
        string(i["server_password"], "irc.server_password", into: &irc.serverPassword)
        string(i["nick"], "irc.nick", into: &irc.nick)
        strings(i["alt_nicks"], "irc.alt_nicks", into: &irc.altNicks)
        string(i["username"], "irc.username", into: &irc.username)
        string(i["realname"], "irc.realname", into: &irc.realname)
        string(i["command_prefix"], "irc.command_prefix", into: &irc.commandPrefix)
        string(i["quit_message"], "irc.quit_message", into: &irc.quitMessage)
        double(
            i["shutdown_drain_seconds"], "irc.shutdown_drain_seconds", into: &irc.shutdownDrainSeconds, range: 0...600)
        var channels: [String] = []
        strings(i["channels"], "irc.channels", into: &channels)
        if i["channels"] != nil {
            irc.channels = []
            for (index, entry) in channels.enumerated() {
                // "#chan" or "#chan key": a channel name has no spaces, and a key is one word.
                let parts = entry.split(separator: " ").map(String.init)
                guard parts.count <= 2 else {
                    problem(
                        "irc.channels[\(index)]",
                        "\"\(entry)\" has \(parts.count) words: an entry is a channel name, optionally followed by its key (\"#chan\" or \"#chan key\"); a channel name has no spaces"
                    )
                    continue
                }
                irc.channels.append(.init(name: parts.first ?? "", key: parts.count > 1 ? parts[1] : nil))
            }
        }
        strings(i["announce_to"], "irc.announce_to", into: &irc.announceTo)
        if let node = i["sasl"], node.null == nil {
            let s = mapping(node, at: "irc.sasl", known: ["mechanism", "username", "password", "required"])
            var sasl = BotConfiguration.SASL()
            choice(s["mechanism"], "irc.sasl.mechanism", into: &sasl.mechanism)
            string(s["username"], "irc.sasl.username", into: &sasl.username)
            string(s["password"], "irc.sasl.password", into: &sasl.password)
            bool(s["required"], "irc.sasl.required", into: &sasl.required)
            irc.sasl = sasl
        }
        if let node = i["flood"] {
            let f = mapping(node, at: "irc.flood", known: ["enabled", "burst", "lines_per_second"])
            bool(f["enabled"], "irc.flood.enabled", into: &irc.flood.enabled)
            int(f["burst"], "irc.flood.burst", into: &irc.flood.burst, range: 1...20)
            // 0 turns the bot's own throttle off (benchmarks; a server that exempts the bot).
            double(f["lines_per_second"], "irc.flood.lines_per_second", into: &irc.flood.linesPerSecond, range: 0...10)
        }
    }

    mutating func applyEnvironment(_ environment: [String: String], to config: inout BotConfiguration) {
        if let password = environment["ONTHEMAP_SASL_PASSWORD"], !password.isEmpty {
            var sasl = config.irc.sasl ?? BotConfiguration.SASL()
            sasl.password = password
            if sasl.username.isEmpty { sasl.username = config.irc.nick }
            config.irc.sasl = sasl
        }
        if let password = environment["ONTHEMAP_SERVER_PASSWORD"], !password.isEmpty {
            config.irc.serverPassword = password
        }
        if let url = environment["ONTHEMAP_POSTGRES_URL"], !url.isEmpty {
            config.service.postgresURL = url
        }
    }

    mutating func validate(_ config: BotConfiguration) {
        let irc = config.irc
        if irc.server.isEmpty { problem("irc.server", "is missing: the IRC server's host name, like irc.libera.chat") }
        if irc.nick.isEmpty {
            problem("irc.nick", "is missing: the bot's nick, like OnTheMapBot")
        } else if !Self.isValidNick(irc.nick) {
            problem(
                "irc.nick",
                "\"\(irc.nick)\" is not a valid nick (letters, digits and []\\`_^{|}-, not starting with a digit or -)")
        }
        for (index, nick) in irc.altNicks.enumerated() where !Self.isValidNick(nick) {
            problem("irc.alt_nicks[\(index)]", "\"\(nick)\" is not a valid nick")
        }
        if irc.username.isEmpty || irc.username.contains(where: { $0 == " " || $0 == "@" }) {
            problem("irc.username", "must be one word without spaces or @")
        }
        for (index, channel) in irc.channels.enumerated() {
            if !Self.isValidChannel(channel.name) {
                problem(
                    "irc.channels[\(index)]",
                    "\"\(channel.name)\" is not a channel name (it starts with # or &, without spaces or commas)")
            }
            if let key = channel.key, !Self.isValidChannelKey(key) {
                problem(
                    "irc.channels[\(index)]",
                    "the key of \(channel.name) must be one word of printable characters without commas or a leading :")
            }
        }
        let joined = Set(irc.channels.map { $0.name.lowercased() })
        for channel in irc.announceTo where !joined.contains(channel.lowercased()) {
            problem(
                "irc.announce_to", "\(channel) is not in irc.channels: the bot can only announce in channels it joins")
        }
        if irc.commandPrefix.isEmpty || irc.commandPrefix.count > 3 || irc.commandPrefix.contains(" ") {
            problem("irc.command_prefix", "must be 1 to 3 characters without spaces, like !")
        }
        if !irc.tlsFingerprint.isEmpty {
            let hex = irc.tlsFingerprint.replacingOccurrences(of: ":", with: "")
            if hex.count != 64 || !hex.allSatisfy(\.isHexDigit) {
                problem("irc.tls_fingerprint", "must be a SHA-256 fingerprint: 64 hex digits (colons allowed)")
            }
        }
        if !irc.tls && (!irc.tlsCAFile.isEmpty || !irc.tlsFingerprint.isEmpty) {
            problem("irc.tls", "is false, but tls_ca_file or tls_fingerprint is set: turn TLS on or remove them")
        }
        for (key, file) in [
            ("irc.tls_ca_file", irc.tlsCAFile), ("irc.tls_client_cert", irc.tlsClientCert),
            ("irc.tls_client_key", irc.tlsClientKey),
        ]
        where !file.isEmpty && !FileManager.default.isReadableFile(atPath: file) {
            problem(key, "the file \(file) cannot be read")
        }
        if irc.tlsClientCert.isEmpty != irc.tlsClientKey.isEmpty {
            problem("irc.tls_client_cert", "tls_client_cert and tls_client_key go together: set both or neither")
        }
        if let sasl = irc.sasl {
            switch sasl.mechanism {
            case .plain:
                if sasl.username.isEmpty { problem("irc.sasl.username", "is missing for SASL PLAIN") }
                if sasl.password.isEmpty {
                    problem("irc.sasl.password", "is missing for SASL PLAIN (set it here or in ONTHEMAP_SASL_PASSWORD)")
                }
            case .external:
                if irc.tlsClientCert.isEmpty {
                    problem(
                        "irc.sasl.mechanism",
                        "EXTERNAL needs a client certificate: set irc.tls_client_cert and tls_client_key")
                }
            }
        }
        switch config.service.backend {
        case .local:
            if config.service.database.isEmpty {
                problem("service.database", "is missing: the SQLite file for the local backend")
            }
        case .postgres:
            if !config.service.postgresURL.hasPrefix("postgres://")
                && !config.service.postgresURL.hasPrefix("postgresql://")
            {
                problem(
                    "service.postgres_url",
                    "must be a postgres:// URL (or set ONTHEMAP_POSTGRES_URL) for the postgres backend")
            }
        case .udacity:
            if !Self.isHTTPURL(config.service.udacityURL) { problem("service.udacity_url", "must be an http(s) URL") }
        }
        if config.geocoder.kind == .nominatim {
            if !Self.isHTTPURL(config.geocoder.nominatimURL) {
                problem("geocoder.nominatim_url", "must be an http(s) URL for the nominatim geocoder")
            }
            if config.geocoder.userAgent.isEmpty {
                problem(
                    "geocoder.user_agent",
                    "is required by Nominatim's usage policy: name the bot and a contact, like \"OnTheMapBot/1.0 (teacher@school.edu)\""
                )
            }
        }
        let known = Set(BotConfiguration.PluginsSection.all)
        for name in config.plugins.enabled where !known.contains(name) {
            problem(
                "plugins.enabled",
                "there is no plugin \"\(name)\"; the plugins are \(BotConfiguration.PluginsSection.all.joined(separator: ", "))"
            )
        }
        for (channel, names) in config.plugins.disabledIn {
            for name in names where !known.contains(name) {
                problem("plugins.disabled_in.\(channel)", "there is no plugin \"\(name)\"")
            }
        }
        if config.web.enabled {
            if Self.hostAndPort(config.web.listen) == nil {
                problem("web.listen", "must be host:port, like 127.0.0.1:8080")
            }
            if !Self.isHTTPURL(config.web.publicURL) { problem("web.public_url", "must be an http(s) URL") }
        }
    }

    static func isValidNick(_ nick: String) -> Bool {
        guard let first = nick.unicodeScalars.first, nick.utf8.count <= 30 else { return false }
        let special = Set("[]\\`_^{|}".unicodeScalars)
        func ok(_ s: Unicode.Scalar) -> Bool {
            (s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s))) || special.contains(s) || s == "-"
        }
        return nick.unicodeScalars.allSatisfy(ok) && !("0"..."9").contains(first) && first != "-"
    }

    static func isValidChannel(_ name: String) -> Bool {
        guard let first = name.first, first == "#" || first == "&", name.count > 1, name.utf8.count <= 50 else {
            return false
        }
        return !name.contains { $0.isWhitespace || $0 == "," || $0 == "\u{07}" }
    }

    static func isValidChannelKey(_ key: String) -> Bool {
        guard !key.isEmpty, !key.hasPrefix(":"), key.utf8.count <= 50 else { return false }
        return !key.unicodeScalars.contains { $0 == "," || $0.value <= 0x20 || $0.value == 0x7F }
    }

    static func isHTTPURL(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty
        else {
            return false
        }
        return scheme == "http" || scheme == "https"
    }

    static func hostAndPort(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}

extension ConfigLoader {
    /// Whether `nick` is a nick the config would accept (also checks console users' nicks).
    static func isValidNick(_ nick: String) -> Bool { NodeReader.isValidNick(nick) }

    /// Whether `name` is a channel name the config would accept.
    static func isValidChannel(_ name: String) -> Bool { NodeReader.isValidChannel(name) }
}
