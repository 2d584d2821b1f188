import Crypto
import Foundation

/// The names the log gives the people who send commands when it keeps no student data
/// (`log.student_data: false`, the default): "p-" and 12 hex digits of an HMAC-SHA-256, under a
/// key of the class, of what identifies the sender (their `user@host`). Lines of one person can be
/// followed through the log, but the log does not say who the person is, and nobody without the
/// key can test a guess of their host against it.
///
/// The key is 32 random bytes kept in the directory's state store (``stateKey``), so every
/// instance of a class and every restart names a person alike; `!forget` does not change it (a
/// pseudonym in an old log line points at nothing the bot still keeps). Without a state store
/// (the Udacity backend) the key lives as long as the process.
public struct LogPseudonyms: Sendable {
    /// Where the key is kept.
    public static let stateKey = "log/pseudonym_key"

    let key: SymmetricKey

    init(key: SymmetricKey) {
        self.key = key
    }

    /// A key of the process's own.
    public static func ephemeral() -> LogPseudonyms {
        LogPseudonyms(key: SymmetricKey(size: .bits256))
    }

    /// The class's key from `store`, made and stored when there is none yet (read back after the
    /// write: of two instances making one at the very same moment, the first may keep its own
    /// until its next start). A store that cannot be read gives a key of the process's own.
    public static func load(from store: (any BotStateStore)?) async -> LogPseudonyms {
        guard let store else { return ephemeral() }
        do {
            if let stored = try await store.state(stateKey), let key = decode(stored) { return LogPseudonyms(key: key) }
            let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
            try await store.setState(stateKey, fresh)
            if let stored = try await store.state(stateKey), let key = decode(stored) { return LogPseudonyms(key: key) }
        } catch {}
        return ephemeral()
    }

    private static func decode(_ text: String) -> SymmetricKey? {
        guard let bytes = Data(base64Encoded: text), bytes.count == 32 else { return nil }
        return SymmetricKey(data: bytes)
    }

    /// The pseudonym of `identity` (a sender's `user@host`, compared without case).
    public func pseudonym(of identity: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data(identity.lowercased().utf8), using: key)
        return "p-" + code.prefix(6).map { String(format: "%02x", $0) }.joined()
    }
}
