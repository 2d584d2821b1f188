import Foundation
import Testing

@testable import IRCClient

/// The STS rules the client keeps through a run, without I/O: how a connection was made and what the
/// server's policy said in, the next endpoint and the writes to the policy store out.
@Suite("STS state")
struct STSStateTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let tls6697 = STSEndpointChoice.Decision.asConfigured(.init(port: 6697, secure: true))
    static let plaintext6667 = STSEndpointChoice.Decision.asConfigured(.init(port: 6667, secure: false))

    /// A plaintext server's policy sends the client to its TLS port at once (no backoff, once), and
    /// every later connection of the run goes there without reading the store.
    @Test func anUpgradeReconnectsAtOnceAndStaysOnTLS() {
        var state = STSState()
        #expect(state.connecting(as: Self.plaintext6667) == nil)
        #expect(state.follow(.upgradeToTLS(port: 6697), at: Self.now) == nil)
        let first = state.takeReconnectAtOnce()
        let second = state.takeReconnectAtOnce()
        #expect(first && !second)
        let choice = state.endpointChoice(configuredPort: 6667, configuredTLS: false)
        #expect(!choice.needsStoredPolicy)
        #expect(choice.decide(stored: nil, now: Self.now) == .upgrade(port: 6697, fromStoredPolicy: false))
        // The upgrade's plaintext connection closing keeps nothing: no policy was seen over TLS.
        #expect(state.connectionClosed(at: Self.now) == nil)
    }

    /// A policy seen over TLS is kept for its duration from now, for the port of that connection,
    /// and again from the moment each TLS connection closes.
    @Test func aTLSPolicyIsKeptAndRescheduledAtEveryClose() {
        var state = STSState()
        _ = state.connecting(as: Self.tls6697)
        let kept = STSPolicy(port: 6697, expires: Self.now + 3600)
        #expect(state.follow(.keepPolicy(seconds: 3600), at: Self.now) == .init(policy: kept))
        #expect(state.policy == kept)
        #expect(state.lastAdvertisedDuration == 3600)
        let later = Self.now + 100
        #expect(state.connectionClosed(at: later) == .init(policy: STSPolicy(port: 6697, expires: later + 3600)))
        // The next TLS connection says nothing of it: its close still reschedules the policy.
        _ = state.connecting(as: Self.tls6697)
        #expect(state.connectionClosed(at: later + 50)?.policy?.expires == later + 50 + 3600)
        let atOnce = state.takeReconnectAtOnce()
        #expect(!atOnce)
    }

    /// A duration of 0 removes the policy, and with it the upgrade of this run; nothing is
    /// rescheduled at the close after.
    @Test func durationZeroRemovesThePolicyAndTheUpgrade() {
        var state = STSState()
        _ = state.connecting(as: Self.plaintext6667)
        _ = state.follow(.upgradeToTLS(port: 6697), at: Self.now)
        _ = state.connecting(as: .upgrade(port: 6697, fromStoredPolicy: false))
        _ = state.follow(.keepPolicy(seconds: 60), at: Self.now)
        #expect(state.upgradePort == 6697)
        #expect(state.follow(.keepPolicy(seconds: 0), at: Self.now) == .init(policy: nil))
        #expect(state.policy == nil)
        #expect(state.upgradePort == nil)
        #expect(state.connectionClosed(at: Self.now + 1) == nil)
        #expect(state.endpointChoice(configuredPort: 6667, configuredTLS: false).needsStoredPolicy)
    }

    /// A plaintext connection's close keeps nothing, even after a policy was seen over TLS earlier
    /// in the run (only a TLS connection to the host renews it).
    @Test func aPlaintextCloseReschedulesNothing() {
        var state = STSState()
        _ = state.connecting(as: Self.tls6697)
        _ = state.follow(.keepPolicy(seconds: 60), at: Self.now)
        _ = state.connecting(as: Self.plaintext6667)
        #expect(state.connectionClosed(at: Self.now + 10) == nil)
    }

    /// An expired kept policy is forgotten when the next connection is chosen: the write removes
    /// it from the store, and the connection is made as configured.
    @Test func anExpiredPolicyIsRemovedWhenConnecting() {
        var state = STSState()
        _ = state.connecting(as: Self.tls6697)
        _ = state.follow(.keepPolicy(seconds: 60), at: Self.now)
        let expired = STSEndpointChoice.Decision.expired(.init(port: 6667, secure: false))
        #expect(state.connecting(as: expired) == .init(policy: nil))
        #expect(state.policy == nil)
        #expect(state.endpoint == .init(port: 6667, secure: false))
        #expect(state.connecting(as: .upgrade(port: 6697, fromStoredPolicy: true)) == nil)
        #expect(state.endpoint == .init(port: 6697, secure: true))
    }
}
