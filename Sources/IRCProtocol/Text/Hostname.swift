/// Validation of server and client host names as IRC uses them.
public enum Hostname {
    /// Whether `host` is a valid IRC host name: at least two dot-separated labels (a single
    /// label followed by a final `.` also counts), each 1–63 ASCII letters, digits or hyphens,
    /// not starting or ending with a hyphen; at most 253 bytes without the final dot.
    /// Internationalized names must be given in their punycode (`xn--`) form.
    public static func isValid(_ host: some StringProtocol) -> Bool {
        var bytes = Array(host.utf8)
        guard bytes.count >= 2, bytes.last == 0x2E || bytes.contains(0x2E) else { return false }
        if bytes.last == 0x2E { bytes.removeLast() }
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        for label in bytes.split(separator: 0x2E, omittingEmptySubsequences: false) {
            guard !label.isEmpty, label.count <= 63 else { return false }
            guard label.first != 0x2D, label.last != 0x2D else { return false }
            for byte in label {
                let isLetter = (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A
                let isDigit = byte >= 0x30 && byte <= 0x39
                guard isLetter || isDigit || byte == 0x2D else { return false }
            }
        }
        return true
    }
}
