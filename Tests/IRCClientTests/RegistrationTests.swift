import IRCClient
import IRCProtocol
import Testing

func parse(_ line: String) -> IRCMessage {
    // Test input is known to be valid.
    try! IRCMessage(parsing: line, maxLineBytes: 16_384)
}

@Suite("CapabilityNegotiator")
struct CapabilityNegotiatorTests {
    @Test func multiLineLSThenRequestOnlyWhatIsUsedAndOffered() {
        var negotiator = CapabilityNegotiator(saslMechanisms: ["PLAIN"])
        #expect(
            negotiator.handle(parse(":srv CAP * LS * :multi-prefix sasl=PLAIN,EXTERNAL away-notify")).isEmpty
        )
        #expect(!negotiator.listComplete)
        let actions = negotiator.handle(parse(":srv CAP * LS :server-time echo-message account-tag batch"))
        #expect(negotiator.listComplete)
        #expect(negotiator.offered["sasl"] == "PLAIN,EXTERNAL")
        #expect(negotiator.saslOffered == true)
        #expect(
            actions == [
                .send(
                    IRCMessage(
                        command: "CAP",
                        parameters: ["REQ", "account-tag multi-prefix sasl server-time"]
                    )
                )
            ]
        )
        #expect(negotiator.pending == ["account-tag", "multi-prefix", "sasl", "server-time"])
    }

    /// Where the server offers extended-monitor (and account-notify), both are requested: account
    /// changes of nicks watched with MONITOR then arrive without a shared channel or a WHOIS.
    @Test func extendedMonitorIsRequestedWhereOffered() {
        var negotiator = CapabilityNegotiator(saslMechanisms: nil)
        let actions = negotiator.handle(parse(":srv CAP * LS :account-notify extended-monitor draft/example"))
        #expect(actions == [.send(IRCMessage(command: "CAP", parameters: ["REQ", "account-notify extended-monitor"]))])
    }

    @Test func ackWithSASLStartsAuthentication() {
        var negotiator = CapabilityNegotiator(saslMechanisms: ["PLAIN"])
        _ = negotiator.handle(parse(":srv CAP * LS :sasl multi-prefix"))
        let actions = negotiator.handle(parse(":srv CAP * ACK :multi-prefix sasl"))
        #expect(actions == [.startSASL])
        #expect(negotiator.enabled == ["multi-prefix", "sasl"])
    }

    @Test func ackWithoutSASLEndsNegotiation() {
        var negotiator = CapabilityNegotiator(saslMechanisms: nil)
        let request = negotiator.handle(parse(":srv CAP * LS :sasl=PLAIN extended-join"))
        #expect(request == [.send(IRCMessage(command: "CAP", parameters: ["REQ", "extended-join"]))])
        #expect(negotiator.handle(parse(":srv CAP bot ACK :extended-join")) == [.end])
    }

    /// A configured login asks for `sasl` even when the server lists none of the client's
    /// mechanisms, and then ends negotiation without authenticating.
    @Test func saslIsNotUsedWhenTheMechanismIsNotOffered() {
        var negotiator = CapabilityNegotiator(saslMechanisms: ["EXTERNAL"])
        let actions = negotiator.handle(parse(":srv CAP * LS :sasl=PLAIN chghost"))
        #expect(actions == [.send(IRCMessage(command: "CAP", parameters: ["REQ", "chghost sasl"]))])
        #expect(negotiator.saslOffered == false)
        #expect(negotiator.handle(parse(":srv CAP bot ACK :chghost sasl")) == [.end])
    }

    @Test func emptyOrUselessLSEndsAtOnce() {
        var empty = CapabilityNegotiator(saslMechanisms: nil)
        #expect(empty.handle(parse(":srv CAP * LS :")) == [.end])
        var useless = CapabilityNegotiator(saslMechanisms: ["PLAIN"])
        #expect(useless.handle(parse(":srv CAP * LS :away-notify invite-notify")) == [.end])
        #expect(useless.saslOffered == false)
    }

    @Test func nakEndsNegotiation() {
        var negotiator = CapabilityNegotiator(saslMechanisms: nil)
        _ = negotiator.handle(parse(":srv CAP * LS :multi-prefix chghost"))
        #expect(negotiator.handle(parse(":srv CAP * NAK :chghost multi-prefix")) == [.end])
        #expect(negotiator.enabled.isEmpty)
    }

    @Test func newAndDelAfterRegistration() {
        var negotiator = CapabilityNegotiator(saslMechanisms: ["PLAIN"])
        _ = negotiator.handle(parse(":srv CAP * LS :cap-notify"))
        _ = negotiator.handle(parse(":srv CAP * ACK :cap-notify"))
        negotiator.finish()
        let actions = negotiator.handle(parse(":srv CAP bot NEW :account-notify sasl=PLAIN unknown-cap"))
        #expect(actions == [.send(IRCMessage(command: "CAP", parameters: ["REQ", "account-notify"]))])
        _ = negotiator.handle(parse(":srv CAP bot ACK :account-notify"))
        #expect(negotiator.enabled.contains("account-notify"))
        _ = negotiator.handle(parse(":srv CAP bot DEL :account-notify"))
        #expect(!negotiator.enabled.contains("account-notify"))
        #expect(negotiator.offered["account-notify"] == nil)
    }
}

@Suite("SASL payload")
struct SASLPayloadTests {
    @Test func plainPayloadIsBase64OfNulSeparatedFields() {
        let payload = SASLPayload.plain(username: "bot", password: "secret")
        #expect(payload == Array("bot\0bot\0secret".utf8))
        let messages = SASLPayload.authenticateMessages(for: payload)
        #expect(messages.map(\.parameters) == [["Ym90AGJvdABzZWNyZXQ="]])
    }

    @Test func base64MatchesKnownVectors() {
        #expect(SASLPayload.base64(Array("".utf8)) == "")
        #expect(SASLPayload.base64(Array("f".utf8)) == "Zg==")
        #expect(SASLPayload.base64(Array("fo".utf8)) == "Zm8=")
        #expect(SASLPayload.base64(Array("foo".utf8)) == "Zm9v")
        #expect(SASLPayload.base64(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(SASLPayload.base64([0, 255, 128]) == "AP+A")
    }

    @Test func exactlyFourHundredBytesIsFollowedByPlus() {
        // 300 payload bytes encode to exactly 400 base64 characters.
        let messages = SASLPayload.authenticateMessages(for: Array(repeating: 65, count: 300))
        #expect(messages.count == 2)
        #expect(messages[0].parameters[0].utf8.count == 400)
        #expect(messages[1].parameters == ["+"])
    }

    @Test func longerPayloadIsChunked() {
        // 301 bytes → 404 characters → 400 + 4, no trailing "+".
        let messages = SASLPayload.authenticateMessages(for: Array(repeating: 66, count: 301))
        #expect(messages.map { $0.parameters[0].utf8.count } == [400, 4])
        // 600 bytes → 800 characters → 400 + 400 + "+".
        let twice = SASLPayload.authenticateMessages(for: Array(repeating: 67, count: 600))
        #expect(twice.map { $0.parameters[0] == "+" ? 0 : $0.parameters[0].utf8.count } == [400, 400, 0])
        #expect(twice.allSatisfy { $0.command == "AUTHENTICATE" })
    }

    @Test func emptyPayloadIsASinglePlus() {
        #expect(SASLPayload.authenticateMessages(for: SASLPayload.external()).map(\.parameters) == [["+"]])
    }
}

@Suite("NickSequence")
struct NickSequenceTests {
    @Test func alternatesThenDigits() {
        var nicks = NickSequence(primary: "OnTheMapBot", alternates: ["OnTheMapBot_", "OtmBot"])
        #expect(nicks.current == "OnTheMapBot")
        #expect(nicks.next() == "OnTheMapBot_")
        #expect(nicks.next() == "OtmBot")
        let generated = nicks.next()
        #expect(generated.hasPrefix("OnTheMapBot"))
        let digits = generated.dropFirst("OnTheMapBot".count)
        #expect((2...3).contains(digits.count) && digits.allSatisfy(\.isNumber))
        #expect(nicks.next() != nicks.primary)
    }

    @Test func erroneousNickShortensGeneratedNicks() {
        var nicks = NickSequence(primary: "AVeryLongBotName", alternates: [])
        let generated = nicks.next(afterErroneous: true)
        #expect(generated.count <= 9)
        #expect(generated.hasPrefix("AVeryL"))
    }
}

@Suite("LogRedaction")
struct LogRedactionTests {
    @Test func credentialsNeverReachTheLog() {
        #expect(LogRedaction.redact("AUTHENTICATE Ym90AGJvdABzZWNyZXQ=") == "AUTHENTICATE <redacted>")
        #expect(LogRedaction.redact("PASS hunter2") == "PASS <redacted>")
        let login = LogRedaction.redact(":alice!a@h PRIVMSG Bot :!login alice@example.com hunter2")
        #expect(!login.contains("hunter2") && login.contains("<redacted>"))
        let plain = LogRedaction.redact("PRIVMSG Bot :LOGIN alice hunter2")
        #expect(!plain.contains("hunter2"))
        #expect(LogRedaction.redact("PRIVMSG NickServ :IDENTIFY hunter2").contains("hunter2") == false)
    }

    /// The token of a sign-in link (a private `!map` answer) is replaced; the rest of the line stays.
    @Test func signInLinkTokensNeverReachTheLog() {
        let line = "PRIVMSG bob :Your sign-in link: https://map.example/signin#QWRh.s3cr3t-token_x and more"
        let shown = LogRedaction.redact(line)
        #expect(shown == "PRIVMSG bob :Your sign-in link: https://map.example/signin#<redacted> and more")
        let twice = LogRedaction.redactingSecrets("a/signin#one b https://u:pw@h.example/signin#two")
        #expect(twice?.contains("one") == false && twice?.contains("two") == false && twice?.contains("pw") == false)
    }

    /// The token of a data feed address (a `!mydata links` answer) is replaced in both addresses;
    /// the signed-in page's own address, which holds none, stays as it is.
    @Test func feedTokensNeverReachTheLog() {
        let pins = "PRIVMSG jane :Your pin as GeoJSON: https://map.example/me/dS1qYW5l.s3cr3t-Tok_en/pins.geojson"
        #expect(
            LogRedaction.redact(pins)
                == "PRIVMSG jane :Your pin as GeoJSON: https://map.example/me/<redacted>/pins.geojson")
        let both = LogRedaction.redactingSecrets(
            "https://m.example/me/a.one/trips.ics and https://m.example/me/b.two/pins.geojson")
        #expect(both == "https://m.example/me/<redacted>/trips.ics and https://m.example/me/<redacted>/pins.geojson")
        #expect(LogRedaction.redactingFeedTokens("download https://m.example/me/pins.geojson") == nil)
        #expect(
            LogRedaction.redactingFeedTokens("a token at the end /me/x.secret") == "a token at the end /me/<redacted>")
    }

    @Test func ordinaryLinesAreKept() {
        let line = ":alice!a@h PRIVMSG #class :!where bob"
        #expect(LogRedaction.redact(line) == line)
        #expect(!LogRedaction.isSensitive("please login later"))
    }
}
