/// Comparisons of secrets (password hashes, token digests, XSRF tokens) whose time does not depend
/// on where the two first differ, so that timing tells a guesser nothing about how close it came.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes (their lengths are not secret).
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// Whether `a` and `b` are the same text, byte for byte in UTF-8.
    public static func equal(_ a: String, _ b: String) -> Bool {
        equal(Array(a.utf8), Array(b.utf8))
    }
}
