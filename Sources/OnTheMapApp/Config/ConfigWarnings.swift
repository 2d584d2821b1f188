import BotKit
import Foundation

extension ConfigLoader {
    /// What is allowed but probably not meant, for `check-config` and the log at start: a listener
    /// on every network interface, a class map whose public address only this machine can open, and
    /// an owner mask any host matches.
    public static func warnings(for config: BotConfiguration) -> [ConfigProblem] {
        var warnings: [ConfigProblem] = []
        if config.web.enabled, let (host, _) = hostAndPort(config.web.listen), NetworkScope.isEveryInterface(host) {
            warnings.append(
                ConfigProblem(
                    key: "web.listen",
                    message:
                        "\(config.web.listen) listens on every network interface: the class map (every student's name and link) is open to anyone who can reach this machine; listen on 127.0.0.1 behind a reverse proxy unless that is what you want"
                ))
        }
        let operatorListener = config.operatorListener
        if operatorListener.enabled, let (host, _) = hostAndPort(operatorListener.listen),
            NetworkScope.isEveryInterface(host)
        {
            warnings.append(
                ConfigProblem(
                    key: "operator.listen",
                    message:
                        "\(operatorListener.listen) listens on every network interface: /healthz and /metrics (the backend's error texts, queue lengths, session counts) are open to anyone who can reach this machine; keep it on 127.0.0.1 or an address only your monitoring reaches"
                ))
        }
        if config.web.enabled, let url = URL(string: config.web.publicURL), let host = url.host,
            NetworkScope.isLoopback(host),
            let remote = config.networks.first(where: { !NetworkScope.isLocal($0.irc.server) })
        {
            warnings.append(
                ConfigProblem(
                    key: "web.public_url",
                    message:
                        "\(config.web.publicURL) is this machine's own address, but the bot is on \(remote.irc.server): the !map links students get would open on their own computers; set it to the address students reach (like https://map.example.org)"
                ))
        }
        for network in config.networks {
            warnings += openOwnerWarnings(network)
            if network.irc.contact.isEmpty, NetworkScope.isPublicNetwork(network.irc.server) {
                warnings.append(
                    ConfigProblem(
                        key: "\(network.keyPath).contact",
                        message:
                            "is not set, but \(network.irc.server) is a public network: public networks (Libera.Chat's bot policy among them) ask that a bot say who runs it; set it to an email address or your nick (shown in the realname, !help about and CTCP VERSION)"
                    ))
            }
        }
        warnings += privacyWarnings(for: config)
        return warnings
    }

    /// A class shown to anyone, the configured channels anyone may join while it is not, and a
    /// log that keeps what students type.
    static func privacyWarnings(for config: BotConfiguration) -> [ConfigProblem] {
        var warnings: [ConfigProblem] = []
        if config.log.studentData {
            warnings.append(
                ConfigProblem(
                    key: "log.student_data",
                    message:
                        "is true: every command line in the log keeps what the student typed (street addresses, links, names) and their nick!user@host, and !forget cannot erase log files; turn it on only to trace a fault, and off again"
                ))
        }
        if config.web.visibility == .public {
            warnings.append(
                ConfigProblem(
                    key: "web.visibility",
                    message:
                        "is public: anyone who has the map's address sees every student's name, place and link (the map, /api/locations.json and the /v1 reads), and anyone on IRC can ask !where, !near and !list; use class to keep them to signed-in students"
                ))
        }
        // A channel without a key may still be invite-only: only the server can say (the bot asks it
        // after joining, and `!status` lists the channels it found open).
        if config.privacyPolicy.withholdsPlacesInOpenChannels {
            for network in config.networks {
                for channel in network.irc.channels where channel.key == nil {
                    warnings.append(
                        ConfigProblem(
                            key: "\(network.keyPath).channels",
                            message:
                                "\(channel.name) has no key: unless it is invite-only (+i), anyone may join it, so the bot will withhold students' places and links there (announcements and lookups name students only); key the channel (/mode \(channel.name) +k <key>, and \"\(channel.name) <key>\" here) or make it invite-only, or set privacy.open_channel: full to say everything there"
                        ))
                }
            }
        }
        return warnings
    }

    /// Owner masks of `network` that any host matches.
    static func openOwnerWarnings(_ network: BotConfiguration.Network) -> [ConfigProblem] {
        var warnings: [ConfigProblem] = []
        for owner in network.irc.owners.compactMap(OwnerList.Entry.init(parsing:)) {
            if owner.hasOpenHost {
                warnings.append(
                    ConfigProblem(
                        key: "\(network.keyPath).owners",
                        message:
                            "\(owner) lets in anyone who takes that nick and user name from any host: give the host (or a cloak), or use account:NAME"
                    ))
            }
            if let user = owner.literalUserName {
                warnings.append(
                    ConfigProblem(
                        key: "\(network.keyPath).owners",
                        message:
                            "\(owner) never matches where the server marks a user name no ident server confirmed with ~ (ngircd does, and so does any server when the owner's machine runs no ident): the user is then ~\(user); write *\(user) to match both"
                    ))
            }
        }
        return warnings
    }
}

/// Which network a host name or address is on, as far as its text tells.
enum NetworkScope {
    /// A listen address that binds every interface.
    static func isEveryInterface(_ host: String) -> Bool {
        ["0.0.0.0", "::", "*", "0:0:0:0:0:0:0:0"].contains(unbracketed(host))
    }

    /// This machine only: `localhost` (and names under it), 127.0.0.0/8, ::1.
    static func isLoopback(_ host: String) -> Bool {
        let host = unbracketed(host).lowercased()
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        guard let octets = ipv4(host) else { return false }
        return octets[0] == 127
    }

    /// Not a public network: loopback, private IPv4 and IPv6 ranges, link-local addresses, and names
    /// that only a local network resolves (no dot, like a container's `ircd`, or `.local`, `.lan`,
    /// `.internal`, `.home.arpa`).
    static func isLocal(_ host: String) -> Bool {
        let host = unbracketed(host).lowercased()
        if isLoopback(host) { return true }
        if let octets = ipv4(host) {
            return octets[0] == 10 || (octets[0] == 172 && (16...31).contains(octets[1]))
                || (octets[0] == 192 && octets[1] == 168) || (octets[0] == 169 && octets[1] == 254)
        }
        if host.contains(":") {
            return host.hasPrefix("fc") || host.hasPrefix("fd") || host.hasPrefix("fe80:")
        }
        if !host.contains(".") { return true }
        return [".local", ".lan", ".internal", ".home.arpa", ".test"].contains { host.hasSuffix($0) }
    }

    /// A network anyone may join: neither local (``isLocal(_:)``) nor a name or address kept for
    /// examples and documentation (`example.org`, `.example`, `.invalid`, 192.0.2.0/24, …).
    static func isPublicNetwork(_ host: String) -> Bool {
        let host = unbracketed(host).lowercased()
        if host.isEmpty || isLocal(host) { return false }
        if let octets = ipv4(host) {
            return
                !((octets[0] == 192 && octets[1] == 0 && octets[2] == 2)
                || (octets[0] == 198 && octets[1] == 51 && octets[2] == 100)
                || (octets[0] == 203 && octets[1] == 0 && octets[2] == 113))
        }
        let reserved = ["example.com", "example.net", "example.org"]
        return
            !(reserved.contains { host == $0 || host.hasSuffix("." + $0) }
            || [".example", ".invalid"].contains { host.hasSuffix($0) })
    }

    private static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    private static func ipv4(_ host: String) -> [Int]? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        let octets = parts.compactMap { Int($0) }.filter { (0...255).contains($0) }
        return parts.count == 4 && octets.count == 4 ? octets : nil
    }
}
