import Foundation
import Testing

@testable import OnTheMapService

/// The text checks every way in shares answer as the Unicode and Foundation rules they stand for,
/// whether a text is read byte by byte (ASCII alone) or character by character.
@Suite struct DirectoryInputTextTests {
    /// Texts with spaces, tabs and line ends at either end, other space separators, and none.
    static let samples: [String] = {
        var samples = [
            "", " ", "\t", "Ada", " Ada", "Ada ", "\tAda\t", "\nAda\n", "A d a", "\u{00A0}Ada", "Ada\u{3000}",
            "\u{2003} \t", "Zoë ", " Zoë", "\u{200B}Ada\u{200B}", "Ada\u{FEFF}", "é", "\u{1F30D} map \u{1F30D}",
        ]
        for scalar in [0x1680, 0x180E, 0x2000, 0x2005, 0x200A, 0x2028, 0x202F, 0x205F, 0x0085, 0x000B] {
            let space = String(Unicode.Scalar(UInt32(scalar))!)
            samples += [space + "Ada", "Ada" + space, space + space]
        }
        return samples
    }()

    @Test func trimmingSpacesIsFoundationsWhitespaceTrimming() {
        for text in Self.samples {
            #expect(
                DirectoryInput.trimmedOfSpaces(text) == text.trimmingCharacters(in: .whitespaces),
                "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    /// Every ASCII character, alone and inside a word, is refused or kept as its Unicode category
    /// says; so is a text that mixes it with other characters.
    @Test func asciiTextIsJudgedByTheSameRuleAsAnyOther() {
        for value in UInt32(0)..<0x80 {
            let scalar = Unicode.Scalar(value)!
            let category = scalar.properties.generalCategory
            let hidden = category == .control || category == .format
            for text in [String(scalar), "Ada" + String(scalar) + "Lovelace", String(scalar) + "Zoë"] {
                #expect(DirectoryInput.containsHiddenCharacters(text) == hidden, "U+\(String(value, radix: 16))")
                #expect(
                    DirectoryInput.containsControlCharacters(text) == (category == .control),
                    "U+\(String(value, radix: 16))")
            }
        }
        #expect(DirectoryInput.containsHiddenCharacters("Paris\u{202E}gnp"))
        #expect(!DirectoryInput.containsHiddenCharacters("\u{0645}\u{06CC}\u{200C}\u{0631}"))
        #expect(DirectoryInput.containsControlCharacters("Zoë\u{0085}"))
    }
}
