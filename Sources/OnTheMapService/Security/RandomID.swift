import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Unguessable identifiers (session ids, object ids, account keys) from the system's
/// cryptographic random source, as URL-safe base64 without padding (`A–Z a–z 0–9 - _`).
public enum RandomID {
    /// A new id of `byteCount` random bytes (at least 16, i.e. 128 bits).
    /// 16 bytes give 22 characters, 32 bytes give 43.
    public static func make(byteCount: Int = 16) -> String {
        base64URL(randomBytes(max(16, byteCount)))
    }

    /// `count` new ids of `byteCount` random bytes each, from one read of the OS's CSPRNG for all of
    /// them (a file of new pins costs one system call, not two a pin).
    public static func make(count: Int, byteCount: Int = 16) -> [String] {
        let size = max(16, byteCount)
        let bytes = randomBytes(count * size)
        return (0..<count).map { index in base64URL(Array(bytes[index * size..<(index + 1) * size])) }
    }

    /// `count` bytes from the OS's CSPRNG: `SystemRandomNumberGenerator` for a few, the kernel's
    /// `/dev/urandom` in as few reads as it allows for many (that generator where the device cannot
    /// be read).
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        #if canImport(Glibc)
            var filled = 0
            let device = count < 4_096 ? -1 : open("/dev/urandom", O_RDONLY | O_CLOEXEC)
            if device >= 0 {
                bytes.withUnsafeMutableBytes { buffer in
                    while filled < count {
                        let got = read(device, buffer.baseAddress! + filled, count - filled)
                        if got > 0 {
                            filled += got
                        } else if got < 0 && errno == EINTR {
                            continue
                        } else {
                            break
                        }
                    }
                }
                close(device)
            }
            if filled == count { return bytes }
        #endif
        var generator = SystemRandomNumberGenerator()
        bytes.removeAll(keepingCapacity: true)
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
