import BotTesting
import IRCClient
import IRCProtocol
import Testing

/// SCRAM and the choice of mechanism against a scripted server: the strongest offered is used, a
/// mechanism the server does not offer is never tried, and a server that cannot prove it knows the
/// password (or misbehaves in any other way) gets no login, no other mechanism, and no retry.
@Suite("SASL mechanisms", .timeLimit(.minutes(1)))
struct SASLMechanismTests {
    static let plaintext = IRCClientConfiguration.TLS(enabled: false)

    static func sasl(
        _ mechanisms: IRCClientConfiguration.SASL.Mechanisms, password: String = SCRAMTestServer.password,
        required: Bool = false
    ) -> IRCClientConfiguration.SASL {
        .init(mechanisms: mechanisms, username: "bot", password: password, required: required)
    }

    /// Runs a client against `server` until it registered (or stopped), and returns the recorder.
    static func run(
        _ sasl: IRCClientConfiguration.SASL, against scram: SCRAMTestServer
    ) async throws -> (EventRecorder, ScriptedIRCServer) {
        let server = try await scram.start()
        let recorder = await EventRecorder.start(
            testConfiguration(port: server.port, tls: plaintext, nick: "bot", sasl: sasl))
        return (recorder, server)
    }

    static func mechanismsTried(_ server: ScriptedIRCServer, connection: Int = 1) -> [String] {
        server.receivedLines(connection: connection).filter {
            ["AUTHENTICATE PLAIN", "AUTHENTICATE EXTERNAL", "AUTHENTICATE SCRAM-SHA-256", "AUTHENTICATE SCRAM-SHA-512"]
                .contains($0)
        }
    }

    /// Waits for registration and checks that SASL failed once with a reason containing `expected`,
    /// `AUTHENTICATE *` ended the exchange when `aborted`, and only `tried` was tried.
    static func expectRefused(
        _ recorder: EventRecorder, _ server: ScriptedIRCServer, reason expected: String, tried: [String],
        aborted: Bool = true
    ) async throws {
        let failed = try await recorder.waitFor("SASL failure") { $0.saslFailureReason != nil }
        #expect(failed.saslFailureReason?.contains(expected) == true, "\(failed)")
        try await recorder.waitFor("registration without an account") { $0.isRegistered }
        #expect(await recorder.client.account == nil)
        #expect(await recorder.count { if case .loggedIn = $0 { true } else { false } } == 0)
        let lines = server.receivedLines(connection: 1)
        #expect(lines.contains("AUTHENTICATE *") == aborted)
        #expect(mechanismsTried(server) == tried)
        #expect(lines.contains("CAP END"))
        await recorder.stop()
        await server.stop()
    }

    @Test func autoUsesSCRAMSHA512WhenTheServerOffersIt() async throws {
        let scram = SCRAMTestServer(offered: "PLAIN,EXTERNAL,SCRAM-SHA-256,SCRAM-SHA-512")
        let (recorder, server) = try await Self.run(Self.sasl(.automatic), against: scram)
        try await recorder.waitFor("login") { if case .loggedIn = $0 { true } else { false } }
        try await recorder.waitFor("registration") { $0.isRegistered }
        #expect(await recorder.client.account == "bot")
        #expect(Self.mechanismsTried(server) == ["AUTHENTICATE SCRAM-SHA-512"])
        let lines = server.receivedLines(connection: 1)
        // The password never crosses the wire, not even base64-encoded.
        let encoded = SASLPayload.base64(Array(SCRAMTestServer.password.utf8))
        #expect(!lines.contains { $0.contains(SCRAMTestServer.password) || $0.contains(encoded) })
        #expect(lines.last { $0.hasPrefix("AUTHENTICATE") } == "AUTHENTICATE +")
        await recorder.stop()
        await server.stop()
    }

    @Test func scramSHA256WithAServerFirstMessageInTwoChunks() async throws {
        let scram = SCRAMTestServer(offered: "SCRAM-SHA-256", fault: .longNonce)
        let (recorder, server) = try await Self.run(Self.sasl(.inOrder([.scramSHA256])), against: scram)
        try await recorder.waitFor("registration") { $0.isRegistered }
        #expect(await recorder.client.account == "bot")
        // client-final repeats the 600-character nonce: it leaves in 400-byte chunks.
        let sizes = server.receivedLines(connection: 1).filter { $0.hasPrefix("AUTHENTICATE ") }.map {
            $0.utf8.count - 13
        }
        #expect(sizes.filter { $0 == 400 }.count >= 2)
        await recorder.stop()
        await server.stop()
    }

    @Test func aWrongServerSignatureEndsSASLWithoutTryingPLAIN() async throws {
        let scram = SCRAMTestServer(offered: "PLAIN,SCRAM-SHA-256", fault: .badSignature)
        let (recorder, server) = try await Self.run(Self.sasl(.inOrder([.scramSHA256, .plain])), against: scram)
        try await Self.expectRefused(
            recorder, server, reason: "signature is wrong", tried: ["AUTHENTICATE SCRAM-SHA-256"])
    }

    @Test func aNonceThatDoesNotExtendOursIsRefusedBeforeAnyProofIsSent() async throws {
        let scram = SCRAMTestServer(offered: "SCRAM-SHA-256", fault: .foreignNonce)
        let (recorder, server) = try await Self.run(Self.sasl(.automatic), against: scram)
        try await Self.expectRefused(recorder, server, reason: "nonce", tried: ["AUTHENTICATE SCRAM-SHA-256"])
        // Three AUTHENTICATE lines: the mechanism, client-first, the abort; no client-final.
        #expect(server.receivedLines(connection: 1).filter { $0.hasPrefix("AUTHENTICATE") }.count == 3)
    }

    @Test func iterationCountsTooLowOrTooHighAreRefused() async throws {
        for count in [1000, 50_000_000] {
            let scram = SCRAMTestServer(offered: "SCRAM-SHA-512", fault: .iterations(count))
            let (recorder, server) = try await Self.run(Self.sasl(.automatic), against: scram)
            try await Self.expectRefused(
                recorder, server, reason: "iteration count (\(count))", tried: ["AUTHENTICATE SCRAM-SHA-512"])
        }
    }

    @Test func malformedServerMessagesAreRefused() async throws {
        for text in ["hello", "r=abc", "i=4096,s=c2FsdA==,r=x"] {
            let scram = SCRAMTestServer(offered: "SCRAM-SHA-256", fault: .serverFirst(text))
            let (recorder, server) = try await Self.run(Self.sasl(.automatic), against: scram)
            try await Self.expectRefused(recorder, server, reason: "malformed", tried: ["AUTHENTICATE SCRAM-SHA-256"])
        }
        // Not base64 at all.
        let server = try await ScriptedIRCServer.start { message, _ in
            switch (message.command, message.parameters.first) {
            case ("CAP", "LS"): [":srv CAP * LS :sasl=SCRAM-SHA-256"]
            case ("CAP", "REQ"): [":srv CAP * ACK :sasl"]
            case ("CAP", "END"): [":srv 001 bot :Welcome"]
            case ("AUTHENTICATE", "SCRAM-SHA-256"): ["AUTHENTICATE +"]
            case ("AUTHENTICATE", "*"): [":srv 906 bot :aborted"]
            case ("AUTHENTICATE", _): ["AUTHENTICATE %%%not-base64%%%"]
            default: []
            }
        }
        let recorder = await EventRecorder.start(
            testConfiguration(port: server.port, tls: Self.plaintext, nick: "bot", sasl: Self.sasl(.automatic)))
        try await Self.expectRefused(recorder, server, reason: "malformed", tried: ["AUTHENTICATE SCRAM-SHA-256"])
    }

    @Test func anErrorInServerFinalIsAFailure() async throws {
        let scram = SCRAMTestServer(offered: "SCRAM-SHA-256", fault: .error("invalid-proof"))
        let (recorder, server) = try await Self.run(Self.sasl(.automatic), against: scram)
        try await Self.expectRefused(recorder, server, reason: "invalid-proof", tried: ["AUTHENTICATE SCRAM-SHA-256"])
    }

    @Test func successBeforeTheServerProvedItKnowsThePasswordIsNotBelieved() async throws {
        let scram = SCRAMTestServer(offered: "SCRAM-SHA-256", fault: .successWithoutProof)
        let (recorder, server) = try await Self.run(Self.sasl(.automatic), against: scram)
        try await Self.expectRefused(
            recorder, server, reason: "without proving", tried: ["AUTHENTICATE SCRAM-SHA-256"], aborted: false)
    }

    @Test func aWrongPasswordFailsOnceAndIsNotRetried() async throws {
        let scram = SCRAMTestServer(offered: "SCRAM-SHA-256")
        let (recorder, server) = try await Self.run(
            Self.sasl(.inOrder([.scramSHA256]), password: "wrong password"), against: scram)
        try await Self.expectRefused(
            recorder, server, reason: "904", tried: ["AUTHENTICATE SCRAM-SHA-256"], aborted: false)
    }

    @Test func aMechanismTheServerDoesNotOfferIsNeverTried() async throws {
        // The list prefers SCRAM-SHA-512, which this server does not offer: PLAIN is the one tried.
        let scram = SCRAMTestServer(offered: "PLAIN,SCRAM-SHA-256")
        let (recorder, server) = try await Self.run(Self.sasl(.inOrder([.scramSHA512, .plain])), against: scram)
        try await recorder.waitFor("registration") { $0.isRegistered }
        #expect(await recorder.client.account == "bot")
        #expect(Self.mechanismsTried(server) == ["AUTHENTICATE PLAIN"])
        await recorder.stop()
        await server.stop()
    }

    @Test func withoutAListTheServers908NarrowsTheFallBack() async throws {
        // `sasl` without a value: SCRAM-SHA-512 is tried, the server answers 908 (PLAIN, SCRAM-SHA-256)
        // and 904; SCRAM-SHA-256 comes next. EXTERNAL (no certificate) is never tried.
        let scram = SCRAMTestServer(offered: "")
        let server = try await ScriptedIRCServer.start { message, _ in
            if message.command == "AUTHENTICATE", message.parameters.first == "SCRAM-SHA-512" {
                return [":srv 908 bot PLAIN,SCRAM-SHA-256 :are available", ":srv 904 bot :SASL authentication failed"]
            }
            return scram.respond(message)
        }
        let recorder = await EventRecorder.start(
            testConfiguration(port: server.port, tls: Self.plaintext, nick: "bot", sasl: Self.sasl(.automatic)))
        try await recorder.waitFor("registration") { $0.isRegistered }
        #expect(await recorder.client.account == "bot")
        #expect(Self.mechanismsTried(server) == ["AUTHENTICATE SCRAM-SHA-512", "AUTHENTICATE SCRAM-SHA-256"])
        await recorder.stop()
        await server.stop()
    }

    @Test func autoNeverSendsPLAINOverPlaintextAndARequiredLoginStopsSayingWhy() async throws {
        let scram = SCRAMTestServer(offered: "PLAIN,EXTERNAL")
        let (recorder, server) = try await Self.run(Self.sasl(.automatic, required: true), against: scram)
        let stopped = try await recorder.waitFor("stop") { if case .stopped = $0 { true } else { false } }
        guard case .stopped(let reason) = stopped else { return }
        #expect(reason?.contains("SASL authentication failed and is required") == true)
        #expect(reason?.contains("the server offers SASL EXTERNAL, PLAIN, not SCRAM-SHA-512 or SCRAM-SHA-256") == true)
        #expect(reason?.contains("auto uses PLAIN over TLS only") == true)
        #expect(await recorder.count { $0.saslFailureReason != nil } == 1)
        #expect(!server.receivedLines(connection: 1).contains { $0.hasPrefix("AUTHENTICATE") })
        #expect(server.connectionCount == 1)
        await recorder.stop()
        await server.stop()
    }
}
