import Foundation

/// A Strict Transport Security policy (IRCv3 `sts`) a server gave over TLS: until ``expires``, a
/// connection to its host is made over TLS to ``port``, even when the configuration says plaintext.
public struct STSPolicy: Sendable, Hashable, Codable {
    /// The TLS port the policy was seen on.
    public var port: Int
    /// When the policy lapses (it is renewed every time a TLS connection shows it again).
    public var expires: Date

    public init(port: Int, expires: Date) {
        self.port = port
        self.expires = expires
    }
}

/// Where STS policies are kept between runs, by host name (lower-cased by the client). The client
/// works without one (policies then last as long as the process).
public protocol STSPolicyStore: Sendable {
    /// The policy stored for `host`, expired or not.
    func stsPolicy(forHost host: String) async -> STSPolicy?
    /// Stores `policy` for `host`; nil removes it.
    func setSTSPolicy(_ policy: STSPolicy?, forHost host: String) async
}

/// What an `sts` capability value asks of the client, following the IRCv3 STS specification: over
/// plaintext only `port` matters (reconnect over TLS there), over TLS only `duration` (keep the
/// policy that long; 0 removes it). Anything else is ignored, with the reason for the log.
enum STSAdvertisement: Sendable, Equatable {
    /// The longest a policy is kept, whatever a server asks (a year): a hostile or mistaken server
    /// cannot pin the bot to TLS for millennia (`onthemap-bot sts forget` clears one before).
    static let maximumSeconds = 365 * 24 * 3600

    /// Plaintext: disconnect and connect again over TLS to `port`.
    case upgrade(port: Int)
    /// TLS: keep the policy for `seconds` (0: remove it), at most ``maximumSeconds``.
    case keep(seconds: Int)
    /// Nothing to do, for this reason.
    case ignored(String)

    /// Reads an `sts` value (`port=6697,duration=86400,preload`) seen on a connection that is `secure` or not.
    static func parse(_ value: String, secure: Bool) -> STSAdvertisement {
        var keys: [String: String] = [:]
        for token in value.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = token.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0])
            guard !key.isEmpty, keys[key] == nil else { return .ignored("malformed sts value \"\(value)\"") }
            keys[key] = parts.count == 2 ? String(parts[1]) : ""
        }
        if secure {
            guard let text = keys["duration"] else { return .ignored("an sts policy over TLS without a duration") }
            guard let seconds = number(text, atMost: 999_999_999_999) else {
                return .ignored("an sts policy with a malformed duration \"\(text)\"")
            }
            return .keep(seconds: min(seconds, maximumSeconds))
        }
        guard let text = keys["port"] else { return .ignored("an sts policy over plaintext without a port") }
        guard let port = number(text, atMost: 65535), port > 0 else {
            return .ignored("an sts policy with a malformed port \"\(text)\"")
        }
        return .upgrade(port: port)
    }

    private static func number(_ text: String, atMost limit: Int) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 12, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let value = Int(text), value <= limit
        else { return nil }
        return value
    }
}
