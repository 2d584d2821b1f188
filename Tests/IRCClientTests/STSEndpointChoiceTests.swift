import Foundation
import Testing

@testable import IRCClient

/// The STS choice of endpoint and the policy kept, without I/O: a policy and a time in, the decision out.
@Suite("STS endpoint choice")
struct STSEndpointChoiceTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let plaintext = STSEndpointChoice(configuredPort: 6667, configuredTLS: false)

    @Test func aTLSConfigurationConnectsAsConfiguredWhateverIsKept() {
        let tls = STSEndpointChoice(configuredPort: 6697, configuredTLS: true)
        #expect(!tls.needsStoredPolicy)
        let kept = STSPolicy(port: 7000, expires: Self.now + 60)
        #expect(tls.decide(stored: kept, now: Self.now) == .asConfigured(.init(port: 6697, secure: true)))
    }

    @Test func anUpgradeSeenInThisRunWinsWithoutLookingAtTheStore() {
        var choice = Self.plaintext
        choice.upgradePort = 6697
        #expect(!choice.needsStoredPolicy)
        #expect(choice.decide(stored: nil, now: Self.now) == .upgrade(port: 6697, fromStoredPolicy: false))
        #expect(choice.decide(stored: nil, now: Self.now).endpoint == .init(port: 6697, secure: true))
    }

    @Test func aKeptPolicyUpgradesUntilItExpires() {
        let kept = STSPolicy(port: 6697, expires: Self.now + 60)
        #expect(Self.plaintext.needsStoredPolicy)
        #expect(Self.plaintext.decide(stored: kept, now: Self.now) == .upgrade(port: 6697, fromStoredPolicy: true))
        #expect(
            Self.plaintext.decide(stored: kept, now: Self.now + 59.9) == .upgrade(port: 6697, fromStoredPolicy: true))
        // At its expiry time the policy is over.
        #expect(Self.plaintext.decide(stored: kept, now: Self.now + 60) == .expired(.init(port: 6667, secure: false)))
    }

    @Test func withoutAPolicyAPlaintextConfigurationStaysPlaintext() {
        #expect(Self.plaintext.decide(stored: nil, now: Self.now) == .asConfigured(.init(port: 6667, secure: false)))
    }

    @Test func aPolicyIsKeptForItsDurationAndZeroRemovesIt() {
        #expect(
            STSPolicy.kept(seconds: 3600, port: 6697, at: Self.now) == STSPolicy(port: 6697, expires: Self.now + 3600))
        #expect(STSPolicy.kept(seconds: 0, port: 6697, at: Self.now) == nil)
    }
}
