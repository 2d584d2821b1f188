import Foundation

/// SASLprep (RFC 4013), the preparation SCRAM applies to user names and passwords before hashing,
/// so that the same password typed in another Unicode form gives the same key.
///
/// Mapping: non-ASCII spaces become U+0020 and the characters "commonly mapped to nothing" (RFC 3454
/// B.1) are removed; then NFKC. Prohibited: control characters, private-use and non-character code
/// points, the change-display and tagging characters (RFC 3454 C.2–C.9). The bidirectional check of
/// RFC 3454 section 6 is not applied. Plain ASCII text without control characters is returned as it is.
enum SASLprep {
    /// The prepared text, or nil when it contains a prohibited character.
    static func prepare(_ text: String) -> String? {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var mapped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if mappedToNothing(scalar) { continue }
            if scalar.value != 0x20, scalar.properties.generalCategory == .spaceSeparator {
                mapped.append(" ")
            } else {
                mapped.append(scalar)
            }
        }
        let normalized = String(mapped).precomposedStringWithCompatibilityMapping
        for scalar in normalized.unicodeScalars where prohibited(scalar) { return nil }
        return normalized
    }

    private static func mappedToNothing(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00AD, 0x034F, 0x1806, 0x180B...0x180D, 0x200B...0x200D, 0x2060, 0xFE00...0xFE0F, 0xFEFF: true
        default: false
        }
    }

    private static func prohibited(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .privateUse, .surrogate, .lineSeparator, .paragraphSeparator: return true
        default: break
        }
        if scalar.properties.isNoncharacterCodePoint { return true }
        switch scalar.value {
        case 0x0340, 0x0341, 0x200E, 0x200F, 0x202A...0x202E, 0x206A...0x206F, 0xFFF9...0xFFFD, 0x2FF0...0x2FFB,
            0xE0001, 0xE0020...0xE007F, 0x06DD, 0x070F, 0x180E, 0x200C, 0x200D, 0x2028, 0x2029, 0x2061...0x2063,
            0x1D173...0x1D17A:
            return true
        default:
            return false
        }
    }
}
