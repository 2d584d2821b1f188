import IRCProtocol

/// Builds SASL `AUTHENTICATE` lines.
///
/// The payload is base64-encoded and cut into 400-byte chunks, one `AUTHENTICATE` line each; when the last
/// chunk is exactly 400 bytes long (or the payload is empty) a final `AUTHENTICATE +` follows, so the server
/// knows the payload is complete.
public enum SASLPayload {
    /// Maximum length of one base64 chunk.
    public static let chunkSize = 400

    /// The PLAIN payload: `authzid NUL authcid NUL password` (authzid = authcid = `username`).
    public static func plain(username: String, password: String) -> [UInt8] {
        Array(username.utf8) + [0] + Array(username.utf8) + [0] + Array(password.utf8)
    }

    /// The EXTERNAL payload: empty (the server takes the identity from the client certificate).
    public static func external() -> [UInt8] { [] }

    /// The `AUTHENTICATE` lines that carry `payload`.
    public static func authenticateMessages(for payload: [UInt8]) -> [IRCMessage] {
        let encoded = Array(base64(payload).utf8)
        var messages: [IRCMessage] = []
        var start = 0
        while start < encoded.count {
            let end = min(start + chunkSize, encoded.count)
            let chunk = String(decoding: encoded[start..<end], as: UTF8.self)
            messages.append(IRCMessage(command: "AUTHENTICATE", parameters: [chunk]))
            start = end
        }
        if encoded.isEmpty || encoded.count % chunkSize == 0 {
            messages.append(IRCMessage(command: "AUTHENTICATE", parameters: ["+"]))
        }
        return messages
    }

    /// Standard base64 with padding.
    public static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output += [
                alphabet[Int(value >> 18 & 63)], alphabet[Int(value >> 12 & 63)],
                alphabet[Int(value >> 6 & 63)], alphabet[Int(value & 63)],
            ]
            index += 3
        }
        let remaining = bytes.count - index
        if remaining == 1 {
            let value = UInt32(bytes[index]) << 16
            output += [alphabet[Int(value >> 18 & 63)], alphabet[Int(value >> 12 & 63)], 61, 61]
        } else if remaining == 2 {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            output += [
                alphabet[Int(value >> 18 & 63)], alphabet[Int(value >> 12 & 63)],
                alphabet[Int(value >> 6 & 63)], 61,
            ]
        }
        return String(decoding: output, as: UTF8.self)
    }
}
