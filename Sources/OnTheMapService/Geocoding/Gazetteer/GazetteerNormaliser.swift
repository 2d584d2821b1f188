import Foundation

/// Turns free text into the gazetteer's key form, exactly as `scripts/build-gazetteer.py`
/// normalises names: apostrophes removed, lower-cased, compatibility-decomposed, non-spacing
/// marks dropped, a few letters folded (ß→ss, ø→o, ł→l …), every other character that is not
/// a letter, digit or mark becomes a space, spaces collapsed and trimmed.
enum GazetteerNormaliser {
    /// The normalised UTF-8 bytes of `text`: tokens separated by single spaces.
    static func normalise<S: StringProtocol>(_ text: S) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        var isASCII = true
        for byte in text.utf8 where byte >= 0x80 {
            isASCII = false
            break
        }
        if isASCII {
            var pendingSpace = false
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    appendWord(byte, to: &output, pendingSpace: &pendingSpace)
                case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    appendWord(byte + 32, to: &output, pendingSpace: &pendingSpace)
                case UInt8(ascii: "'"), UInt8(ascii: "`"):
                    continue
                default:
                    pendingSpace = true
                }
            }
            return output
        }
        return normaliseUnicode(String(text))
    }

    @inline(__always)
    private static func appendWord(_ byte: UInt8, to output: inout [UInt8], pendingSpace: inout Bool) {
        if pendingSpace {
            if !output.isEmpty { output.append(0x20) }
            pendingSpace = false
        }
        output.append(byte)
    }

    private static let apostrophes: Set<Unicode.Scalar> = [
        "'", "\u{2018}", "\u{2019}", "\u{02BC}", "\u{02BB}", "`", "\u{00B4}",
    ]

    private static let folds: [Unicode.Scalar: String] = [
        "ß": "ss", "æ": "ae", "ø": "o", "œ": "oe", "đ": "d", "ð": "d", "ł": "l", "þ": "th",
        "ı": "i", "ħ": "h", "ŀ": "l", "ĸ": "k", "ŋ": "n", "ſ": "s",
    ]

    private static func normaliseUnicode(_ text: String) -> [UInt8] {
        var withoutApostrophes = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where !apostrophes.contains(scalar) {
            withoutApostrophes.append(scalar)
        }
        let decomposed = String(withoutApostrophes).lowercased().decomposedStringWithCompatibilityMapping
        var output: [UInt8] = []
        var pendingSpace = false
        for scalar in decomposed.unicodeScalars {
            if apostrophes.contains(scalar) { continue }
            switch scalar.properties.generalCategory {
            case .nonspacingMark:
                continue
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .decimalNumber, .letterNumber, .otherNumber, .spacingMark, .enclosingMark:
                if pendingSpace {
                    if !output.isEmpty { output.append(0x20) }
                    pendingSpace = false
                }
                if let fold = folds[scalar] {
                    output.append(contentsOf: fold.utf8)
                } else {
                    UTF8.encode(scalar) { output.append($0) }
                }
            default:
                pendingSpace = true
            }
        }
        return output
    }
}
