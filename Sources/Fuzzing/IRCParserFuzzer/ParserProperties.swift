import FuzzingSupport
@_spi(Testing) import IRCClient
import IRCProtocol
import NIOCore

/// What must hold for any bytes received from (or about to be sent to) an IRC server.
enum ParserProperties {
    static let botNick = "OnTheMapBot"
    static let splitter = LineSplitter()

    static func check(_ bytes: [UInt8]) {
        checkParse(bytes)
        checkFraming(bytes, maximumLineLength: 16 + Int(bytes.last ?? 0) % 48)
        checkFraming(bytes, maximumLineLength: IRCLineDecoder().maximumLineLength)
        checkOutgoingText(String(decoding: bytes, as: UTF8.self))
    }

    static func isForbidden(_ byte: UInt8) -> Bool { byte == 0 || byte == 0x0A || byte == 0x0D }

    /// Parse; when accepted, serialize and parse again: the same message (minus tags whose keys
    /// cannot be written), and never NUL, CR or LF on the wire.
    static func checkParse(_ bytes: [UInt8]) {
        let message: IRCMessage
        do throws(IRCParseError) {
            message = try IRCMessage(parsingUTF8: bytes)
        } catch {
            fuzzRequire(bytes.isEmpty == (error == .empty), "empty iff .empty, got \(error)")
            if error == .forbiddenCharacter {
                fuzzRequire(bytes.contains(where: isForbidden), "forbiddenCharacter without NUL/CR/LF")
            }
            return
        }
        fuzzRequire(!bytes.contains(where: isForbidden), "accepted a line with NUL, CR or LF")
        let isValidUTF8 = String(validating: bytes, as: UTF8.self) != nil
        if let text = String(validating: bytes, as: UTF8.self) {
            let fromString = try? IRCMessage(parsing: text)
            fuzzRequire(fromString == message, "String and byte parsing disagree")
        }

        let line = message.serialized()
        fuzzRequire(
            !line.utf8.contains(where: isForbidden),
            "serialized line has NUL, CR or LF: \(line.debugDescription)")
        var expected = message
        expected.tags = message.tags.filter { isWritableTagKey($0.key) }
        do throws(IRCParseError) {
            let again = try IRCMessage(parsing: line, maxLineBytes: Int.max)
            fuzzRequire(
                again == expected,
                "round trip changed the message: \(message) → \(line.debugDescription) → \(again)")
        } catch {
            // Only repaired invalid UTF-8 (1 byte → 3-byte U+FFFD) may push the tags past their limit.
            fuzzRequire(
                error == .tagsTooLong && !isValidUTF8,
                "serialized line does not parse (\(error)): \(line.debugDescription)")
        }
        if isValidUTF8 {
            // Serializing never lengthens valid input, so the standard limits still hold.
            fuzzRequire((try? IRCMessage(parsing: line)) == expected, "re-parse with standard limits failed")
        }
        do throws(IRCSerializationError) {
            let checked = try message.serializedChecked()
            fuzzRequire(checked == line, "serializedChecked differs from serialized")
        } catch {
            guard case .invalidTagKey = error else {
                fuzzRequire(false, "serializedChecked refused a parsed message: \(error)")
                return
            }
        }
        if let source = message.source {
            fuzzRequire(message.sourceIdentity?.formatted == source, "source split does not rejoin")
        }
        if let ctcp = message.ctcp {
            fuzzRequire(!ctcp.encoded.utf8.contains(where: isForbidden), "CTCP encoding has NUL, CR or LF")
        }
    }

    /// Tag keys the serializer writes: an optional `+`, then ASCII letters, digits, `-`, `.`, `/`.
    static func isWritableTagKey(_ key: String) -> Bool {
        var bytes = Substring(key).utf8[...]
        if bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        return !bytes.isEmpty
            && bytes.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2D
                    || byte == 0x2E || byte == 0x2F
            }
    }

    /// The line decoder, fed in chunks and all at once, yields exactly the non-empty CR/LF-separated
    /// segments that fit the limit, and keeps at most the unterminated tail.
    static func checkFraming(_ bytes: [UInt8], maximumLineLength limit: Int) {
        let segments = bytes.split(
            omittingEmptySubsequences: false, whereSeparator: { $0 == 0x0A || $0 == 0x0D })
        let complete = segments.dropLast()
        let tail = segments.last ?? []
        let expected = complete.filter { !$0.isEmpty && $0.count <= limit }.map {
            String(decoding: $0, as: UTF8.self)
        }
        let expectedDropped = complete.filter { $0.count > limit }.count + (tail.count > limit ? 1 : 0)

        let chunkSize = 1 + Int(bytes.first ?? 0) % 64
        for size in [chunkSize, max(bytes.count, 1)] {
            var decoder = IRCLineDecoder(maximumLineLength: limit)
            fuzzRequire(decoder.maximumLineLength == limit, "decoder limit")
            var buffer = ByteBuffer()
            var lines: [String] = []
            var start = 0
            while start < bytes.count {
                let end = min(start + size, bytes.count)
                buffer.writeBytes(bytes[start..<end])
                while let line = decoder.nextLine(from: &buffer) {
                    fuzzRequire(!line.isEmpty && line.utf8.count <= limit * 3, "bad line from decoder")
                    fuzzRequire(
                        !line.utf8.contains(0x0A) && !line.utf8.contains(0x0D), "decoded line has CR/LF")
                    lines.append(line)
                }
                fuzzRequire(
                    buffer.readableBytes <= limit + size, "decoder buffered \(buffer.readableBytes) bytes")
                start = end
            }
            fuzzRequire(lines == expected, "decoder (chunks of \(size)) gave \(lines), expected \(expected)")
            fuzzRequire(decoder.droppedLineCount == expectedDropped, "dropped-line count")
            fuzzRequire(decoder.isDiscarding == (tail.count > limit), "discarding state")
            if tail.count <= limit {
                fuzzRequire(buffer.readableBytes == tail.count, "unterminated tail not kept")
            }
        }
    }

    /// Text from elsewhere, made safe to send: no control characters after `untrusted`, no NUL/CR/LF
    /// after `singleLine`, split replies that fit one relayed line each.
    static func checkOutgoingText(_ text: String) {
        let cleaned = TextSanitizer.untrusted(text)
        fuzzRequire(
            !cleaned.unicodeScalars.contains(where: isUnsafeScalar), "untrusted() kept a control character")
        let limit = text.utf8.count / 2
        let cut = TextSanitizer.untrusted(text, maxBytes: limit)
        fuzzRequire(cut.utf8.count <= limit, "untrusted(maxBytes:) is too long")
        fuzzRequire(
            !TextSanitizer.singleLine(text).utf8.contains(where: isForbidden), "singleLine kept NUL/CR/LF")

        let budget = splitter.textBudget(target: "#class", nick: botNick)
        let messages = splitter.messages(text, target: "#class", nick: botNick)
        fuzzRequire(messages.count <= splitter.maxLines, "too many lines")
        let worstPrefix =
            1 + botNick.utf8.count + 1 + splitter.worstCaseUserLength + 1 + splitter.worstCaseHostLength + 1
        for message in messages {
            let piece = message.parameters.last ?? ""
            fuzzRequire(!piece.isEmpty && piece.utf8.count <= budget, "piece of \(piece.utf8.count) bytes")
            let wire = message.serialized()
            fuzzRequire(!wire.utf8.contains(where: isForbidden), "outgoing line has NUL, CR or LF")
            fuzzRequire(worstPrefix + wire.utf8.count + 2 <= IRCMessage.maxLineBytes, "relayed line too long")
        }
    }

    static func isUnsafeScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
