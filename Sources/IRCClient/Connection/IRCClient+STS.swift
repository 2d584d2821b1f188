import Foundation

/// Strict Transport Security in the shell: reading and writing the kept policies; the choice of
/// endpoint is ``STSEndpointChoice``.
extension IRCClient {
    typealias Endpoint = STSEndpointChoice.Endpoint

    /// TLS as configured; on a `tls: false` configuration, TLS to the port of an STS upgrade seen in
    /// this run or of an unexpired stored policy for the host, else plaintext. An expired policy is removed.
    func connectionEndpoint() async -> Endpoint {
        let choice = STSEndpointChoice(
            configuredPort: configuration.port, configuredTLS: configuration.tls.enabled, upgradePort: stsUpgradePort)
        let host = Self.stsKey(configuration.host)
        var stored: STSPolicy?
        if choice.needsStoredPolicy {
            await stsWrites?.value
            if let stsStore { stored = await stsStore.stsPolicy(forHost: host) } else { stored = stsPolicy }
        }
        let decision = choice.decide(stored: stored, now: wallClock())
        switch decision {
        case .asConfigured, .upgrade(_, fromStoredPolicy: false):
            break
        case .upgrade(let port, fromStoredPolicy: true):
            logger.info("STS policy of \(configuration.host): connecting over TLS to port \(port)")
        case .expired:
            logger.info("The STS policy of \(configuration.host) expired; connecting as configured")
            stsPolicy = nil
            await stsStore?.setSTSPolicy(nil, forHost: host)
        }
        return decision.endpoint
    }

    /// Keeps (or, for 0 seconds, removes) the policy seen on the current TLS connection, and
    /// remembers its duration for when this or a later TLS connection to the host closes.
    func rememberSTSPolicy(seconds: Int) {
        stsLastAdvertisedDuration = seconds > 0 ? seconds : nil
        keepSTSPolicy(seconds: seconds)
    }

    /// A TLS connection to the host closed (the server's ERROR, a lost link, a stop): the policy
    /// expires the duration the server last advertised after this moment, as the STS
    /// specification's "rescheduling expiry on disconnect" asks, whether or not this connection
    /// advertised it again, so a restart soon after still connects over TLS.
    func rescheduleSTSPolicyAtClose() {
        guard endpoint.secure, let seconds = stsLastAdvertisedDuration else { return }
        keepSTSPolicy(seconds: seconds)
    }

    /// Keeps a policy of `seconds` from now for the current connection's port (0 removes it).
    private func keepSTSPolicy(seconds: Int) {
        let policy = STSPolicy.kept(seconds: seconds, port: endpoint.port, at: wallClock())
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
