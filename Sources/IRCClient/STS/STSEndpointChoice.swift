import Foundation

/// How the next connection is made, by Strict Transport Security: a pure value that, given the
/// configuration, the TLS port an STS upgrade sent the client to in this run and the policy kept
/// for the host, says whether to connect as configured, upgrade to TLS, or drop an expired policy.
///
/// The shell (``IRCClient``) reads the policy store only when ``needsStoredPolicy`` says the
/// answer depends on it, then carries out ``decide(stored:now:)``.
struct STSEndpointChoice: Sendable, Equatable {
    /// Where and how a connection is made.
    struct Endpoint: Sendable, Equatable {
        var port: Int
        var secure: Bool
    }

    /// What to do.
    enum Decision: Sendable, Equatable {
        /// Connect as configured: TLS when configured, else plaintext with no policy in force.
        case asConfigured(Endpoint)
        /// Connect over TLS to `port`: an upgrade seen in this run (`fromStoredPolicy` false) or an
        /// unexpired policy kept from an earlier connection (true).
        case upgrade(port: Int, fromStoredPolicy: Bool)
        /// The kept policy has expired: remove it, and connect as configured (plaintext).
        case expired(Endpoint)

        /// The endpoint the decision connects to.
        var endpoint: Endpoint {
            switch self {
            case .asConfigured(let endpoint), .expired(let endpoint): endpoint
            case .upgrade(let port, _): Endpoint(port: port, secure: true)
            }
        }
    }

    var configuredPort: Int
    var configuredTLS: Bool
    /// The TLS port a plaintext server's policy sent the client to in this run (it stays on TLS).
    var upgradePort: Int?

    /// Whether the decision depends on the kept policy: only a plaintext configuration without an
    /// upgrade seen in this run looks at it.
    var needsStoredPolicy: Bool { !configuredTLS && upgradePort == nil }

    /// The decision at `now` with `stored`, the policy kept for the host (expired or not).
    func decide(stored: STSPolicy?, now: Date) -> Decision {
        if configuredTLS { return .asConfigured(Endpoint(port: configuredPort, secure: true)) }
        if let upgradePort { return .upgrade(port: upgradePort, fromStoredPolicy: false) }
        let plaintext = Endpoint(port: configuredPort, secure: false)
        guard let stored else { return .asConfigured(plaintext) }
        return stored.expires > now ? .upgrade(port: stored.port, fromStoredPolicy: true) : .expired(plaintext)
    }
}

extension STSPolicy {
    /// The policy a TLS connection to `port` showed at `now`, asking to be kept for `seconds`; nil
    /// for 0 seconds (the server removes its policy).
    static func kept(seconds: Int, port: Int, at now: Date) -> STSPolicy? {
        seconds > 0 ? STSPolicy(port: port, expires: now + TimeInterval(seconds)) : nil
    }
}
