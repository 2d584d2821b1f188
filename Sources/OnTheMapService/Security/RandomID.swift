import Foundation

/// Unguessable identifiers (session ids, object ids, account keys) from the system's
/// cryptographic random source, as URL-safe base64 without padding (`A–Z a–z 0–9 - _`).
public enum RandomID {
    /// A new id of `byteCount` random bytes (at least 16, i.e. 128 bits).
    /// 16 bytes give 22 characters, 32 bytes give 43.
    public static func make(byteCount: Int = 16) -> String {
        base64URL(randomBytes(max(16, byteCount)))
    }

    /// `count` bytes from `SystemRandomNumberGenerator` (the OS's CSPRNG).
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
    }

    /// URL-safe base64 (RFC 4648 §5) without `=` padding.
    public static func base64URL(_ bytes: [UInt8]) -> String {
        var encoded = Array(Data(bytes).base64EncodedData())
        while encoded.last == UInt8(ascii: "=") { encoded.removeLast() }
        for index in encoded.indices {
            switch encoded[index] {
            case UInt8(ascii: "+"): encoded[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): encoded[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// A random password a person can type: `length` characters from an alphabet without look-alikes
    /// (no 0/O, 1/l/I), about 5.7 bits each (16 characters ≈ 91 bits).
    public static func password(length: Int = 16) -> String {
        let alphabet = Array("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<max(8, length)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}
