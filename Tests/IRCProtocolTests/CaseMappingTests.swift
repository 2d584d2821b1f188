import Testing

@testable import IRCProtocol

@Suite("Casemapping, masks and host names")
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

    @Test func caseMappedNamesWorkAsDictionaryKeys() {
        var seen: [CaseMappedName: Int] = [:]
        let mapping = CaseMapping.rfc1459
        seen[mapping.key("Alice[m]")] = 1
        seen[mapping.key("alice{M}"), default: 0] += 1
        seen[mapping.key("Bob")] = 5
        #expect(seen.count == 2)
        #expect(seen[mapping.key("ALICE[M]")] == 2)
        #expect(mapping.key("Alice[m]").name == "Alice[m]")
        #expect(Set([mapping.key("#Chan"), mapping.key("#chan")]).count == 1)
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

    @Test func hostnames() {
        #expect(Hostname.isValid("irc.libera.chat"))
        #expect(Hostname.isValid(String(repeating: "a", count: 63) + ".com"))
        #expect(!Hostname.isValid(String(repeating: "a", count: 64) + ".com"))
        #expect(!Hostname.isValid("a..b"))
        #expect(!Hostname.isValid("."))
        #expect(!Hostname.isValid("irc.example.com-"))
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
