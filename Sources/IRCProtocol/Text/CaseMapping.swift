/// How a server compares nicks and channel names (the ISUPPORT `CASEMAPPING` token).
///
/// Only ASCII bytes are folded; other UTF-8 bytes compare exactly.
public enum CaseMapping: String, Sendable, Hashable, CaseIterable {
    /// `A`–`Z` ↔ `a`–`z` only.
    case ascii = "ascii"
    /// ASCII plus `[]\~` ↔ `{}|^` (the RFC 1459 default).
    case rfc1459 = "rfc1459"
    /// ASCII plus `[]\` ↔ `{}|` (no `~`/`^`).
    case strictRFC1459 = "strict-rfc1459"

    /// The mapping for a `CASEMAPPING` value, or `nil` for an unknown one. Accepts both
    /// `strict-rfc1459` and `rfc1459-strict`.
    public init?(isupportValue value: some StringProtocol) {
        switch value.lowercased() {
        case "ascii": self = .ascii
        case "rfc1459": self = .rfc1459
        case "strict-rfc1459", "rfc1459-strict": self = .strictRFC1459
        default: return nil
        }
    }

    /// Folds one byte to its lower-case form under this mapping.
    @inlinable
    public func lowercased(byte: UInt8) -> UInt8 {
        switch byte {
        case 0x41...0x5A: return byte | 0x20
        case 0x5B, 0x5C, 0x5D:  // [ \ ]  →  { | }
            return self == .ascii ? byte : byte + 0x20
        case 0x7E:  // ~ → ^
            return self == .rfc1459 ? 0x5E : byte
        default: return byte
        }
    }

    /// The lower-case (folded) form of `string` under this mapping.
    ///
    /// Works on the contiguous UTF-8 bytes: it runs for every nick and channel lookup of every
    /// line, and a generic version over `StringProtocol` (not specialised across modules) cost
    /// thousands of instructions per call.
    public func lowercased(_ string: String) -> String {
        var string = string
        let folded: String? = string.withUTF8 { bytes in
            guard let first = bytes.firstIndex(where: { lowercased(byte: $0) != $0 }) else { return nil }
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for index in 0..<bytes.count {
                    buffer[index] = index < first ? bytes[index] : lowercased(byte: bytes[index])
                }
                return bytes.count
            }
        }
        return folded ?? string
    }

    /// The lower-case (folded) form of `string` under this mapping.
    public func lowercased(_ string: some StringProtocol) -> String {
        lowercased(String(string))
    }

    /// Whether two names are equal under this mapping.
    public func equals(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs
        var right = rhs
        return left.withUTF8 { leftBytes in
            right.withUTF8 { rightBytes in
                guard leftBytes.count == rightBytes.count else { return false }
                for index in 0..<leftBytes.count
                where lowercased(byte: leftBytes[index]) != lowercased(byte: rightBytes[index]) {
                    return false
                }
                return true
            }
        }
    }

    /// Whether two names are equal under this mapping.
    public func equals(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        equals(String(lhs), String(rhs))
    }
}
