import BotTesting
import IRCClient
import IRCProtocol
import Testing

/// Registration, SASL and keepalive against a scripted server (InspIRCd offers SASL only with services).
@Suite("Scripted server", .timeLimit(.minutes(1)))
struct ScriptedServerTests {
    static let plaintext = IRCClientConfiguration.TLS(enabled: false)

    /// A SASL-capable server: multi-line LS, ACK of whatever is requested, `AUTHENTICATE +`, and the outcome
    /// once the last payload chunk (shorter than 400, or `+`) arrived.
    static func saslServer(succeed: Bool) async throws -> ScriptedIRCServer {
        try await ScriptedIRCServer.start(respond: saslResponder(succeed: succeed))
    }

    static func saslResponder(succeed: Bool) -> ScriptedIRCServer.Responder {
        { message, _ in
            switch message.command {
            case "CAP":
                switch message.parameters.first {
                case "LS":
                    return [
                        ":srv CAP * LS * :multi-prefix sasl=PLAIN,EXTERNAL away-notify",
                        ":srv CAP * LS :server-time account-tag",
                    ]
                case "REQ": return [":srv CAP * ACK :\(message.parameters.last ?? "")"]
                case "END": return [":srv 001 bot :Welcome", ":srv 376 bot :End of MOTD"]
                default: return []
                }
            case "AUTHENTICATE":
                let argument = message.parameters.first ?? ""
                if argument == "PLAIN" { return ["AUTHENTICATE +"] }
                if argument.utf8.count == 400 { return [] }
                return succeed
                    ? [
                        ":srv 900 bot bot!otm@127.0.0.1 botaccount :You are now logged in",
                        ":srv 903 bot :SASL successful",
                    ]
                    : [":srv 904 bot :SASL authentication failed"]
            default:
                return []
            }
        }
    }

    static func sasl(password: String, required: Bool = false) -> IRCClientConfiguration.SASL {
        .init(mechanism: .plain, username: "bot", password: password, required: required)
    }

    @Test func saslPlainSuccessWithChunkedPayload() async throws {
        let server = try await Self.saslServer(succeed: true)
        let password = String(repeating: "p", count: 350)
        let recorder = await EventRecorder.start(
            testConfiguration(
                port: server.port,
                tls: Self.plaintext,
                nick: "bot",
                sasl: Self.sasl(password: password)
            )
        )
        let loggedIn = try await recorder.waitFor("login") { if case .loggedIn = $0 { true } else { false } }
        if case .loggedIn(let account) = loggedIn { #expect(account == "botaccount") }
        try await recorder.waitFor("registration") { $0.isRegistered }
        #expect(await recorder.client.account == "botaccount")

        let lines = server.receivedLines(connection: 1)
        #expect(Array(lines.prefix(3)) == ["CAP LS 302", "NICK bot", "USER otm 0 * :On The Map test bot"])
        #expect(lines.contains("CAP REQ :account-tag multi-prefix sasl server-time"))
        let authenticate = lines.filter { $0.hasPrefix("AUTHENTICATE ") }.map { String($0.dropFirst(13)) }
        #expect(authenticate.first == "PLAIN")
        let chunks = Array(authenticate.dropFirst())
        // 358 payload bytes → 480 base64 characters → 400 + 80.
        #expect(chunks.map(\.utf8.count) == [400, 80])
        #expect(chunks.joined() == SASLPayload.base64(SASLPayload.plain(username: "bot", password: password)))
        let capEnd = try #require(lines.firstIndex(of: "CAP END"))
        let lastAuthenticate = try #require(lines.lastIndex { $0.hasPrefix("AUTHENTICATE") })
        #expect(capEnd > lastAuthenticate)
        await recorder.stop()
        await server.stop()
    }

    @Test func saslFailureIsReportedOnceAndNotRetried() async throws {
        let server = try await Self.saslServer(succeed: false)
        let recorder = await EventRecorder.start(
            testConfiguration(
                port: server.port,
                tls: Self.plaintext,
                nick: "bot",
                sasl: Self.sasl(password: "wrong")
            )
        )
        let failed = try await recorder.waitFor("SASL failure") { $0.saslFailureReason != nil }
        #expect(failed.saslFailureReason?.contains("904") == true)
        try await recorder.waitFor("registration without SASL") { $0.isRegistered }
        #expect(server.receivedLines(connection: 1).contains("CAP END"))

        // Lose the connection: the client reconnects without trying SASL again.
        let before = await recorder.events.count
        server.dropConnections()
        try await recorder.waitFor("registration again", after: before) { $0.isRegistered }
        let second = server.receivedLines(connection: 2)
        #expect(!second.contains { $0.hasPrefix("AUTHENTICATE") })
        #expect(second.contains("CAP REQ :account-tag multi-prefix server-time"))
        #expect(await recorder.count { $0.saslFailureReason != nil } == 1)
        #expect(server.receivedLines(connection: 1).filter { $0 == "AUTHENTICATE PLAIN" }.count == 1)
        await recorder.stop()
        await server.stop()
    }

    @Test func requiredSASLFailureStopsTheClient() async throws {
        let server = try await Self.saslServer(succeed: false)
        let recorder = await EventRecorder.start(
            testConfiguration(
                port: server.port,
                tls: Self.plaintext,
                nick: "bot",
                sasl: Self.sasl(password: "wrong", required: true)
            )
        )
        try await recorder.waitFor("SASL failure") { $0.saslFailureReason != nil }
        let stopped = try await recorder.waitFor("stop") { if case .stopped = $0 { true } else { false } }
        if case .stopped(let reason) = stopped { #expect(reason?.contains("SASL") == true) }
        try await recorder.waitForRunToReturn()
        #expect(server.connectionCount == 1)
        #expect(await recorder.count { $0.isRegistered } == 0)
        // The QUIT left before the close; the server may read it a moment after run() returned.
        _ = try await server.waitForLine { $0.command == "QUIT" }
        await server.stop()
    }

    @Test func requiredSASLWithoutServerSupportStops() async throws {
        let server = try await ScriptedIRCServer.start { message, _ in
            message.command == "CAP" && message.parameters.first == "LS"
                ? [":srv CAP * LS :multi-prefix"] : []
        }
        let recorder = await EventRecorder.start(
            testConfiguration(
                port: server.port,
                tls: Self.plaintext,
                nick: "bot",
                sasl: Self.sasl(password: "x", required: true)
            )
        )
        let failure = try await recorder.waitFor("SASL unavailable") { $0.saslFailureReason != nil }
        #expect(failure.saslFailureReason?.contains("does not offer SASL") == true)
        try await recorder.waitForRunToReturn()
        await server.stop()
    }

    @Test func serverWithoutCAPAndNickInUse() async throws {
        // No CAP support (421), the wanted nick is taken, the alternate works; later the nick is regained.
        let server = try await ScriptedIRCServer.start { message, _ in
            switch (message.command, message.parameters.first ?? "") {
            case ("CAP", _): return [":srv 421 * CAP :Unknown command"]
            case ("NICK", "bot"): return [":srv 433 * bot :Nickname is already in use"]
            case ("NICK", "bot_"):
                return [":srv 001 bot_ :Welcome", ":srv 005 bot_ CASEMAPPING=ascii :are supported"]
            default: return []
            }
        }
        let recorder = await EventRecorder.start(
            testConfiguration(port: server.port, tls: Self.plaintext, nick: "bot")
        )
        let registered = try await recorder.waitFor("registration") { $0.isRegistered }
        if case .registered(let nick) = registered { #expect(nick == "bot_") }
        #expect(await recorder.client.currentNick == "bot_")
        #expect(!server.receivedLines(connection: 1).contains("CAP END"))
        // The holder quits: the client takes its nick back.
        server.broadcast(":bot!old@host QUIT :gone")
        await server.waitUntil { server.receivedLines(connection: 1).filter { $0 == "NICK bot" }.count >= 2 }
        #expect(server.receivedLines(connection: 1).filter { $0 == "NICK bot" }.count >= 2)
        server.broadcast(":bot_!otm@127.0.0.1 NICK :bot")
        try await recorder.waitFor("nick change") {
            if case .nickChanged(_, "bot") = $0 { true } else { false }
        }
        #expect(await recorder.client.currentNick == "bot")
        await recorder.stop()
        await server.stop()
    }

    @Test func pingTimeoutDropsAndReconnects() async throws {
        // The server registers the client, then never answers anything (not even PING).
        let server = try await ScriptedIRCServer.start { message, connection in
            if message.command == "CAP", message.parameters.first == "LS" { return [":srv CAP * LS :"] }
            if message.command == "CAP", message.parameters.first == "END" {
                return [":srv 001 bot :Welcome"]
            }
            return []
        }
        var configuration = testConfiguration(port: server.port, tls: Self.plaintext, nick: "bot")
        configuration.keepalive = .init(pingAfterSilence: .milliseconds(300), timeout: .milliseconds(300))
        let recorder = await EventRecorder.start(configuration)
        try await recorder.waitFor("registration") { $0.isRegistered }
        let disconnect = try await recorder.waitFor("ping timeout") { $0.isDisconnected }
        if case .disconnected(let reason) = disconnect { #expect(reason.contains("ping timeout")) }
        // A PING, one retry, then the drop. On a loaded machine the 001 can arrive after a first
        // PING went out; a received line resets the silence, so up to one more PING is legitimate.
        let pings = server.receivedLines(connection: 1).filter { $0.hasPrefix("PING") }.count
        #expect((2...3).contains(pings), "\(pings) PINGs")
        try await recorder.waitFor("second registration") { _ in server.connectionCount >= 2 }
        await recorder.stop()
        await server.stop()
    }

    @Test func answersPingAndSurvivesGarbage() async throws {
        let server = try await ScriptedIRCServer.start { message, _ in
            if message.command == "CAP", message.parameters.first == "LS" { return [":srv CAP * LS :"] }
            if message.command == "CAP", message.parameters.first == "END" {
                return [":srv 001 bot :Welcome"]
            }
            return []
        }
        let recorder = await EventRecorder.start(
            testConfiguration(port: server.port, tls: Self.plaintext, nick: "bot")
        )
        try await recorder.waitFor("registration") { $0.isRegistered }
        server.broadcast(":::: \u{01}garbage")
        server.broadcast("@ ")
        server.broadcast("PING :token123")
        let pong = try await server.waitForLine { $0.command == "PONG" }
        #expect(pong.parameters == ["token123"])
        #expect(await recorder.client.isRegistered)
        await recorder.stop()
        await server.stop()
    }

    @Test func cancellingTheRunTaskStopsTheClient() async throws {
        let server = try await ScriptedIRCServer.start { message, _ in
            if message.command == "CAP", message.parameters.first == "LS" { return [":srv CAP * LS :"] }
            if message.command == "CAP", message.parameters.first == "END" { return [":srv 001 bot :Welcome"] }
            return []
        }
        let client = IRCClient(configuration: testConfiguration(port: server.port, tls: Self.plaintext, nick: "bot"))
        let runner = Task { await client.run() }
        let registered = TestSignal()
        let lastEvent = Task { () -> IRCEvent? in
            var last: IRCEvent?
            for await event in client.events {
                if case .registered = event { registered.signal() }
                last = event
            }
            return last  // the stream finishes when run() returns
        }
        try #require(await registered.wait(timeout: .seconds(30)), "the client did not register")
        runner.cancel()
        await runner.value
        let final = await lastEvent.value
        if case .stopped(let reason) = final {
            #expect(reason == nil)
        } else {
            Issue.record("expected .stopped as the last event, got \(String(describing: final))")
        }
        #expect(await client.isRegistered == false)
        await server.stop()
    }
}
