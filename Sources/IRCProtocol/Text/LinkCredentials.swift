/// The user information of links (`scheme://user:password@host`) in free text, found without Swift
/// regular expressions: the bot runs this for every command it logs, and the Regex engine costs
/// time per call and pulls a large part of the Swift runtime into memory (BENCHMARKS.md).
public enum LinkCredentials {
    /// `text` with the user information of every `scheme://userinfo@` link replaced by
    /// `<redacted>`, or `nil` when it has none. A scheme is a letter followed by letters, digits,
    /// `+`, `.` or `-`; the user information is what lies between `://` and the next `@`, at least
    /// one character and no `/`, `@` or whitespace.
    public static func redacting(_ text: String) -> String? {
        guard text.utf8.contains(UInt8(ascii: "@")) else { return nil }
        let scalars = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var redactedAny = false
        var schemeHasLetter = false  // the scheme characters just before `index` include a letter
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == ":", schemeHasLetter, index + 2 < scalars.count, scalars[index + 1] == "/",
                scalars[index + 2] == "/"
            {
                output.append(contentsOf: "://".unicodeScalars)
                index += 3
                schemeHasLetter = false
                var end = index
                while end < scalars.count, !endsUserInformation(scalars[end]) { end += 1 }
                if end > index, end < scalars.count, scalars[end] == "@" {
                    output.append(contentsOf: "<redacted>@".unicodeScalars)
                    index = end + 1
                    redactedAny = true
                }
                continue
            }
            if isSchemeCharacter(scalar) {
                schemeHasLetter = schemeHasLetter || isASCIILetter(scalar)
            } else {
                schemeHasLetter = false
            }
            output.append(scalar)
            index += 1
        }
        return redactedAny ? String(output) : nil
    }

    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    private static func isSchemeCharacter(_ scalar: Unicode.Scalar) -> Bool {
        isASCIILetter(scalar) || ("0"..."9").contains(scalar) || scalar == "+" || scalar == "." || scalar == "-"
    }

    private static func endsUserInformation(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "/" || scalar == "@" || scalar.properties.isWhitespace
    }
}
