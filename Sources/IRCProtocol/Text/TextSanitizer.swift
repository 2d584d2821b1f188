/// Cleans text before it is sent to IRC.
///
/// - ``singleLine(_:)`` is for text the bot wrote itself: it only makes sure the text stays one
///   line (NUL, CR and LF become spaces), keeping intentional formatting.
/// - ``untrusted(_:maxBytes:)`` is for data from elsewhere (user input, API data): it removes
///   mIRC formatting, control characters and every bidi control so the data can neither break the
///   line nor restyle or reorder the bot's message.
public enum TextSanitizer {
    /// The ellipsis appended when text is cut.
    public static let ellipsis = "…"

    /// Replaces NUL, CR and LF with spaces.
    public static func singleLine(_ text: String) -> String {
        var text = text
        let cleaned: String? = text.withUTF8 { bytes in
            guard bytes.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) else { return nil }
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for index in 0..<bytes.count {
                    let byte = bytes[index]
                    buffer[index] = byte == 0 || byte == 0x0A || byte == 0x0D ? 0x20 : byte
                }
                return bytes.count
            }
        }
        return cleaned ?? text
    }

    /// Replaces NUL, CR and LF with spaces.
    public static func singleLine(_ text: some StringProtocol) -> String {
        singleLine(String(text))
    }

    /// Whether every byte of `text` is printable ASCII (space to `~`): such text has nothing for
    /// ``untrusted(_:maxBytes:)`` to remove, and each of its characters is one byte.
    public static func isPrintableASCII(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in !bytes.contains { $0 < 0x20 || $0 > 0x7E } }
    }

    /// Text the bot did not write, made safe to embed in a message: mIRC formatting codes
    /// (bold `\x02`, colour `\x03NN,MM`, hex colour `\x04RRGGBB,RRGGBB`, reset `\x0F`, monospace
    /// `\x11`, reverse `\x16`, italic `\x1D`, strikethrough `\x1E`, underline `\x1F`) are
    /// removed with their arguments; tab, CR and LF become spaces; all other C0 controls, DEL,
    /// C1 controls and every bidi control (the marks U+061C, U+200E, U+200F, the embeddings and
    /// overrides U+202A–U+202E, the isolates U+2066–U+2069) are removed. With `maxBytes`, the result is cut to at most that many UTF-8 bytes (see
    /// ``truncated(_:maxBytes:)``).
    public static func untrusted(_ text: some StringProtocol, maxBytes: Int? = nil) -> String {
        let string = String(text)
        if isPrintableASCII(string) {
            guard let maxBytes else { return string }
            return truncated(string, maxBytes: maxBytes)
        }
        return untrustedByScalars(string, maxBytes: maxBytes)
    }

    /// ``untrusted(_:maxBytes:)`` without its shortcut for printable ASCII.
    static func untrustedByScalars(_ text: String, maxBytes: Int?) -> String {
        var output = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            switch scalar.value {
            case 0x03:
                index = skipColourArguments(scalars, from: index, isHex: false)
            case 0x04:
                index = skipColourArguments(scalars, from: index, isHex: true)
            case 0x09, 0x0A, 0x0D:
                output.append(" ")
            case 0x00...0x1F, 0x7F, 0x80...0x9F:
                continue
            case _ where isBidiControl(scalar):
                continue
            default:
                output.append(scalar)
            }
        }
        let cleaned = String(output)
        guard let maxBytes else { return cleaned }
        return truncated(cleaned, maxBytes: maxBytes)
    }

    /// Whether `scalar` is a bidi control (Unicode's Bidi_Control property): the marks ALM U+061C,
    /// LRM U+200E and RLM U+200F, the embeddings and overrides U+202A–U+202E, the isolates
    /// U+2066–U+2069. Each can reorder the text around it.
    public static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// Cuts `text` so it has at most `maxBytes` UTF-8 bytes, ending with "…" when cut. Cuts
    /// happen at grapheme-cluster boundaries, so no scalar or cluster is split.
    public static func truncated(_ text: String, maxBytes: Int) -> String {
        guard text.utf8.count > maxBytes else { return text }
        let budget = maxBytes - ellipsis.utf8.count
        guard budget > 0 else { return "" }
        var used = 0
        var end = text.startIndex
        for character in text {
            let size = character.utf8.count
            if used + size > budget { break }
            used += size
            end = text.index(after: end)
        }
        return String(text[..<end]) + ellipsis
    }

    /// Skips `NN[,MM]` (decimal, 1–2 digits) or `RRGGBB[,RRGGBB]` (hex, 6 digits) after a
    /// colour code. A comma is only consumed when a background colour follows it.
    private static func skipColourArguments(
        _ scalars: [Unicode.Scalar],
        from start: Int,
        isHex: Bool
    ) -> Int {
        func isDigit(_ scalar: Unicode.Scalar) -> Bool {
            if isHex { return scalar.properties.isASCIIHexDigit }
            return scalar.value >= 0x30 && scalar.value <= 0x39
        }
        func digits(from index: Int) -> Int {
            if isHex {
                guard index + 6 <= scalars.count, scalars[index..<(index + 6)].allSatisfy(isDigit) else {
                    return 0
                }
                return 6
            }
            var count = 0
            while count < 2 && index + count < scalars.count && isDigit(scalars[index + count]) {
                count += 1
            }
            return count
        }
        let foreground = digits(from: start)
        guard foreground > 0 else { return start }
        var index = start + foreground
        if index < scalars.count && scalars[index] == "," {
            let background = digits(from: index + 1)
            if background > 0 { index += 1 + background }
        }
        return index
    }
}
