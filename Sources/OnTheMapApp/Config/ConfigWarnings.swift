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
        }
        warnings += privacyWarnings(for: config)
        return warnings
    }

    /// A class shown to anyone, and the former key that `web.visibility` replaced.
    static func privacyWarnings(for config: BotConfiguration) -> [ConfigProblem] {
        var warnings: [ConfigProblem] = []
        if config.web.visibility == .public {
            warnings.append(
                ConfigProblem(
                    key: "web.visibility",
                    message:
                        "is public: anyone who has the map's address sees every student's name, place and link (the map, /api/locations.json and the /v1 reads), and anyone on IRC can ask !where, !near and !list; use class to keep them to signed-in students"
                ))
        }
        if let former = config.service.api.readRequiresLogin {
            warnings.append(
                ConfigProblem(
                    key: "service.api.read_requires_login",
                    message: former
                        ? "is a former key: web.visibility: class (the default) keeps the pins to signed-in students; remove it"
                        : "is a former key and no longer opens the class: set web.visibility: public for that, or remove it"
                ))
        }
        return warnings
    }

    /// Owner masks of `network` that any host matches.
    static func openOwnerWarnings(_ network: BotConfiguration.Network) -> [ConfigProblem] {
        var warnings: [ConfigProblem] = []
        for owner in network.irc.owners.compactMap(OwnerList.Entry.init(parsing:)) where owner.hasOpenHost {
            warnings.append(
                ConfigProblem(
                    key: "\(network.keyPath).owners",
                    message:
                        "\(owner) lets in anyone who takes that nick and user name from any host: give the host (or a cloak), or use account:NAME"
                ))
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

    private static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    private static func ipv4(_ host: String) -> [Int]? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        let octets = parts.compactMap { Int($0) }.filter { (0...255).contains($0) }
        return parts.count == 4 && octets.count == 4 ? octets : nil
    }
}
