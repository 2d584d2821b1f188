import IRCProtocol
import Testing

@Suite struct LinkCredentialsTests {
    @Test func replacesTheUserInformationOfEveryLink() {
        #expect(
            LinkCredentials.redacting("see https://u:pw@x.example/p and ftp://me@host")
                == "see https://<redacted>@x.example/p and ftp://<redacted>@host")
        #expect(LinkCredentials.redacting("git+ssh://git@example.org:repo") == "git+ssh://<redacted>@example.org:repo")
        #expect(LinkCredentials.redacting("1http://a@b") == "1http://<redacted>@b")
        #expect(LinkCredentials.redacting("a://b://c@d") == "a://b://<redacted>@d")
    }

    @Test func leavesTextWithoutCredentialsAlone() {
        for text in [
            "", "hello", "mail me: a@b.test", "https://x.example/p@q", "https://@host", "1://a@b",
            "https://a b@c", "https:/a@b", "://a@b", "https://a/b@c",
        ] {
            #expect(LinkCredentials.redacting(text) == nil, "\(text.debugDescription)")
        }
    }

    /// The scanner agrees with the regular expression it replaced on random text made of the
    /// characters that matter to it.
    @Test func agreesWithTheRegularExpressionItReplaced() {
        let alphabet: [Character] = ["a", "Z", "1", ":", "/", "@", " ", "+", ".", "-", "é", "\u{00A0}", "\t"]
        let pattern = /([A-Za-z][A-Za-z0-9+.\-]*:\/\/)[^\/\s@]+@/
        var generator = RobustnessTests.SplitMix64(state: 8)
        for _ in 0..<20_000 {
            let length = Int(generator.next() % 14)
            let text = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            let expected = text.replacing(pattern) { match in "\(match.output.1)<redacted>@" }
            #expect(LinkCredentials.redacting(text) ?? text == expected, "\(text.debugDescription)")
        }
    }
}
