import Testing

@testable import IRCProtocol

@Suite("TextSanitizer")
struct TextSanitizerTests {
    @Test func singleLineReplacesCRLFAndNul() {
        #expect(TextSanitizer.singleLine("a\r\nb\0c\nd") == "a  b c d")
        #expect(TextSanitizer.singleLine("\u{02}bold\u{02} kept") == "\u{02}bold\u{02} kept")
        let clean = "nothing to do 🌍"
        #expect(TextSanitizer.singleLine(clean) == clean)
    }

    @Test func untrustedStripsEachFormattingCode() {
        let codes: [(String, String)] = [
            ("\u{02}bold\u{02}", "bold"),
            ("\u{1D}italic\u{1D}", "italic"),
            ("\u{1F}underline\u{1F}", "underline"),
            ("\u{1E}strike\u{1E}", "strike"),
            ("\u{11}mono\u{11}", "mono"),
            ("\u{16}reverse\u{16}", "reverse"),
            ("a\u{0F}b", "ab"),
        ]
        for (input, expected) in codes {
            #expect(TextSanitizer.untrusted(input) == expected, "\(input.debugDescription)")
        }
    }

    @Test func untrustedStripsColourCodesWithTheirDigits() {
        #expect(TextSanitizer.untrusted("\u{03}4red\u{03}") == "red")
        #expect(TextSanitizer.untrusted("\u{03}04,12text") == "text")
        #expect(TextSanitizer.untrusted("\u{03}123") == "3")  // only two digits belong to the code
        #expect(TextSanitizer.untrusted("\u{03}4,text") == ",text")  // comma without background stays
        #expect(TextSanitizer.untrusted("\u{03},5x") == ",5x")  // bare colour code, no foreground
        #expect(TextSanitizer.untrusted("\u{04}FF0000red\u{04}") == "red")
        #expect(TextSanitizer.untrusted("\u{04}ff0000,00FF00x") == "x")
        #expect(TextSanitizer.untrusted("\u{04}FF00 short") == "FF00 short")
        #expect(TextSanitizer.untrusted("9\u{03}") == "9")
    }

    @Test func untrustedStripsControlsDelC1AndBidi() {
        #expect(TextSanitizer.untrusted("a\u{01}b\u{07}c\u{1B}[31md\u{7F}e") == "abc[31mde")
        #expect(TextSanitizer.untrusted("x\u{80}y\u{9F}z\u{85}") == "xyz")
        let bidi = [
            "\u{061C}", "\u{200E}", "\u{200F}", "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}",
            "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}",
        ]
        for mark in bidi {
            #expect(TextSanitizer.untrusted("left\(mark)right") == "leftright")
        }
        #expect(TextSanitizer.untrusted("line1\r\nline2\ttab\0nul") == "line1  line2 tabnul")
        #expect(TextSanitizer.untrusted("héllo 世界 👩‍👩‍👧 \u{200D}") == "héllo 世界 👩‍👩‍👧 \u{200D}")
    }

    @Test func everyBidiControlOfUnicodeIsStrippedAndNothingElse() {
        // Unicode's Bidi_Control property lists exactly the characters that reorder text.
        let disagreeing = (UInt32(0)...0x10FFFF).compactMap(Unicode.Scalar.init).filter {
            TextSanitizer.isBidiControl($0) != $0.properties.isBidiControl
        }
        #expect(disagreeing.isEmpty, "\(disagreeing.map { String($0.value, radix: 16) })")
        #expect(TextSanitizer.untrusted("Madrid\u{200F}\u{061C} (RLM, ALM)\u{200E}") == "Madrid (RLM, ALM)")
    }

    @Test func truncationKeepsScalarsAndClustersWhole() {
        #expect(TextSanitizer.untrusted("short", maxBytes: 10) == "short")
        #expect(TextSanitizer.untrusted("abcdefghijkl", maxBytes: 10) == "abcdefg…")
        let emoji = String(repeating: "😀", count: 10)  // 4 bytes each
        let cut = TextSanitizer.untrusted(emoji, maxBytes: 13)
        #expect(cut == "😀😀…")
        #expect(cut.utf8.count <= 13)
        let family = "👩‍👩‍👧👩‍👩‍👧"  // 18 bytes per cluster
        #expect(TextSanitizer.truncated(family, maxBytes: 25) == "👩‍👩‍👧…")
        #expect(TextSanitizer.truncated("abc", maxBytes: 2) == "")
    }

    /// Printable ASCII skips the scan by scalars; both ways give the same text.
    @Test func shortcutForPrintableASCIIAgreesWithTheScanByScalars() {
        let pieces = ["a", "Z", " ", "~", "!", "\u{02}", "\u{03}4,5", "\u{7F}", "\t", "\n", "é", "\u{202E}", "\u{0}"]
        var generator = RobustnessTests.SplitMix64(state: 21)
        for _ in 0..<20_000 {
            let text = generator.text(of: pieces, fewerThan: 20)
            let maxBytes: Int? = generator.next() % 2 == 0 ? nil : Int(generator.next() % 24)
            #expect(
                TextSanitizer.untrusted(text, maxBytes: maxBytes)
                    == TextSanitizer.untrustedByScalars(text, maxBytes: maxBytes),
                "\(text.debugDescription)")
            let plain = text.utf8.allSatisfy { $0 >= 0x20 && $0 <= 0x7E }
            #expect(TextSanitizer.isPrintableASCII(text) == plain)
            let expected = String(decoding: text.utf8.map { [0, 0x0A, 0x0D].contains($0) ? 0x20 : $0 }, as: UTF8.self)
            #expect(TextSanitizer.singleLine(text) == expected)
            #expect(TextSanitizer.singleLine(text[...]) == expected)
        }
    }
}
