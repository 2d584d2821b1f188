import Foundation

/// Strict Transport Security in the shell: reading and writing the kept policies. The rules are
/// ``STSState``'s, the choice of endpoint ``STSEndpointChoice``'s.
extension IRCClient {
    typealias Endpoint = STSEndpointChoice.Endpoint

    /// TLS as configured; on a `tls: false` configuration, TLS to the port of an STS upgrade seen in
    /// this run or of an unexpired stored policy for the host, else plaintext. An expired policy is removed.
    func connectionEndpoint() async -> Endpoint {
        let choice = sts.endpointChoice(configuredPort: configuration.port, configuredTLS: configuration.tls.enabled)
        var stored: STSPolicy?
        if choice.needsStoredPolicy {
            await stsWrites?.value
            if let stsStore {
                stored = await stsStore.stsPolicy(forHost: Self.stsKey(configuration.host))
            } else {
                stored = sts.policy
            }
        }
        let decision = choice.decide(stored: stored, now: wallClock())
        switch decision {
        case .asConfigured, .upgrade(_, fromStoredPolicy: false):
            break
        case .upgrade(let port, fromStoredPolicy: true):
            logger.info("STS policy of \(configuration.host): connecting over TLS to port \(port)")
        case .expired:
            logger.info("The STS policy of \(configuration.host) expired; connecting as configured")
        }
        if let write = sts.connecting(as: decision) {
            // Removed before the connection is made, as the store is read again only after it.
            await stsStore?.setSTSPolicy(write.policy, forHost: Self.stsKey(configuration.host))
        }
        return decision.endpoint
    }

    /// The server's STS policy on the current connection.
    func followSTS(_ directive: STSDirective) {
        store(sts.follow(directive, at: wallClock()))
    }

    /// A connection closed (the server's ERROR, a lost link, a stop): see
    /// ``STSState/connectionClosed(at:)``.
    func rescheduleSTSPolicyAtClose() {
        store(sts.connectionClosed(at: wallClock()))
    }

    /// Writes `write` to the store, after the writes before it.
    private func store(_ write: STSState.Write?) {
        guard let write, let stsStore else { return }
        let host = Self.stsKey(configuration.host)
        let previous = stsWrites
        stsWrites = Task {
            await previous?.value
            await stsStore.setSTSPolicy(write.policy, forHost: host)
        }
    }

    /// The key policies are kept under: the host name, lower-cased.
    static func stsKey(_ host: String) -> String {
        host.lowercased()
    }
}
