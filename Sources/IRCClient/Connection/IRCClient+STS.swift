import Foundation

/// Strict Transport Security in the shell: which endpoint a connection uses, and the policies kept.
extension IRCClient {
    /// How a connection is made.
    struct Endpoint: Sendable, Equatable {
        var port: Int
        var secure: Bool
    }

    /// TLS as configured; on a `tls: false` configuration, TLS to the port of an STS upgrade seen in
    /// this run or of an unexpired stored policy for the host, else plaintext. An expired policy is removed.
    func connectionEndpoint() async -> Endpoint {
        if configuration.tls.enabled { return Endpoint(port: configuration.port, secure: true) }
        if let stsUpgradePort { return Endpoint(port: stsUpgradePort, secure: true) }
        await stsWrites?.value
        let host = Self.stsKey(configuration.host)
        let policy: STSPolicy?
        if let stsStore { policy = await stsStore.stsPolicy(forHost: host) } else { policy = stsPolicy }
        guard let policy else { return Endpoint(port: configuration.port, secure: false) }
        if policy.expires > wallClock() {
            logger.info("STS policy of \(configuration.host): connecting over TLS to port \(policy.port)")
            return Endpoint(port: policy.port, secure: true)
        }
        logger.info("The STS policy of \(configuration.host) expired; connecting as configured")
        stsPolicy = nil
        await stsStore?.setSTSPolicy(nil, forHost: host)
        return Endpoint(port: configuration.port, secure: false)
    }

    /// Keeps (or, for 0 seconds, removes) the policy seen on the current TLS connection.
    func rememberSTSPolicy(seconds: Int) {
        let policy = seconds > 0 ? STSPolicy(port: endpoint.port, expires: wallClock() + TimeInterval(seconds)) : nil
        stsPolicy = policy
        if policy == nil { stsUpgradePort = nil }
        guard let stsStore else { return }
        let host = Self.stsKey(configuration.host)
        let previous = stsWrites
        stsWrites = Task {
            await previous?.value
            await stsStore.setSTSPolicy(policy, forHost: host)
        }
    }

    /// The key policies are kept under: the host name, lower-cased.
    static func stsKey(_ host: String) -> String {
        host.lowercased()
    }
}
