import IRCProtocol
import Testing

/// What no network accepts as a nick, so that a lookup asks the server only about a word that may be one.
@Suite struct NickSyntaxTests {
    @Test(arguments: ["ada", "Ada_", "[Turing]", "{turing}", "jd42", "a|b", "`x", "^caret", "Zoë", "a-b", "x.y"])
    func wordsThatMayBeANick(_ word: String) {
        #expect(NickSyntax.couldBeNick(word))
    }

    @Test(arguments: [
        "", "Alan Turing", "London, UK", "2cool", "-dash", ":colon", "$mask", "#class", "&local", "+voice",
        "%half", "~tilde", "a*b", "who?", "hey!", "x@y", "tab\there", "nul\0x", "cr\rx", "lf\nx",
        String(repeating: "a", count: 65),
    ])
    func wordsThatCannotBeANick(_ word: String) {
        #expect(!NickSyntax.couldBeNick(word))
    }

    @Test func theLongestNickTakenIs64Bytes() {
        #expect(NickSyntax.couldBeNick(String(repeating: "a", count: 64)))
    }
}
