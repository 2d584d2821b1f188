import IRCProtocol

/// Builds SASL `AUTHENTICATE` lines, and reads the server's.
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

    /// Strict standard base64 (padding required, no whitespace); nil when `text` is not base64.
    public static func decodeBase64(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(characters.count / 4 * 3)
        var index = 0
        while index < characters.count {
            let isLast = index + 4 == characters.count
            var values: [UInt32] = []
            var padding = 0
            for character in characters[index..<index + 4] {
                if character == 61 {
                    padding += 1
                    continue
                }
                guard padding == 0, let value = sextet(character) else { return nil }
                values.append(value)
            }
            guard padding == 0 || (isLast && padding <= 2) else { return nil }
            let word = values.reduce(UInt32(0)) { $0 << 6 | $1 } << (6 * UInt32(padding))
            let bytes = [UInt8(word >> 16 & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word & 0xFF)]
            // Bits beyond the last byte must be zero (one encoding per byte string).
            if padding > 0, bytes[(3 - padding)...].contains(where: { $0 != 0 }) { return nil }
            output += bytes.prefix(3 - padding)
            index += 4
        }
        return output
    }

    private static func sextet(_ character: UInt8) -> UInt32? {
        switch character {
        case 65...90: UInt32(character - 65)
        case 97...122: UInt32(character - 97 + 26)
        case 48...57: UInt32(character - 48 + 52)
        case 43: 62
        case 47: 63
        default: nil
        }
    }
}

/// Joins the server's `AUTHENTICATE` lines into one payload: a 400-byte chunk means more follows,
/// a shorter one (or `+` after a 400-byte chunk, or `+` alone for an empty payload) ends it.
struct SASLChunkAssembler: Sendable {
    enum Outcome: Sendable, Equatable {
        /// A full 400-byte chunk: the payload goes on in the next line.
        case needMore
        /// The decoded payload.
        case complete([UInt8])
        /// Not base64, a chunk over 400 bytes, or more than ``limit`` bytes in all.
        case malformed
    }

    /// The longest payload accepted (base64 characters).
    static let limit = 8192
    private var buffer = ""

    mutating func add(_ chunk: String) -> Outcome {
        if chunk == "+" {
            let whole = buffer
            buffer = ""
            return whole.isEmpty ? .complete([]) : decode(whole)
        }
        guard chunk.utf8.count <= SASLPayload.chunkSize, buffer.utf8.count + chunk.utf8.count <= Self.limit else {
            buffer = ""
            return .malformed
        }
        buffer += chunk
        if chunk.utf8.count == SASLPayload.chunkSize { return .needMore }
        let whole = buffer
        buffer = ""
        return decode(whole)
    }

    private func decode(_ text: String) -> Outcome {
        SASLPayload.decodeBase64(text).map { .complete($0) } ?? .malformed
    }
}
