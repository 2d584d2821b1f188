import BotKit
import Foundation
import IRCProtocol
import Yams

/// One thing wrong with a config file, named plainly: the dotted key path ("irc.port", "" for the
/// whole file) and what is wrong.
public typealias ConfigProblem = SettingsProblem

/// The config could not be used; every problem found is listed.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [ConfigProblem]
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// Reads and checks the YAML config. Environment variables override any key (see
/// ``ConfigEnvironment``: `ONTHEMAP_IRC__SASL__PASSWORD`), and the secrets also by shorter names:
/// `ONTHEMAP_SASL_PASSWORD`, `ONTHEMAP_SERVER_PASSWORD`, `ONTHEMAP_POSTGRES_URL`, or as systemd
/// credentials (``ConfigCredentials``).
public enum ConfigLoader {
    /// "host:port" split, or nil when it is not that.
    public static func hostAndPort(_ text: String) -> (String, Int)? { ConfigCheck.hostAndPort(text) }

    /// Reads the config file; the secrets in `$CREDENTIALS_DIRECTORY` (systemd's `LoadCredential=`,
    /// see ``ConfigCredentials``) count as their environment variables.
    public static func load(
        path: String, environment: [String: String] = ProcessInfo.processInfo.environment, requireIRC: Bool = true
    ) throws(ConfigError) -> BotConfiguration {
        let text: String
        do {
            text = try readText(path)
        } catch {
            throw ConfigError(problems: [.init(key: "", message: error.reason)])
        }
        let (environment, credentialProblems) = ConfigCredentials.environment(adding: environment)
        if !credentialProblems.isEmpty { throw ConfigError(problems: credentialProblems) }
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

    /// The largest config file read: a real one is a few kilobytes.
    public static let maximumFileBytes = 1 << 20
    /// The most values a config may hold once its YAML aliases are expanded: a file of a few
    /// aliases nested a few times (a "billion laughs") would otherwise expand to billions.
    public static let maximumValues = 100_000

    /// The values of a config that would expand past ``maximumValues``.
    struct TooManyValues: Error {}

    /// A YAML node as a settings value, each scalar with what YAML reads it as; throws once more
    /// than ``maximumValues`` values were made (counting each alias's expansion).
    static func settingsValue(_ node: Node) throws(TooManyValues) -> SettingsValue {
        var budget = maximumValues
        return try settingsValue(node, budget: &budget)
    }

    private static func settingsValue(_ node: Node, budget: inout Int) throws(TooManyValues) -> SettingsValue {
        budget -= 1
        guard budget >= 0 else { throw TooManyValues() }
        switch node {
        case .scalar:
            return .scalar(
                .init(
                    text: node.string ?? "", isNull: node.null != nil, bool: node.bool, int: node.int,
                    double: node.float))
        case .sequence(let sequence):
            var items: [SettingsValue] = []
            for item in sequence { items.append(try settingsValue(item, budget: &budget)) }
            return .list(items)
        case .mapping(let mapping):
            var entries: [SettingsValue.Entry] = []
            for (key, value) in mapping {
                entries.append(.init(key: key.string ?? "", value: try settingsValue(value, budget: &budget)))
            }
            return .section(entries)
        case .alias:
            return .list([])
        }
    }

    /// Parses and checks a config. With `requireIRC: false` (operator tools that only touch the
    /// directory) problems of the `irc:` section are not reported.
    public static func parse(
        yaml: String, environment: [String: String] = [:], requireIRC: Bool = true
    ) throws(ConfigError) -> BotConfiguration {
        guard yaml.utf8.count <= maximumFileBytes else {
            throw ConfigError(problems: [
                .init(
                    key: "",
                    message: "the config is larger than \(maximumFileBytes / 1024) KiB: this is not a config file")
            ])
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch {
            throw ConfigError(problems: [.init(key: "", message: "this is not valid YAML: \(error)")])
        }
        let values: SettingsValue?
        do {
            values = try root.map(settingsValue)
        } catch {
            throw ConfigError(problems: [
                .init(
                    key: "",
                    message:
                        "the config holds more than \(maximumValues) values once its YAML aliases are expanded: nothing was read"
                )
            ])
        }
        var check = ConfigCheck()
        var config = BotConfiguration()
        let (tree, environmentProblems) = ConfigEnvironment.apply(environment, to: values)
        check.problems = environmentProblems + ConfigReader.read(tree, into: &config)
        check.applyEnvironment(environment, to: &config)
        check.validate(config)
        if !requireIRC {
            check.problems.removeAll { $0.key.hasPrefix("irc.") || $0.key.hasPrefix("networks") }
        }
        if !check.problems.isEmpty { throw ConfigError(problems: check.problems) }
        return config
    }
}

/// Checks a config read by ``ConfigReader``, collecting problems.
private struct ConfigCheck {
    var problems: [ConfigProblem] = []

    mutating func problem(_ key: String, _ message: String) {
        problems.append(ConfigProblem(key: key, message: message))
    }

    mutating func applyEnvironment(_ environment: [String: String], to config: inout BotConfiguration) {
        if let url = environment["ONTHEMAP_POSTGRES_URL"], !url.isEmpty {
            config.service.postgresURL = url
        }
        // With `networks:`, one variable would give the same secret to every network's server.
        guard config.networks.first?.keyPath == "irc" else {
            for variable in ["ONTHEMAP_SASL_PASSWORD", "ONTHEMAP_SERVER_PASSWORD"]
            where !(environment[variable] ?? "").isEmpty {
                problem(
                    "networks",
                    "\(variable) is set, but networks: has several servers: give each its own, like ONTHEMAP_NETWORKS__<NAME>__SASL__PASSWORD"
                )
            }
            return
        }
        if let password = environment["ONTHEMAP_SASL_PASSWORD"], !password.isEmpty {
            var sasl = config.irc.sasl ?? BotConfiguration.SASL()
            sasl.password = password
            if sasl.username.isEmpty { sasl.username = config.irc.nick }
            config.irc.sasl = sasl
        }
        if let password = environment["ONTHEMAP_SERVER_PASSWORD"], !password.isEmpty {
            config.irc.serverPassword = password
        }
    }

    mutating func validate(_ config: BotConfiguration) {
        validateNetworks(config.networks)
        validateServices(config)
        validatePluginsAndWeb(config)
    }

    /// The keys of one network's section (`irc` or `networks[N]`, at `at`).
    mutating func validateIRC(_ irc: BotConfiguration.IRCSection, at p: String) {
        if irc.server.isEmpty { problem("\(p).server", "is missing: the IRC server's host name, like irc.libera.chat") }
        if irc.nick.isEmpty {
            problem("\(p).nick", "is missing: the bot's nick, like OnTheMapBot")
        } else if !Self.isValidNick(irc.nick) {
            problem(
                "\(p).nick",
                "\"\(irc.nick)\" is not a valid nick (letters, digits and []\\`_^{|}-, not starting with a digit or -)")
        }
        for (index, nick) in irc.altNicks.enumerated() where !Self.isValidNick(nick) {
            problem("\(p).alt_nicks[\(index)]", "\"\(nick)\" is not a valid nick")
        }
        if irc.username.isEmpty || irc.username.contains(where: { $0 == " " || $0 == "@" }) {
            problem("\(p).username", "must be one word without spaces or @")
        }
        for (index, channel) in irc.channels.enumerated() {
            if !Self.isValidChannel(channel.name) {
                problem(
                    "\(p).channels[\(index)]",
                    "\"\(channel.name)\" is not a channel name (it starts with # or &, without spaces or commas)")
            }
            if let key = channel.key, !Self.isValidChannelKey(key) {
                problem(
                    "\(p).channels[\(index)]",
                    "the key of \(channel.name) must be one word of printable characters without commas or a leading :")
            }
        }
        // Before the server says how it compares names: the default casemapping (rfc1459).
        let joined = irc.channels.map(\.name)
        for channel in irc.announceTo where !joined.contains(where: { CaseMapping.rfc1459.equals($0, channel) }) {
            problem(
                "\(p).announce_to", "\(channel) is not in \(p).channels: the bot can only announce in channels it joins"
            )
        }
        for (index, owner) in irc.owners.enumerated() where OwnerList.Entry(parsing: owner) == nil {
            problem(
                "\(p).owners[\(index)]",
                "\"\(owner)\" is neither a services account (account:NAME) nor a nick!user@host mask")
        }
        if irc.contact.count > 100
            || irc.contact.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            problem("\(p).contact", "must be one line of at most 100 characters, like an email address or a nick")
        }
        if irc.commandPrefix.isEmpty || irc.commandPrefix.count > 3 || irc.commandPrefix.contains(" ") {
            problem("\(p).command_prefix", "must be 1 to 3 characters without spaces, like !")
        }
        validateTLSAndSASL(irc, at: p)
    }

    /// The TLS files and fingerprint of one network's section, and its SASL login.
    mutating func validateTLSAndSASL(_ irc: BotConfiguration.IRCSection, at p: String) {
        if !irc.tlsFingerprint.isEmpty {
            let hex = irc.tlsFingerprint.replacingOccurrences(of: ":", with: "")
            if hex.count != 64 || !hex.allSatisfy(\.isHexDigit) {
                problem("\(p).tls_fingerprint", "must be a SHA-256 fingerprint: 64 hex digits (colons allowed)")
            }
        }
        // With tls: false, tls_ca_file and tls_fingerprint are what the TLS connection of an STS
        // upgrade trusts (the server offered `sts=port=…` in plaintext); check-config says so.
        for (key, file) in [
            ("\(p).tls_ca_file", irc.tlsCAFile), ("\(p).tls_client_cert", irc.tlsClientCert),
            ("\(p).tls_client_key", irc.tlsClientKey),
        ]
        where !file.isEmpty && !FileManager.default.isReadableFile(atPath: file) {
            problem(key, "the file \(file) cannot be read")
        }
        if irc.tlsClientCert.isEmpty != irc.tlsClientKey.isEmpty {
            problem("\(p).tls_client_cert", "tls_client_cert and tls_client_key go together: set both or neither")
        }
        if let sasl = irc.sasl {
            let hasCertificate = !irc.tlsClientCert.isEmpty
            let usesPassword = sasl.mechanisms.isEmpty ? !hasCertificate : sasl.mechanisms.contains { $0 != .external }
            if usesPassword || (sasl.mechanisms.isEmpty && !sasl.password.isEmpty) {
                let which = sasl.mechanisms.isEmpty ? "auto without a client certificate" : "PLAIN and SCRAM"
                if sasl.username.isEmpty { problem("\(p).sasl.username", "is missing for \(which)") }
                if sasl.password.isEmpty {
                    problem("\(p).sasl.password", "is missing for \(which) (set it here or in ONTHEMAP_SASL_PASSWORD)")
                }
            }
            if sasl.mechanisms.contains(.external), !hasCertificate {
                problem(
                    "\(p).sasl.mechanism",
                    "EXTERNAL needs a client certificate: set \(p).tls_client_cert and tls_client_key")
            }
        }
    }

    /// At least one network; each named uniquely (letters, digits, `.`, `_`, `-`: names key the
    /// state each network keeps) and each section valid.
    mutating func validateNetworks(_ networks: [BotConfiguration.Network]) {
        if networks.isEmpty {
            problem(
                "networks",
                "must list at least one network, each with a name and the keys of irc: (server, nick, channels, …)")
        }
        var seen: [String: String] = [:]
        for network in networks {
            let name = network.name
            if name.isEmpty {
                problem("\(network.keyPath).name", "is missing: a short name for this network, like libera")
            } else if !Self.isValidNetworkName(name) {
                problem(
                    "\(network.keyPath).name",
                    "\"\(name.prefix(40))\" is not a network name (1 to 32 letters, digits, dots, underscores or dashes)"
                )
            } else if let first = seen[name.lowercased()] {
                problem(
                    "\(network.keyPath).name", "\(name) is already the name of \(first): each network needs its own")
            } else {
                seen[name.lowercased()] = network.keyPath
            }
            validateIRC(network.irc, at: network.keyPath)
        }
    }

    static func isValidNetworkName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 32 else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
        }
    }

    mutating func validateServices(_ config: BotConfiguration) {
        if config.service.backend == .postgres && !BuildFeatures.has(.postgres) {
            problem("service.backend", BuildFeatures.Missing(feature: .postgres).description)
        }
        if config.service.backend == .udacity && !BuildFeatures.has(.udacity) {
            problem("service.backend", BuildFeatures.Missing(feature: .udacity).description)
        }
        if config.geocoder.kind == .nominatim && !BuildFeatures.has(.udacity) {
            problem("geocoder.kind", BuildFeatures.Missing(feature: .udacity).description)
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
    }

    mutating func validatePluginsAndWeb(_ config: BotConfiguration) {
        let known = Set(PluginAssembly.names)
        for name in config.plugins.enabled where !known.contains(name) {
            problem(
                "plugins.enabled",
                "there is no plugin \"\(name)\"; the plugins are \(PluginAssembly.names.joined(separator: ", "))")
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
        if config.web.tiles.isSet {
            do {
                _ = try MapTileLayer.checkTemplate(config.web.tiles.url)
            } catch {
                problem("web.tiles.\(error.key)", error.message)
            }
            do {
                try MapTileLayer.checkAttribution(config.web.tiles.attribution)
            } catch {
                problem("web.tiles.\(error.key)", error.message)
            }
        }
        validateAPI(config)
        if config.operatorListener.enabled {
            if Self.hostAndPort(config.operatorListener.listen) == nil {
                problem("operator.listen", "must be host:port, like 127.0.0.1:9090")
            } else if config.web.enabled, config.operatorListener.listen == config.web.listen {
                problem(
                    "operator.listen",
                    "is web.listen's address too: the operator's /healthz and /metrics need a port of their own, like 127.0.0.1:9090"
                )
            }
        }
    }

    /// `service.api` and the web listener's TLS: passwords cross the listener once the API is on,
    /// so it must speak HTTPS itself, sit behind a TLS proxy, or listen on loopback only.
    mutating func validateAPI(_ config: BotConfiguration) {
        if config.web.tlsCert.isEmpty != config.web.tlsKey.isEmpty {
            problem(
                config.web.tlsCert.isEmpty ? "web.tls_cert" : "web.tls_key",
                "is missing: HTTPS needs both web.tls_cert and web.tls_key (PEM files)")
        }
        guard config.service.api.enabled else { return }
        if config.service.backend == .udacity {
            problem(
                "service.api.enabled",
                "serves the bot's own directory: it needs service.backend local or postgres, not udacity")
        }
        if !config.web.enabled {
            problem("service.api.enabled", "needs web.enabled: true (the API is served on web.listen under /v1)")
        }
        if let (host, _) = Self.hostAndPort(config.web.listen), !Self.isLoopback(host), !config.web.servesTLS,
            !config.web.behindProxy
        {
            problem(
                "web.listen",
                "is not a loopback address, and the API would take passwords there in clear: set web.tls_cert and web.tls_key, or web.behind_proxy: true when a TLS reverse proxy forwards to it"
            )
        }
    }

    /// Whether `host` only accepts connections from this machine.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
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
    static func isValidNick(_ nick: String) -> Bool { ConfigCheck.isValidNick(nick) }

    /// Whether `name` is a channel name the config would accept.
    static func isValidChannel(_ name: String) -> Bool { ConfigCheck.isValidChannel(name) }

    /// Whether `key` can be a channel key (one word of printable characters without commas).
    static func isValidChannelKey(_ key: String) -> Bool { ConfigCheck.isValidChannelKey(key) }
}
