import IRCProtocol
import Logging
import Testing

@testable import IRCClient

/// The connection's protocol logic without sockets: lines and ticks in, the lines it writes or
/// queues, the events it emits and the closes it asks for out.
@Suite("Connection state machine")
struct ConnectionStateMachineTests {
    static let start = ContinuousClock.now

    static func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    /// `bot` (else `bot_`) in #class; a keepalive ping after `silence` (long enough not to show in
    /// the tests of other things).
    static func configuration(
        channels: [String] = ["#class"], sasl: IRCClientConfiguration.SASL? = nil, silence: Duration = .seconds(1000)
    ) -> IRCClientConfiguration {
        IRCClientConfiguration(
            host: "irc.example", port: 6697, nick: "bot", altNicks: ["bot_"], username: "otm",
            realname: "Map bot", sasl: sasl, channels: channels.map { .init($0) },
            keepalive: .init(pingAfterSilence: silence, timeout: .seconds(10)),
            reconnect: .init(keepQueuedLinesFor: .seconds(60)),
            retry: .init(
                rejoinAfterKick: .seconds(3), rejoinAfterRefusal: .seconds(30), nickRegainInterval: .seconds(60)),
            registrationTimeout: .seconds(90)
        )
    }

    static func machine(_ configuration: IRCClientConfiguration = configuration()) -> ConnectionStateMachine {
        ConnectionStateMachine(configuration: configuration)
    }

    /// The actions in words ("write NICK bot", "queue JOIN #class", "emit registered(nick: \"bot\")"…),
    /// without the `message` event every line causes and without the lines for the log (see ``logged(_:)``).
    static func described(_ actions: [some DescribedAction]) -> [String] {
        actions.compactMap(\.words)
    }

    /// The lines for the log among `actions`, as "level text".
    static func logged(_ actions: [some DescribedAction]) -> [String] {
        actions.compactMap { $0.logLine.map { "\($0.level) \($0.text)" } }
    }

    /// Feeds `lines` at `time`; the actions of all of them, described.
    static func receive(_ lines: String..., into machine: inout ConnectionStateMachine, at time: Double = 1) -> [String]
    {
        lines.flatMap { described(machine.lineReceived($0, at: at(time))) }
    }

    /// A machine registered as `bot` on a server without CAP, past the welcome burst (its channels
    /// joined, its queue sending).
    static func registered(_ configuration: IRCClientConfiguration = configuration()) -> ConnectionStateMachine {
        var machine = machine(configuration)
        _ = machine.connected(at: at(0))
        _ = receive(
            ":srv 421 * CAP :Unknown command", ":srv 001 bot :Welcome", ":srv 376 bot :End of MOTD", into: &machine)
        return machine
    }

    // MARK: Registration

    @Test func registrationWithoutCAPJoinsTheChannelsAfterTheWelcome() {
        var machine = Self.machine()
        #expect(
            Self.described(machine.connected(at: Self.at(0))) == [
                "emit connected(host: \"irc.example\", port: 6697)", "write CAP LS 302", "write NICK bot",
                "write USER otm 0 * :Map bot",
            ])
        #expect(Self.receive(":srv 421 * CAP :Unknown command", into: &machine).isEmpty)
        #expect(!machine.registration.capabilities.isNegotiating)
        // The JOINs wait for the end of the welcome burst (the MOTD's 376, or 422 for none).
        #expect(Self.receive(":srv 001 bot :Welcome", into: &machine) == ["emit registered(nick: \"bot\")"])
        #expect(Self.receive(":srv 376 bot :End of MOTD", into: &machine) == ["write JOIN #class", "start sending"])
        #expect(Self.receive(":srv 422 bot :MOTD File is missing", into: &machine).isEmpty)
        #expect(machine.isRegistered)
        #expect(machine.currentNick == "bot")
    }

    @Test func registrationWithCAPRequestsWhatIsOfferedAndEndsNegotiation() {
        var machine = Self.machine()
        _ = machine.connected(at: Self.at(0))
        #expect(
            Self.receive(":srv CAP * LS :multi-prefix sasl=PLAIN away-notify", into: &machine) == [
                "write CAP REQ multi-prefix"
            ])
        #expect(Self.receive(":srv CAP * ACK :multi-prefix", into: &machine) == ["write CAP END"])
        #expect(machine.enabledCapabilities == ["multi-prefix"])
        #expect(Self.receive(":srv 001 bot :Welcome", into: &machine).contains("emit registered(nick: \"bot\")"))
    }

    @Test func saslPlainLogsInBeforeTheCapabilityNegotiationEnds() {
        let sasl = IRCClientConfiguration.SASL(mechanism: .plain, username: "bot", password: "secret")
        var machine = Self.machine(Self.configuration(sasl: sasl))
        _ = machine.connected(at: Self.at(0))
        #expect(Self.receive(":srv CAP * LS :sasl=PLAIN,EXTERNAL", into: &machine) == ["write CAP REQ sasl"])
        #expect(Self.receive(":srv CAP * ACK :sasl", into: &machine) == ["write AUTHENTICATE PLAIN"])
        let payload = Self.receive("AUTHENTICATE +", into: &machine)
        #expect(payload == ["write AUTHENTICATE \(SASLPayload.base64(Array("bot\0bot\0secret".utf8)))"])
        #expect(
            Self.receive(":srv 900 bot bot!otm@h bot :You are now logged in", into: &machine) == [
                "emit loggedIn(account: \"bot\")"
            ])
        #expect(Self.receive(":srv 903 bot :SASL successful", into: &machine) == ["write CAP END"])
        #expect(machine.account == "bot")
        #expect(Self.receive(":srv 001 bot :Welcome", into: &machine).contains("emit registered(nick: \"bot\")"))
    }

    /// Services were down when the client registered (no `sasl` offered); when they come back
    /// (`CAP NEW sasl`) the client logs in then. A client whose password the server refused does not
    /// try again.
    @Test func saslOfferedAnewAfterRegistrationLogsInThen() {
        let sasl = IRCClientConfiguration.SASL(mechanism: .plain, username: "bot", password: "secret")
        var machine = Self.machine(Self.configuration(sasl: sasl))
        _ = machine.connected(at: Self.at(0))
        _ = Self.receive(":srv CAP * LS :multi-prefix", ":srv CAP * ACK :multi-prefix", into: &machine)
        _ = Self.receive(":srv 001 bot :Welcome", into: &machine)
        #expect(machine.account == nil)
        #expect(Self.receive(":srv CAP bot NEW :sasl=PLAIN", into: &machine) == ["write CAP REQ sasl"])
        #expect(Self.receive(":srv CAP bot ACK :sasl", into: &machine) == ["write AUTHENTICATE PLAIN"])
        #expect(
            Self.receive("AUTHENTICATE +", into: &machine) == [
                "write AUTHENTICATE \(SASLPayload.base64(Array("bot\0bot\0secret".utf8)))"
            ])
        #expect(
            Self.receive(":srv 900 bot bot!otm@h bot :You are now logged in", into: &machine) == [
                "emit loggedIn(account: \"bot\")"
            ])
        #expect(Self.receive(":srv 903 bot :SASL successful", into: &machine).isEmpty)
        #expect(machine.account == "bot")
        // Logged in: a later CAP NEW sasl changes nothing.
        _ = Self.receive(":srv CAP bot DEL :sasl", into: &machine)
        #expect(Self.receive(":srv CAP bot NEW :sasl=PLAIN", into: &machine).isEmpty)

        let refused = IRCClientConfiguration.SASL(mechanism: .plain, username: "bot", password: "wrong")
        var wrong = Self.machine(Self.configuration(sasl: refused))
        _ = wrong.connected(at: Self.at(0))
        _ = Self.receive(":srv CAP * LS :sasl", ":srv CAP * ACK :sasl", "AUTHENTICATE +", into: &wrong)
        _ = Self.receive(":srv 904 bot :SASL authentication failed", ":srv 001 bot :Welcome", into: &wrong)
        _ = Self.receive(":srv CAP bot DEL :sasl", into: &wrong)
        #expect(Self.receive(":srv CAP bot NEW :sasl=PLAIN", into: &wrong).isEmpty)
    }

    @Test func aSASLFailureIsReportedOnceAndNotTriedOnTheNextConnection() {
        let sasl = IRCClientConfiguration.SASL(mechanism: .plain, username: "bot", password: "wrong")
        var machine = Self.machine(Self.configuration(sasl: sasl))
        _ = machine.connected(at: Self.at(0))
        _ = Self.receive(":srv CAP * LS :sasl", ":srv CAP * ACK :sasl", "AUTHENTICATE +", into: &machine)
        #expect(
            Self.receive(":srv 904 bot :SASL authentication failed", into: &machine) == [
                "emit saslFailed(reason: \"904 SASL authentication failed\")", "write CAP END",
            ])
        #expect(Self.receive(":srv 001 bot :Welcome", into: &machine).contains("emit registered(nick: \"bot\")"))
        #expect(machine.fatalReason == nil)

        _ = machine.connectionClosed(reason: "gone", at: Self.at(5))
        _ = machine.connected(at: Self.at(6))
        // SASL is neither requested nor reported failed again.
        #expect(Self.receive(":srv CAP * LS :sasl multi-prefix", into: &machine) == ["write CAP REQ multi-prefix"])
        #expect(Self.receive(":srv CAP * ACK :multi-prefix", into: &machine) == ["write CAP END"])
    }

    @Test func aRequiredSASLLoginThatFailsStopsTheClient() {
        var sasl = IRCClientConfiguration.SASL(mechanism: .plain, username: "bot", password: "wrong")
        sasl.required = true
        var machine = Self.machine(Self.configuration(sasl: sasl))
        _ = machine.connected(at: Self.at(0))
        _ = Self.receive(":srv CAP * LS :sasl", ":srv CAP * ACK :sasl", "AUTHENTICATE +", into: &machine)
        let reason = "SASL authentication failed and is required: 904 bad password"
        #expect(
            Self.receive(":srv 904 bot :bad password", into: &machine) == [
                "emit saslFailed(reason: \"904 bad password\")", "write QUIT Goodbye", "close \(reason)",
            ])
        #expect(machine.fatalReason == reason)
        // A welcome that still arrives does not register the client.
        #expect(Self.receive(":srv 001 bot :Welcome", into: &machine).isEmpty)
        #expect(!machine.isRegistered)
    }

    @Test func aRequiredSASLLoginOnAServerWithoutCAPStopsTheClient() {
        var sasl = IRCClientConfiguration.SASL(mechanism: .plain, username: "bot", password: "pw")
        sasl.required = true
        var machine = Self.machine(Self.configuration(sasl: sasl))
        _ = machine.connected(at: Self.at(0))
        let actions = Self.receive(":srv 421 * CAP :Unknown command", into: &machine)
        #expect(actions.first == "emit saslFailed(reason: \"the server does not support CAP/SASL\")")
        #expect(actions.last?.hasPrefix("close SASL authentication failed and is required") == true)
        #expect(machine.fatalReason != nil)
    }

    @Test func aSASLMechanismTheServerDoesNotOfferIsReportedAndRegistrationGoesOn() {
        let sasl = IRCClientConfiguration.SASL(mechanism: .external, username: "", password: "")
        var configuration = Self.configuration(sasl: sasl)
        configuration.tls.clientCertificateFile = "/etc/bot/cert.pem"
        var machine = Self.machine(configuration)
        _ = machine.connected(at: Self.at(0))
        #expect(
            Self.receive(":srv CAP * LS :sasl=PLAIN", into: &machine) == [
                "emit saslFailed(reason: \"the server offers SASL PLAIN, not EXTERNAL\")", "write CAP REQ sasl",
            ])
        #expect(Self.receive(":srv CAP * ACK :sasl", into: &machine) == ["write CAP END"])
        #expect(machine.fatalReason == nil)
    }

    @Test func externalIsNotTriedWithoutAClientCertificateOrOverPlaintext() {
        let sasl = IRCClientConfiguration.SASL(
            mechanisms: .inOrder([.external, .plain]), username: "bot", password: "pw")
        var configuration = Self.configuration(sasl: sasl)
        configuration.tls.clientCertificateFile = "/etc/bot/cert.pem"
        var machine = Self.machine(configuration)
        _ = machine.connected(at: Self.at(0), secure: false)
        _ = Self.receive(":srv CAP * LS :sasl=PLAIN,EXTERNAL", into: &machine)
        #expect(Self.receive(":srv CAP * ACK :sasl", into: &machine) == ["write AUTHENTICATE PLAIN"])
    }

    @Test func scramFollowsTheRFC7677ExampleThroughTheMachine() {
        let sasl = IRCClientConfiguration.SASL(mechanisms: .automatic, username: "user", password: "pencil")
        var machine = ConnectionStateMachine(
            configuration: Self.configuration(sasl: sasl),
            makeSCRAMNonce: { "rOprNGfwEbeRWgbNEkqO" })
        _ = machine.connected(at: Self.at(0))
        _ = Self.receive(":srv CAP * LS :sasl=PLAIN,SCRAM-SHA-256", into: &machine)
        #expect(Self.receive(":srv CAP * ACK :sasl", into: &machine) == ["write AUTHENTICATE SCRAM-SHA-256"])
        let first = SASLPayload.base64(Array("n,,n=user,r=rOprNGfwEbeRWgbNEkqO".utf8))
        #expect(Self.receive("AUTHENTICATE +", into: &machine) == ["write AUTHENTICATE \(first)"])
        let serverFirst = SASLPayload.base64(Array(SCRAMTests.serverFirst.utf8))
        let final = SASLPayload.base64(
            Array("c=biws,r=\(SCRAMTests.serverNonce),p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=".utf8))
        #expect(Self.receive("AUTHENTICATE \(serverFirst)", into: &machine) == ["write AUTHENTICATE \(final)"])
        let serverFinal = SASLPayload.base64(Array("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=".utf8))
        #expect(Self.receive("AUTHENTICATE \(serverFinal)", into: &machine) == ["write AUTHENTICATE +"])
        _ = Self.receive(":srv 900 bot bot!otm@h user :You are now logged in", into: &machine)
        #expect(Self.receive(":srv 903 bot :SASL successful", into: &machine) == ["write CAP END"])
        #expect(machine.account == "user")
    }

    // MARK: Nick

    @Test func aNickInUseFallsBackThenTheConfiguredNickIsRegained() {
        var machine = Self.machine()
        _ = machine.connected(at: Self.at(0))
        _ = Self.receive(":srv 421 * CAP :Unknown command", into: &machine)
        #expect(Self.receive(":srv 433 * bot :Nickname is already in use", into: &machine) == ["write NICK bot_"])
        let generated = Self.receive(":srv 433 * bot_ :Nickname is already in use", into: &machine)
        #expect(generated.count == 1)
        #expect(generated[0].hasPrefix("write NICK bot") && generated[0].dropFirst(14).allSatisfy(\.isNumber))
        let nick = machine.currentNick
        _ = Self.receive(":srv 001 \(nick) :Welcome", ":srv 376 \(nick) :End of MOTD", into: &machine)
        #expect(machine.currentNick == nick)

        // No MONITOR or WATCH: the configured nick is checked with ISON.
        #expect(Self.described(machine.tick(at: Self.at(2))) == ["queue ISON bot"])
        #expect(Self.described(machine.tick(at: Self.at(3))).isEmpty)
        #expect(Self.receive(":srv 303 \(nick) :bot", into: &machine, at: 4).isEmpty)
        // Free again: taken back at once.
        #expect(Self.receive(":srv 303 \(nick) :", into: &machine, at: 8) == ["queue NICK bot"])
        #expect(
            Self.receive(":\(nick)!otm@h NICK :bot", into: &machine, at: 9) == [
                "emit nickChanged(from: \"\(nick)\", to: \"bot\")"
            ])
        #expect(machine.currentNick == "bot")
        #expect(machine.nextNickRegain == nil)
        #expect(Self.described(machine.tick(at: Self.at(200))).isEmpty)
    }

    @Test func theConfiguredNickIsAskedForAgainEveryIntervalAndWhenItsHolderLeaves() {
        var machine = Self.machine()
        _ = machine.connected(at: Self.at(0))
        _ = Self.receive(":srv 421 * CAP :Unknown command", ":srv 433 * bot :in use", into: &machine)
        _ = Self.receive(":srv 001 bot_ :Welcome", ":srv 376 bot_ :End of MOTD", into: &machine)
        _ = machine.tick(at: Self.at(2))  // the ISON
        #expect(Self.described(machine.tick(at: Self.at(61))) == ["queue NICK bot", "queue ISON bot"])
        #expect(Self.receive(":bot!x@y QUIT :bye", into: &machine, at: 62).contains("queue NICK bot"))
        #expect(Self.receive(":bot!x@y NICK :other", into: &machine, at: 63).contains("queue NICK bot"))
    }

    @Test func withMonitorTheConfiguredNickIsWatchedAndTakenWhenReportedOffline() {
        var machine = Self.machine()
        _ = machine.connected(at: Self.at(0))
        _ = Self.receive(":srv 421 * CAP :Unknown command", ":srv 433 * bot :in use", into: &machine)
        _ = Self.receive(
            ":srv 001 bot_ :Welcome", ":srv 005 bot_ MONITOR=100 :are supported", ":srv 376 bot_ :End of MOTD",
            into: &machine)
        #expect(Self.described(machine.tick(at: Self.at(2))) == ["queue MONITOR + bot"])
        #expect(machine.configuredNickWatched)
        // The configured nick stays watched when the bot's user asks to stop watching it.
        #expect(machine.unwatchPresence(of: "bot").isEmpty)
        // (Whatever waited for a user of that nick is dropped: nobody uses it now.)
        #expect(
            Self.receive(":srv 731 bot_ :bot", into: &machine, at: 5) == [
                "drop lines of quit(nick: \"bot\")", "queue NICK bot",
            ])
    }

    // MARK: Keepalive and timeouts

    @Test func silencePingsTwiceThenDropsTheConnection() {
        var machine = Self.registered(Self.configuration(silence: .seconds(20)))
        #expect(Self.described(machine.tick(at: Self.at(20))).isEmpty)
        #expect(Self.described(machine.tick(at: Self.at(21))) == ["write PING keepalive"])
        #expect(Self.described(machine.tick(at: Self.at(30))).isEmpty)
        #expect(Self.described(machine.tick(at: Self.at(31))) == ["write PING keepalive"])
        #expect(
            Self.described(machine.tick(at: Self.at(41))) == ["close ping timeout: no reply from the server"])
    }

    @Test func anyLineAnswersTheKeepalive() {
        var machine = Self.registered(Self.configuration(silence: .seconds(20)))
        #expect(Self.described(machine.tick(at: Self.at(21))) == ["write PING keepalive"])
        _ = Self.receive(":srv PONG srv :keepalive", into: &machine, at: 25)
        #expect(Self.described(machine.tick(at: Self.at(40))).isEmpty)
        #expect(Self.described(machine.tick(at: Self.at(45))) == ["write PING keepalive"])
    }

    @Test func keepaliveOnItsOwn() {
        var keepalive = Keepalive(.init(pingAfterSilence: .seconds(100), timeout: .seconds(30)))
        keepalive.connected(at: Self.at(0))
        #expect(keepalive.tick(at: Self.at(99)) == .wait)
        #expect(keepalive.tick(at: Self.at(100)) == .ping)
        #expect(keepalive.tick(at: Self.at(129)) == .wait)
        #expect(keepalive.tick(at: Self.at(130)) == .ping)
        keepalive.received(at: Self.at(131))
        #expect(keepalive.tick(at: Self.at(200)) == .wait)
        #expect(keepalive.tick(at: Self.at(231)) == .ping)
        #expect(keepalive.tick(at: Self.at(261)) == .ping)
        #expect(keepalive.tick(at: Self.at(291)) == .timedOut)
    }

    @Test func aRegistrationThatTakesTooLongIsDropped() {
        var machine = Self.machine()
        _ = machine.connected(at: Self.at(0))
        // The server keeps talking (no keepalive ping) but never welcomes the client.
        _ = Self.receive(":srv NOTICE * :*** Looking up your hostname", into: &machine, at: 80)
        #expect(Self.described(machine.tick(at: Self.at(90))).isEmpty)
        #expect(Self.described(machine.tick(at: Self.at(91))) == ["close registration timed out after 90 s"])
    }

    @Test func theServersErrorClosesTheConnection() {
        var machine = Self.registered()
        #expect(
            Self.receive("ERROR :Closing link: (otm@h) [Killed]", into: &machine) == [
                "close server error: Closing link: (otm@h) [Killed]"
            ])
    }

    @Test func aPingIsAnsweredAtOnce() {
        var machine = Self.machine()
        _ = machine.connected(at: Self.at(0))
        #expect(Self.receive("PING :12345", into: &machine) == ["write PONG 12345"])
        #expect(Self.receive("PING", into: &machine) == ["write PONG :"])
    }

    // MARK: Channels

    @Test func aKickIsFollowedByARejoinOnceTheDelayHasPassed() {
        var machine = Self.registered()
        _ = Self.receive(":bot!otm@h JOIN #class", into: &machine)
        #expect(
            Self.receive(":op!o@h KICK #class bot :behave", into: &machine, at: 10) == [
                "drop lines of left(nick: \"bot\", channels: [\"#class\"])",
                "emit kicked(channel: \"#class\", by: \"op\", reason: \"behave\")",
            ])
        #expect(Self.described(machine.tick(at: Self.at(12))).isEmpty)
        #expect(Self.described(machine.tick(at: Self.at(13))) == ["queue JOIN #class"])
        #expect(Self.described(machine.tick(at: Self.at(14))).isEmpty)
    }

    /// A kick from a channel the server spells otherwise is a kick from a wanted channel when the
    /// server's casemapping says the names are one (`[` is `{` under rfc1459, the default), and not
    /// once the server announces `CASEMAPPING=ascii`.
    @Test func aKickIsMatchedToTheWantedChannelUnderTheServersCasemapping() {
        var machine = Self.registered(Self.configuration(channels: ["#Foo[1]"]))
        _ = Self.receive(":bot!otm@h JOIN #foo{1}", into: &machine)
        _ = Self.receive(":op!o@h KICK #foo{1} bot :behave", into: &machine, at: 10)
        #expect(Self.described(machine.tick(at: Self.at(13))) == ["queue JOIN #Foo[1]"])

        var ascii = Self.registered(Self.configuration(channels: ["#Foo[1]"]))
        _ = Self.receive(":srv 005 bot CASEMAPPING=ascii :are supported by this server", into: &ascii)
        _ = Self.receive(":bot!otm@h JOIN #foo{1}", into: &ascii)
        _ = Self.receive(":op!o@h KICK #foo{1} bot :behave", into: &ascii, at: 10)
        #expect(Self.described(ascii.tick(at: Self.at(13))).isEmpty)
        _ = Self.receive(":op!o@h KICK #FOO[1] bot :behave", into: &ascii, at: 20)
        #expect(Self.described(ascii.tick(at: Self.at(23))) == ["queue JOIN #Foo[1]"])
    }

    /// The server's ISUPPORT is told above as typed changes: once per change of a value that matters,
    /// each with its new value, never for tokens nobody reads, and not again after a reconnect to a
    /// server that says the same (a server that says less is told as the defaults coming back).
    @Test func isupportChangesAreToldOnceEachAcrossReconnects() {
        var machine = Self.registered()
        #expect(
            Self.receive(":srv 005 bot CASEMAPPING=ascii NETWORK=Example NICKLEN=30 :are supported", into: &machine)
                == [
                    "emit ISUPPORT CASEMAPPING=ascii NICKLEN=30 NETWORK=Example"
                ])
        #expect(Self.receive(":srv 005 bot WHOX MONITOR=100 :are supported", into: &machine).isEmpty)
        #expect(Self.receive(":srv 005 bot -NETWORK :are supported", into: &machine) == ["emit ISUPPORT -NETWORK"])
        _ = machine.connectionClosed(reason: "reset", at: Self.at(10))
        _ = machine.connected(at: Self.at(11))
        _ = Self.receive(":srv 421 * CAP :Unknown command", ":srv 001 bot :Welcome", into: &machine, at: 11)
        #expect(machine.serverSupport.caseMapping == .rfc1459)
        #expect(
            Self.receive(":srv 005 bot CASEMAPPING=ascii NICKLEN=30 :are supported", into: &machine, at: 11).isEmpty)
        _ = machine.connectionClosed(reason: "reset", at: Self.at(20))
        _ = machine.connected(at: Self.at(21))
        _ = Self.receive(":srv 421 * CAP :Unknown command", ":srv 001 bot :Welcome", into: &machine, at: 21)
        #expect(
            Self.receive(":srv 005 bot CHANTYPES=# :are supported", into: &machine, at: 21) == [
                "emit ISUPPORT CASEMAPPING=rfc1459 CHANTYPES=# NICKLEN=9"
            ])
    }

    /// The bot mode a server names in ISUPPORT (in the 005 lines after 001) is set at the end of the
    /// welcome burst, read back, and only then are the channels joined: a server that keeps `+B`
    /// only for a client in no channel (Solanum) keeps it. Once per connection; the server's 221
    /// or MODE says whether it is set, a later `-B` is followed too.
    @Test func theBotModeIsSetBeforeTheFirstJoinOncePerConnection() {
        var machine = Self.machine()
        _ = machine.connected(at: Self.at(0))
        _ = Self.receive(":srv 421 * CAP :Unknown command", ":srv 001 bot :Welcome", into: &machine)
        #expect(
            Self.receive(":srv 005 bot BOT=B CASEMAPPING=rfc1459 :are supported by this server", into: &machine) == [
                "emit ISUPPORT BOT=B"
            ])
        #expect(machine.botMode == nil)
        #expect(
            Self.receive(":srv 376 bot :End of MOTD", into: &machine) == [
                "write MODE bot +B", "write MODE bot", "write JOIN #class", "start sending",
            ])
        #expect(machine.botMode == BotMode(mode: "B", isSet: false, answered: false))
        #expect(Self.receive(":srv 005 bot BOT=B :are supported by this server", into: &machine).isEmpty)
        _ = Self.receive(":bot MODE bot :+iB", into: &machine)
        #expect(machine.botMode == BotMode(mode: "B", isSet: true, answered: true))
        _ = Self.receive(":srv 221 bot +i", into: &machine)
        #expect(machine.botMode == BotMode(mode: "B", isSet: false, answered: true))
        _ = Self.receive(":srv MODE bot :+B", into: &machine)
        #expect(machine.botMode == BotMode(mode: "B", isSet: true, answered: true))
        _ = Self.receive(":srv MODE bot :-B", into: &machine)
        #expect(machine.botMode == BotMode(mode: "B", isSet: false, answered: true))
        _ = machine.connectionClosed(reason: "reset", at: Self.at(99))
        #expect(machine.botMode == nil)
        _ = machine.connected(at: Self.at(100))
        #expect(machine.botMode == nil)

        var plain = Self.registered()
        #expect(
            Self.receive(":srv 005 bot CASEMAPPING=ascii :are supported by this server", into: &plain) == [
                "emit ISUPPORT CASEMAPPING=ascii"
            ])
        #expect(plain.botMode == nil)
        // Named only after the channels were joined: asked for then (a server may drop it).
        #expect(
            Self.receive(":srv 005 bot BOT=B :are supported by this server", into: &plain) == [
                "emit ISUPPORT BOT=B", "queue MODE bot +B", "queue MODE bot",
            ])
    }

    /// A server that ends its welcome burst with neither 376 nor 422: the client joins when
    /// ``IRCClientConfiguration/welcomeBurstTimeout`` has passed, and not before. An owner's JOIN
    /// meanwhile waits for that round (one JOIN, not two).
    @Test func withoutAnEndOfMOTDTheChannelsAreJoinedAfterTheWait() {
        var machine = Self.machine()
        _ = machine.connected(at: Self.at(0))
        _ = Self.receive(":srv 421 * CAP :Unknown command", ":srv 001 bot :Welcome", into: &machine, at: 1)
        #expect(Self.described(machine.join("#extra", key: nil)).isEmpty)
        #expect(Self.described(machine.tick(at: Self.at(3.9))).isEmpty)
        #expect(
            Self.described(machine.tick(at: Self.at(4))) == ["write JOIN #class", "write JOIN #extra", "start sending"])
        #expect(Self.described(machine.tick(at: Self.at(5))).isEmpty)
        #expect(Self.receive(":srv 376 bot :End of MOTD", into: &machine, at: 6).isEmpty)
    }

    /// An INVITE to a configured channel that refused the client (one that admits it only when
    /// invited) is followed at once, once per refusal; an INVITE anywhere else is not.
    @Test func anInvitationIsFollowedOnlyToAConfiguredChannel() {
        var machine = Self.registered()
        _ = Self.receive(":srv 473 bot #class :Cannot join channel (+B) - bots must be invited", into: &machine, at: 2)
        #expect(Self.receive(":teacher!t@h INVITE bot #class", into: &machine, at: 3) == ["queue JOIN #class"])
        // Once per refusal: invited again before the server answers, no second JOIN.
        #expect(Self.receive(":teacher!t@h INVITE bot #class", into: &machine, at: 3).isEmpty)
        #expect(Self.receive(":teacher!t@h INVITE bot #elsewhere", into: &machine, at: 3).isEmpty)
        #expect(Self.receive(":teacher!t@h INVITE someone #class", into: &machine, at: 3).isEmpty)
        // The retry the refusal scheduled is not due any more.
        #expect(Self.described(machine.tick(at: Self.at(40))).isEmpty)
    }

    /// Standard replies from the server are logged with their command, code, context and text.
    @Test func standardRepliesAreLoggedWithTheirCodeAndText() {
        var machine = Self.registered()
        let logged = [
            ":srv FAIL JOIN CHANNEL_NAME_TOO_LONG #aaaa :Channel name is too long",
            ":srv WARN REHASH CERTS_EXPIRED :Certificate expired",
            ":srv NOTE * OPER_MESSAGE :The server is restarting soon",
        ].flatMap { Self.logged(machine.lineReceived($0, at: Self.at(1))) }
        #expect(
            logged == [
                "warning irc.example says FAIL JOIN CHANNEL_NAME_TOO_LONG (#aaaa): Channel name is too long",
                "warning irc.example says WARN REHASH CERTS_EXPIRED: Certificate expired",
                "info irc.example says NOTE * OPER_MESSAGE: The server is restarting soon",
            ])
    }

    @Test func aRefusedJoinIsRetriedLaterAndAPartedChannelIsNot() {
        var machine = Self.registered()
        #expect(
            Self.receive(":srv 474 bot #class :Cannot join channel (+b)", into: &machine, at: 10) == [
                "emit joinRefused(channel: \"#class\", code: \"474\", reason: \"Cannot join channel (+b)\")"
            ])
        #expect(Self.described(machine.tick(at: Self.at(40))) == ["queue JOIN #class"])
        _ = Self.receive(":srv 474 bot #class :Cannot join channel (+b)", into: &machine, at: 41)
        #expect(Self.described(machine.part("#class", reason: nil)) == ["queue PART #class"])
        #expect(Self.described(machine.tick(at: Self.at(80))).isEmpty)
    }

    @Test func everyWantedChannelIsJoinedAgainAfterAReconnect() {
        var machine = Self.registered()
        #expect(Self.described(machine.join("#extra", key: "key")) == ["queue JOIN #extra key"])
        _ = machine.connectionClosed(reason: "reset", at: Self.at(10))
        #expect(Self.described(machine.join("#late", key: nil)).isEmpty)
        _ = machine.connected(at: Self.at(11))
        _ = Self.receive(":srv 421 * CAP :Unknown command", into: &machine, at: 11)
        #expect(Self.receive(":srv 001 bot :Welcome", into: &machine, at: 12) == ["emit registered(nick: \"bot\")"])
        #expect(
            Self.receive(":srv 422 bot :MOTD File is missing", into: &machine, at: 12) == [
                "write JOIN #class", "write JOIN #extra key", "write JOIN #late", "start sending",
            ])
    }

    @Test func queuedLinesAreDiscardedOnlyAfterALongOutage() {
        var machine = Self.registered()
        #expect(
            Self.described(machine.connectionClosed(reason: "reset", at: Self.at(10))) == [
                "emit disconnected(reason: \"reset\")"
            ])
        _ = machine.connected(at: Self.at(30))
        #expect(!Self.receive(":srv 001 bot :Welcome", into: &machine, at: 31).contains { $0.hasPrefix("discard") })
        _ = machine.connectionClosed(reason: "reset", at: Self.at(40))
        _ = machine.connected(at: Self.at(200))
        #expect(
            Self.receive(":srv 001 bot :Welcome", into: &machine, at: 201).contains("discard queue after 161.0 seconds")
        )
    }

    @Test func aConnectionThatNeverRegisteredEndsAsAFailure() {
        var machine = Self.machine()
        _ = machine.connected(at: Self.at(0))
        #expect(
            Self.described(machine.connectionClosed(reason: "refused", at: Self.at(1))) == [
                "emit connectionFailed(reason: \"refused\")"
            ])
        #expect(!machine.isConnected)
        #expect(Self.described(machine.tick(at: Self.at(500))).isEmpty)
    }

    // MARK: Users

    @Test func privateAndChannelMessagesCarryTheSendersIdentity() {
        var machine = Self.registered()
        let actions = machine.lineReceived("@account=ada :ada!a@host PRIVMSG bot :!ping", at: Self.at(2))
        guard case .emit(.privmsg(let message)) = actions.last else {
            Issue.record("no privmsg in \(actions)")
            return
        }
        #expect(message.sender == UserIdentity(nick: "ada", user: "a", host: "host", account: "ada"))
        #expect(message.isPrivate)
        let inChannel = machine.lineReceived(":ada!a@host NOTICE @#class :hello", at: Self.at(3))
        guard case .emit(.notice(let notice)) = inChannel.last else {
            Issue.record("no notice in \(inChannel)")
            return
        }
        #expect(!notice.isPrivate)
        #expect(notice.replyTarget == "@#class")
    }

    @Test func whoisLookupsAreAnsweredByTheServerOrWhenTheConnectionEnds() {
        var machine = Self.registered()
        #expect(Self.described(machine.askWhois(about: "ada", waiter: 1, at: Self.at(1))) == ["queue WHOIS ada"])
        #expect(Self.described(machine.askWhois(about: "ADA", waiter: 2, at: Self.at(1))).isEmpty)
        #expect(Self.described(machine.askWhois(about: "a b", waiter: 3, at: Self.at(1))) == ["answer [3] nil"])
        let answer = Self.receive(
            ":srv 311 bot ada a host * :Ada", ":srv 330 bot ada ada_acct :is logged in as",
            ":srv 318 bot ada :End of /WHOIS list.", into: &machine)
        let reply = WhoisReply(nick: "ada", user: "a", host: "host", account: "ada_acct")
        #expect(answer == ["answer [1, 2] \(reply)"])

        _ = machine.askWhois(about: "bob", waiter: 4, at: Self.at(2))
        #expect(Self.described(machine.connectionClosed(reason: "reset", at: Self.at(3))).first == "answer [4] nil")
        #expect(Self.described(machine.askWhois(about: "bob", waiter: 5, at: Self.at(4))) == ["answer [5] nil"])
    }

    @Test func textsAreSplitToFitAndKeyedByTheirAsker() {
        let machine = Self.registered()
        let long = String(repeating: "word ", count: 200)
        let lines = machine.lines(
            for: [
                OutgoingText(.privmsg, to: "#class", text: "first\r\nsecond", fairnessKey: "Ada"),
                OutgoingText(.notice, to: "bob", text: long, maxLines: 2),
            ], shrinking: false)
        #expect(lines.map(\.message.command) == ["PRIVMSG", "PRIVMSG", "NOTICE", "NOTICE"])
        #expect(lines.map(\.fairnessKey) == ["ada", "ada", "bob", "bob"])
        #expect(lines.prefix(2).map { $0.message.parameters[1] } == ["first", "second"])
        #expect(lines.allSatisfy { $0.message.serialized().utf8.count <= 512 })
        #expect(lines[0].answer.isChannel && !lines[2].answer.isChannel)
    }
}

/// An action of any event's type, in the words of ``ConnectionStateMachineTests/described(_:)``
/// (nil for the `message` event and for log lines) and as a log line.
protocol DescribedAction {
    var words: String? { get }
    var logLine: (level: Logger.Level, text: String)? { get }
}

extension DescribedAction {
    static func words(of event: IRCEvent) -> String? {
        switch event {
        case .message: nil
        case .serverSupportChanged(let changes): "emit ISUPPORT \(changes.map(\.description).joined(separator: " "))"
        default: "emit \(event)"
        }
    }
}

extension LineAction: DescribedAction {
    var words: String? {
        switch self {
        case .write(let message): "write \(message.serialized())"
        case .enqueue(let message): "queue \(message.serialized())"
        case .emit(let event): Self.words(of: event)
        case .closeConnection(let reason): "close \(reason)"
        case .dropQueuedLines(let departure): "drop lines of \(departure)"
        case .discardQueuedLines(let outage): "discard queue after \(outage)"
        case .startSending: "start sending"
        case .sts(.upgradeToTLS(let port)): "upgrade to TLS on \(port)"
        case .sts(.keepPolicy(let seconds)): "remember STS for \(seconds) s"
        case .answerWhois(let waiters, let reply): "answer \(waiters) \(reply.map { "\($0)" } ?? "nil")"
        case .answerRequest(let waiters, let outcome): "answer request \(waiters) \(outcome)"
        case .log: nil
        }
    }

    var logLine: (level: Logger.Level, text: String)? {
        if case .log(let level, let text) = self { (level, text) } else { nil }
    }
}

extension TickAction: DescribedAction {
    var words: String? {
        switch self {
        case .write(let message): "write \(message.serialized())"
        case .enqueue(let message): "queue \(message.serialized())"
        case .closeConnection(let reason): "close \(reason)"
        case .startSending: "start sending"
        case .answerWhois(let waiters, let reply): "answer \(waiters) \(reply.map { "\($0)" } ?? "nil")"
        case .answerRequest(let waiters, let outcome): "answer request \(waiters) \(outcome)"
        case .log: nil
        }
    }

    var logLine: (level: Logger.Level, text: String)? {
        if case .log(let level, let text) = self { (level, text) } else { nil }
    }
}

extension ConnectedAction: DescribedAction {
    var words: String? {
        switch self {
        case .emit(let event): Self.words(of: event)
        case .write(let message): "write \(message.serialized())"
        }
    }

    var logLine: (level: Logger.Level, text: String)? { nil }
}

extension ClosedAction: DescribedAction {
    var words: String? {
        switch self {
        case .cancelWhois(let waiters): "answer \(waiters) nil"
        case .cancelRequests(let waiters): "answer request \(waiters) \(RequestOutcome.noAnswer)"
        case .emit(let event): Self.words(of: event)
        case .log: nil
        }
    }

    var logLine: (level: Logger.Level, text: String)? {
        if case .log(let level, let text) = self { (level, text) } else { nil }
    }
}

extension RequestAction: DescribedAction {
    var words: String? {
        switch self {
        case .enqueue(let message): "queue \(message.serialized())"
        case .answerWhoisNow(let waiter): "answer [\(waiter)] nil"
        case .answerRequest(let waiter, let outcome): "answer request [\(waiter)] \(outcome)"
        }
    }

    var logLine: (level: Logger.Level, text: String)? { nil }
}
