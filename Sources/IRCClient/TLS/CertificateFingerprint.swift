import Crypto

/// A SHA-256 certificate fingerprint, normalised to 64 lowercase hex digits.
public struct CertificateFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// 32 bytes.
    public let bytes: [UInt8]

    /// Parses hex with optional `:`/space/`-` separators (e.g. OpenSSL's `AB:CD:...`); `nil` unless it is
    /// exactly 32 bytes.
    public init?(hex: String) {
        let digits = hex.filter { $0 != ":" && $0 != " " && $0 != "-" }
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.bytes = bytes
    }

    /// The fingerprint of a DER-encoded certificate.
    public init(derCertificate: [UInt8]) {
        self.bytes = Array(SHA256.hash(data: derCertificate))
    }

    /// Lowercase hex, no separators.
    public var hex: String {
        bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    /// Uppercase hex pairs separated by colons (OpenSSL style).
    public var description: String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: ":")
    }
}
