import Crypto
import Foundation

/// Session ids: made random, stored only as a SHA-256 digest so that a copy of the database
/// does not hand out live sessions.
public enum SessionToken {
    /// A new session id: 32 random bytes, URL-safe base64 (43 characters).
    public static func make() -> String { RandomID.make(byteCount: 32) }

    /// The lowercase hex SHA-256 digest of a session id, as stored.
    public static func digest(_ sessionId: String) -> String {
        SHA256.hash(data: Array(sessionId.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
