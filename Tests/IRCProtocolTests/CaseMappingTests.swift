import Testing

@testable import IRCProtocol

@Suite("Casemapping and masks")
struct CaseMappingTests {
    @Test func asciiFoldsLettersOnly() {
        #expect(CaseMapping.ascii.lowercased("NiCk[]\\~") == "nick[]\\~")
        #expect(CaseMapping.ascii.equals("Bob", "bOB"))
        #expect(!CaseMapping.ascii.equals("a[b]", "a{b}"))
    }

    @Test func rfc1459FoldsBracketsBackslashAndTilde() {
        #expect(CaseMapping.rfc1459.lowercased("[]\\~") == "{}|^")
        #expect(CaseMapping.rfc1459.lowercased("{}|^") == "{}|^")
        #expect(CaseMapping.rfc1459.equals("Nick[Away]", "nick{away}"))
        #expect(CaseMapping.rfc1459.equals("a\\b~", "A|B^"))
    }

    @Test func strictRFC1459LeavesTildeAndCaret() {
        #expect(CaseMapping.strictRFC1459.lowercased("[]\\~^") == "{}|~^")
        #expect(CaseMapping.strictRFC1459.equals("x[y]\\", "X{Y}|"))
        #expect(!CaseMapping.strictRFC1459.equals("a~", "a^"))
    }

    @Test func nonASCIIBytesCompareExactly() {
        #expect(CaseMapping.rfc1459.lowercased("ÄÖÜ") == "ÄÖÜ")
        #expect(!CaseMapping.rfc1459.equals("é", "É"))
        #expect(!CaseMapping.ascii.equals("ab", "abc"))
    }

    @Test func isupportNames() {
        #expect(CaseMapping(isupportValue: "ascii") == .ascii)
        #expect(CaseMapping(isupportValue: "RFC1459") == .rfc1459)
        #expect(CaseMapping(isupportValue: "strict-rfc1459") == .strictRFC1459)
        #expect(CaseMapping(isupportValue: "rfc1459-strict") == .strictRFC1459)
        #expect(CaseMapping(isupportValue: "rfc7613") == nil)
    }

    @Test func masksFoldCaseUnlessExact() {
        #expect(IRCMask("*!*@Example.COM").matches("nick!user@example.com"))
        #expect(!IRCMask("*!*@Example.COM", caseMapping: nil).matches("nick!user@example.com"))
        #expect(IRCMask("nick[a]!*@*").matches("NICK{A}!u@h"))
        #expect(!IRCMask("nick[a]!*@*", caseMapping: .ascii).matches("NICK{A}!u@h"))
        #expect(IRCMask("*").matches(""))
        #expect(!IRCMask("?").matches(""))
        #expect(IRCMask("?!*@*").matches("é!u@h"))
        #expect(IRCMask("*a*a*a*a*a*b").matches(String(repeating: "a", count: 200) + "b"))
        #expect(!IRCMask("*a*a*a*a*a*b").matches(String(repeating: "a", count: 200)))
        #expect(IRCMask("*!*@host").matches(IRCSource(nick: "n", user: "u", host: "host")))
        #expect(IRCMask("a*").hasWildcards && !IRCMask("abc").hasWildcards)
    }

    /// The byte-wise folding agrees with folding every byte on its own, for strings and substrings.
    @Test func foldingAgreesWithFoldingEachByte() {
        let pieces = ["a", "Q", "[", "]", "\\", "~", "^", "{", "é", "É", "🌍", "_", "9"]
        var generator = RobustnessTests.SplitMix64(state: 33)
        for _ in 0..<5_000 {
            let text = generator.text(of: pieces, fewerThan: 12)
            for mapping in CaseMapping.allCases {
                let expected = String(decoding: text.utf8.map { mapping.lowercased(byte: $0) }, as: UTF8.self)
                #expect(mapping.lowercased(text) == expected)
                #expect(mapping.lowercased(text.dropFirst(0)) == expected)
                #expect(mapping.equals(text, expected))
                #expect(mapping.equals(text[...], expected[...]))
                #expect(!mapping.equals(text, expected + "x"))
            }
        }
    }
}
