import Foundation

/// Strict Transport Security as the shell (``IRCClient``) keeps it through one run: how the current
/// connection was made, the TLS port a plaintext server's policy sent the client to, the policy
/// kept in memory and the duration last advertised over TLS. A pure value: its methods are the
/// rules, and each says what to write to the policy store (a ``Write``), which the shell carries out.
struct STSState: Sendable, Equatable {
    typealias Endpoint = STSEndpointChoice.Endpoint

    /// A change for the policy store: keep ``policy`` for the host, or remove the host's (nil).
    struct Write: Sendable, Equatable {
        var policy: STSPolicy?
    }

    /// How the current (or last) connection was made.
    private(set) var endpoint = Endpoint(port: 0, secure: true)
    /// The TLS port a plaintext server's policy sent the client to in this run (it stays on TLS
    /// from then on, until a TLS connection removes the policy).
    private(set) var upgradePort: Int?
    /// The policy kept in memory: the one read when there is no store.
    private(set) var policy: STSPolicy?
    /// The duration of the policy a TLS connection to the host last advertised in this run (nil:
    /// none, or the server removed it), kept again from the moment each TLS connection closes.
    private(set) var lastAdvertisedDuration: Int?
    /// Set when the connection ended for an STS upgrade: the next one starts at once, without backoff.
    private(set) var reconnectsAtOnce = false

    /// The choice of the next endpoint for a configuration with `port` and `tls` (see
    /// ``STSEndpointChoice``).
    func endpointChoice(configuredPort port: Int, configuredTLS tls: Bool) -> STSEndpointChoice {
        STSEndpointChoice(configuredPort: port, configuredTLS: tls, upgradePort: upgradePort)
    }

    /// The next connection is made as `decision` says: an expired policy is forgotten (the write
    /// removes it from the store too).
    mutating func connecting(as decision: STSEndpointChoice.Decision) -> Write? {
        endpoint = decision.endpoint
        guard case .expired = decision else { return nil }
        policy = nil
        return Write(policy: nil)
    }

    /// The server's policy on the current connection, seen at `now`.
    mutating func follow(_ directive: STSDirective, at now: Date) -> Write? {
        switch directive {
        case .upgradeToTLS(let port):
            upgradePort = port
            reconnectsAtOnce = true
            return nil
        case .keepPolicy(let seconds):
            lastAdvertisedDuration = seconds > 0 ? seconds : nil
            return keep(seconds: seconds, at: now)
        }
    }

    /// The current connection closed at `now`: over TLS, the policy last advertised in this run
    /// expires its duration after this moment, as the STS specification's "rescheduling expiry on
    /// disconnect" asks, whether or not this connection advertised it again (so a restart soon after
    /// still connects over TLS).
    mutating func connectionClosed(at now: Date) -> Write? {
        guard endpoint.secure, let seconds = lastAdvertisedDuration else { return nil }
        return keep(seconds: seconds, at: now)
    }

    /// Whether the next connection starts at once (an STS upgrade); true once per upgrade.
    mutating func takeReconnectAtOnce() -> Bool {
        defer { reconnectsAtOnce = false }
        return reconnectsAtOnce
    }

    /// Keeps a policy of `seconds` from `now` for the current connection's port; 0 removes it, and
    /// with it the upgrade of this run.
    private mutating func keep(seconds: Int, at now: Date) -> Write {
        let kept = STSPolicy.kept(seconds: seconds, port: endpoint.port, at: now)
        policy = kept
        if kept == nil { upgradePort = nil }
        return Write(policy: kept)
    }
}
