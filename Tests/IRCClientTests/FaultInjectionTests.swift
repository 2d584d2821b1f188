import BotTesting
import Foundation
import IRCClient
import IRCProtocol
import Logging
import NIOConcurrencyHelpers
import Testing

/// Faults on 127.0.0.1: servers killed at awkward moments, stalled, hostile or lying about
/// their certificate. Each test asserts what the client does about it.
@Suite("Fault injection", .timeLimit(.minutes(1)))
struct FaultInjectionTests {
    static let plaintext = IRCClientConfiguration.TLS(enabled: false)

    /// A server that registers anyone (no capabilities) and confirms JOINs.
    static let registering: ScriptedIRCServer.Responder = { message, _ in
        switch (message.command, message.parameters.first ?? "") {
        case ("CAP", "LS"): return [":srv CAP * LS :"]
        case ("CAP", "END"): return [":srv 001 bot :Welcome", ":srv 376 bot :End of MOTD"]
        case ("JOIN", let channel): return [":bot!otm@127.0.0.1 JOIN \(channel)"]
        default: return []
        }
    }

    /// A server that never says anything.
    static let silent: ScriptedIRCServer.Responder = { _, _ in [] }

    /// How long a step may take on a loaded machine (the whole suite runs in parallel).
    static let patience: Duration = .seconds(30)

    /// Waits until `condition` (about what `server` received) holds, looked at again as each
    /// connection or line arrives; throws `.timeout` naming `what` when it does not within `timeout`.
    static func waitUntil(
        _ what: String,
        on server: ScriptedIRCServer,
        timeout: Duration = patience,
        _ condition: @escaping @Sendable () -> Bool
    ) async throws {
        guard await server.waitUntil(timeout: timeout, condition) else { throw IRCTestSupportError.timeout(what) }
    }

    static func privmsgTexts(_ lines: [String]) -> [String] {
        lines.compactMap { try? IRCMessage(parsing: $0, maxLineBytes: 16_384) }
            .filter { $0.command == "PRIVMSG" }
            .map { $0.parameters.last ?? "" }
    }

    // MARK: Killed and restarted

    @Test func serverKilledDuringRegistrationComesBackAndTheClientRegisters() async throws {
        // The server takes NICK/USER and never answers; it is killed, and comes back a moment later.
        // Meanwhile the client's attempts fail and are spaced by the backoff.
        let log = LogRecord()
        let server = try await ScriptedIRCServer.start(respond: Self.silent)
        let configuration = testConfiguration(
            port: server.port, tls: Self.plaintext, nick: "bot", channels: ["#room"])
        let recorder = await EventRecorder.start(configuration, logger: log.logger())
        _ = try await server.waitForLine(timeout: Self.patience) { $0.command == "USER" }
        server.kill()
        // Come back only after an attempt failed while the server was down.
        try await recorder.waitForCount("two failed attempts", atLeast: 2, timeout: Self.patience) {
            $0.connectionFailureReason != nil
        }
        let restarted = server.restart(respond: Self.registering)
        try await recorder.waitFor("registration", timeout: Self.patience) { $0.isRegistered }
        try await recorder.waitFor("rejoin", timeout: Self.patience) { $0.joinedChannel == "#room" }

        #expect(await recorder.count { $0.isRegistered } == 1)
        let attempts = log.times(of: "Connecting to 127.0.0.1")
        #expect(attempts.count >= 3, "attempts: \(attempts.count)")
        for (earlier, later) in zip(attempts, attempts.dropFirst()) {
            #expect(earlier.duration(to: later) >= configuration.reconnect.minimumDelay)
        }
        #expect(server.receivedLines(fromConnection: restarted).contains("JOIN #room"))
        await recorder.stop()
        await server.stop()
    }

    @Test func serverKilledDuringSASLIsRetriedWithSASLOnTheNextServer() async throws {
        // Killed after the PLAIN payload arrived, before any answer: not a SASL failure, just a lost
        // connection. The restarted server completes SASL and the client logs in.
        let server = try await ScriptedIRCServer.start { message, _ in
            switch (message.command, message.parameters.first ?? "") {
            case ("CAP", "LS"): return [":srv CAP * LS :sasl"]
            case ("CAP", "REQ"): return [":srv CAP * ACK :sasl"]
            case ("AUTHENTICATE", "PLAIN"): return ["AUTHENTICATE +"]
            default: return []
            }
        }
        let sasl = IRCClientConfiguration.SASL(
            mechanism: .plain, username: "bot", password: "pw", required: true)
        let recorder = await EventRecorder.start(
            testConfiguration(port: server.port, tls: Self.plaintext, nick: "bot", sasl: sasl)
        )
        _ = try await server.waitForLine(timeout: Self.patience) {
            $0.command == "AUTHENTICATE" && $0.parameters.first != "PLAIN"
        }
        server.kill()
        // Back only once the client has seen the connection go (before registration it reports the
        // loss as a failed attempt).
        try await recorder.waitFor("the lost connection", timeout: Self.patience) {
            $0.isDisconnected || $0.connectionFailureReason != nil
        }
        let restarted = server.restart(respond: ScriptedServerTests.saslResponder(succeed: true))
        let loggedIn = try await recorder.waitFor(
            "SASL login on the new server", timeout: Self.patience
        ) {
            if case .loggedIn = $0 { true } else { false }
        }
        if case .loggedIn(let account) = loggedIn { #expect(account == "botaccount") }
        try await recorder.waitFor("registration", timeout: Self.patience) { $0.isRegistered }
        #expect(await recorder.count { $0.saslFailureReason != nil } == 0)
        #expect(await recorder.runReturned == false)
        #expect(server.receivedLines(fromConnection: restarted).contains("AUTHENTICATE PLAIN"))
        await recorder.stop()
        await server.stop()
    }

    @Test func repliesQueuedWhenTheServerDiesAreSentOnceAfterTheRejoin() async throws {
        let server = try await ScriptedIRCServer.start(respond: Self.registering)
        var configuration = testConfiguration(
            port: server.port, tls: Self.plaintext, nick: "bot", channels: ["#room"])
        configuration.flood = .init(burst: 1, linesPerSecond: 5)
        let recorder = await EventRecorder.start(configuration)
        try await recorder.waitFor("join", timeout: Self.patience) { $0.joinedChannel == "#room" }
        let texts = (1...15).map { "reply \($0)" }
        for text in texts { await recorder.client.sendPrivmsg(to: "#room", text: text) }
        try await Self.waitUntil("three replies sent", on: server) {
            Self.privmsgTexts(server.receivedLines(connection: 1)).count >= 3
        }
        let killedAt = ContinuousClock.now
        server.kill()
        try await recorder.waitFor("disconnect", timeout: Self.patience) { $0.isDisconnected }
        let noticedAt = await recorder.times { $0.isDisconnected }.first ?? .now
        let queuedAtDisconnect = await recorder.client.queuedLineCount
        #expect(queuedAtDisconnect > 0)
        // Back only after an attempt failed while the server was down.
        try await recorder.waitFor("a failed attempt", timeout: Self.patience, after: await recorder.events.count) {
            $0.connectionFailureReason != nil
        }

        let restarted = server.restart()
        try await Self.waitUntil("the rest of the replies", on: server) {
            Self.privmsgTexts(server.receivedLines(fromConnection: restarted)).count >= queuedAtDisconnect
        }
        // Nothing more may come: once the queue is written, a PING's answer is the client's last line.
        #expect(await recorder.client.waitUntilQueuedLinesAreWritten())
        server.broadcast("PING :all-written")
        _ = try await server.waitForLine(timeout: Self.patience) {
            $0.command == "PONG" && $0.parameters.last == "all-written"
        }
        let before = Self.privmsgTexts(server.receivedLines(connection: 1))
        let after = Self.privmsgTexts(server.receivedLines(fromConnection: restarted))
        // Each line at most once, in order; what was still queued arrives after the reconnect. Lost
        // can be the line in flight when the server died and those the client wrote to the dead
        // socket before it saw the hang-up: one per 200 ms (5 lines/s) from the kill to the
        // disconnect event — at least one more (seen with both cores busy), up to three in CI.
        let writtenBlind = max(1, Int((killedAt.duration(to: noticedAt) / .milliseconds(200)).rounded(.up)))
        #expect(after.count == queuedAtDisconnect)
        #expect(after == Array(texts.suffix(queuedAtDisconnect)))
        #expect(Set(before).isDisjoint(with: after))
        #expect(before == Array(texts.prefix(before.count)))
        #expect(
            before.count + after.count >= texts.count - 1 - writtenBlind,
            "\(texts.count - before.count - after.count) lost; the hang-up was seen after \(killedAt.duration(to: noticedAt))"
        )
        // The JOIN went out before the queued channel lines.
        let lines = server.receivedLines(fromConnection: restarted)
        let join = try #require(lines.firstIndex(of: "JOIN #room"))
        let firstReply = try #require(lines.firstIndex { $0.hasPrefix("PRIVMSG") })
        #expect(join < firstReply)
        await recorder.stop()
        await server.stop()
    }

    @Test func repliesQueuedBeforeALongOutageAreDroppedWithALogLine() async throws {
        let log = LogRecord()
        let server = try await ScriptedIRCServer.start(respond: Self.registering)
        var configuration = testConfiguration(
            port: server.port, tls: Self.plaintext, nick: "bot", channels: ["#room"])
        configuration.flood = .init(burst: 1, linesPerSecond: 2)
        configuration.reconnect.keepQueuedLinesFor = .milliseconds(300)
        let recorder = await EventRecorder.start(configuration, logger: log.logger())
        try await recorder.waitFor("join", timeout: Self.patience) { $0.joinedChannel == "#room" }
        for index in 1...10 {
            await recorder.client.sendPrivmsg(to: "#room", text: "old reply \(index)")
        }
        try await Self.waitUntil("a reply sent", on: server) {
            !Self.privmsgTexts(server.receivedLines(connection: 1)).isEmpty
        }
        server.kill()
        try await recorder.waitFor("disconnect", timeout: Self.patience) { $0.isDisconnected }
        // The outage outlasts the 300 ms the queued lines are kept: its length is the subject.
        try await Task.sleep(for: .milliseconds(800))
        let restarted = server.restart()
        let before = await recorder.events.count
        try await recorder.waitFor("rejoin", timeout: Self.patience, after: before) {
            $0.joinedChannel == "#room"
        }
        await recorder.client.sendPrivmsg(to: "#room", text: "fresh reply")
        try await Self.waitUntil("the fresh reply", on: server) {
            !Self.privmsgTexts(server.receivedLines(fromConnection: restarted)).isEmpty
        }
        #expect(Self.privmsgTexts(server.receivedLines(fromConnection: restarted)) == ["fresh reply"])
        #expect(log.contains("queued line(s): the connection was down for"))
        await recorder.stop()
        await server.stop()
    }

    // MARK: Stalled

    @Test func aServerThatStopsAnsweringIsNoticedByTheKeepalive() async throws {
        // The server accepts the connection and never sends a byte (not even during registration).
        let log = LogRecord()
        let server = try await ScriptedIRCServer.start(respond: Self.silent)
        var configuration = testConfiguration(port: server.port, tls: Self.plaintext, nick: "bot")
        configuration.keepalive = .init(
            pingAfterSilence: .milliseconds(400), timeout: .milliseconds(300))
        let recorder = await EventRecorder.start(configuration, logger: log.logger())
        let failure = try await recorder.waitFor("the keepalive drop", timeout: Self.patience) {
            $0.connectionFailureReason != nil
        }
        #expect(failure.connectionFailureReason?.contains("ping timeout") == true)
        let connected = try #require(log.times(of: "Connecting to 127.0.0.1").first)
        let dropped = try #require(log.times(of: "Dropping the connection: ping timeout").first)
        // A PING after 400 ms of silence, another after 300 ms more, the drop after 300 ms more.
        #expect(connected.duration(to: dropped) >= .milliseconds(1000))
        #expect(connected.duration(to: dropped) < .seconds(10))
        #expect(server.receivedLines(connection: 1).filter { $0.hasPrefix("PING") }.count == 2)
        try await Self.waitUntil("a new attempt", on: server) { server.connectionCount >= 2 }
        await recorder.stop()
        await server.stop()
    }

    @Test func aServerThatNeverFinishesTheTLSHandshakeIsNoticed() async throws {
        // Plain TCP that swallows the ClientHello: the handshake never completes.
        let server = try await ScriptedIRCServer.start(respond: Self.silent)
        let certificateFolder = try TemporaryDirectory(prefix: "stall-tls")
        let certificate = try await TestCertificate.make(in: certificateFolder.path)
        var configuration = testConfiguration(
            port: server.port,
            tls: .init(caFile: certificate.certificatePath, trustSystemRoots: false),
            nick: "bot"
        )
        configuration.keepalive = .init(
            pingAfterSilence: .milliseconds(300), timeout: .milliseconds(300))
        let recorder = await EventRecorder.start(configuration)
        let failure = try await recorder.waitFor("the drop", timeout: Self.patience) {
            $0.connectionFailureReason != nil
        }
        #expect(failure.connectionFailureReason?.contains("ping timeout") == true)
        #expect(Array(server.firstBytes(connection: 1).prefix(2)) == [0x16, 0x03])
        await recorder.stop()
        await server.stop()
    }

    // MARK: Hostile input

    @Test func survivesGarbageInvalidUTF8HugeLinesAndFloodsWithBoundedMemory() async throws {
        let server = try await ScriptedIRCServer.start(respond: Self.registering)
        let configuration = testConfiguration(port: server.port, tls: Self.plaintext, nick: "bot")
        let recorder = await EventRecorder.start(configuration)
        try await recorder.waitFor("registration", timeout: Self.patience) { $0.isRegistered }
        let client = recorder.client
        let residentBefore = Self.residentKilobytes()

        func expectPong(_ token: String) async throws {
            server.broadcast("PING :\(token)")
            _ = try await server.waitForLine(timeout: Self.patience) {
                $0.command == "PONG" && $0.parameters.last == token
            }
        }

        // Garbage and truncated lines.
        for line in [
            ":::: \u{01}garbage", "@", "@a=b", ":", ":srv", ":srv 001", "PRIVMSG", ":n!u@h PRIVMSG",
            "\u{7F}\u{7F}",
        ] {
            server.broadcast(line)
        }
        try await expectPong("after-garbage")

        // Invalid UTF-8 in a command and in a message text: decoded with U+FFFD.
        server.broadcast(bytes: [0xFF, 0xFE, 0xC3, 0x28, 0x0D, 0x0A])
        server.broadcast(
            bytes: Array(":eve!e@h PRIVMSG bot :bad ".utf8) + [0xC3, 0x28, 0xF0, 0x9F] + [0x0D, 0x0A])
        let bad = try await recorder.waitFor("the invalid UTF-8 message", timeout: Self.patience) {
            $0.userMessage?.sender.nick == "eve"
        }
        #expect(bad.userMessage?.text.hasPrefix("bad \u{FFFD}") == true)
        try await expectPong("after-utf8")

        // A line cut in pieces arriving over time is put back together.
        server.broadcast(bytes: Array("PING :pie".utf8))
        try await Task.sleep(for: .milliseconds(100))
        server.broadcast(bytes: Array("ces\r".utf8))
        try await Task.sleep(for: .milliseconds(100))
        server.broadcast(bytes: [0x0A])
        _ = try await server.waitForLine(timeout: Self.patience) {
            $0.command == "PONG" && $0.parameters.last == "pieces"
        }

        // 10 MB without a line end, then a real line: the giant is dropped without being buffered.
        server.broadcast(bytes: [UInt8](repeating: UInt8(ascii: "A"), count: 10 * 1024 * 1024))
        server.broadcast("")
        try await expectPong("after-10MB")
        #expect(client.inboundStatistics.droppedLineCount >= 1)

        // 10,000 lines in one write.
        var flood: [UInt8] = []
        for index in 1...10_000 { flood += Array(":mallory!m@h PRIVMSG bot :flood \(index)\r\n".utf8) }
        server.broadcast(bytes: flood)
        try await expectPong("after-flood")
        try await recorder.waitFor("the last flood line", timeout: Self.patience) {
            $0.userMessage?.text == "flood 10000"
        }

        // Still registered, never disconnected; the decoder never held more than its limit plus one read.
        #expect(await client.isRegistered)
        #expect(await recorder.count { $0.isDisconnected } == 0)
        let highWater = client.inboundStatistics.bufferedBytesHighWaterMark
        #expect(highWater >= configuration.maximumLineLength, "high-water \(highWater)")
        #expect(highWater <= configuration.maximumLineLength + 128 * 1024, "high-water \(highWater)")
        // A generous sanity bound on the whole test process (the server's own 10 MB write included).
        if let before = residentBefore, let after = Self.residentKilobytes() {
            #expect(after - before < 256 * 1024, "VmRSS grew from \(before) kB to \(after) kB")
        }
        await recorder.stop()
        await server.stop()
    }

    static func residentKilobytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            return nil
        }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    // MARK: TLS refusals

    /// Runs a TLS server presenting `certificate`, lets the client try with `tls`, and checks that it is
    /// refused with a log line containing `logText`, retried with backoff, never registered and never
    /// sent a plaintext byte.
    static func expectRefusal(
        presenting certificate: TestCertificate,
        tls: IRCClientConfiguration.TLS,
        logText: String
    ) async throws {
        let log = LogRecord()
        let server = try await ScriptedIRCServer.start(
            certificate: certificate, respond: Self.registering)
        let configuration = testConfiguration(port: server.port, tls: tls, nick: "bot")
        let recorder = await EventRecorder.start(configuration, logger: log.logger())
        try await recorder.waitForCount("a second failed attempt", atLeast: 2, timeout: Self.patience) {
            $0.connectionFailureReason != nil
        }
        let attempts = log.times(of: "Connecting to 127.0.0.1")
        #expect(attempts.count >= 2)
        for (earlier, later) in zip(attempts, attempts.dropFirst()) {
            #expect(earlier.duration(to: later) >= configuration.reconnect.minimumDelay)
        }
        await recorder.stop()
        await server.stop()
        #expect(await recorder.count { $0.isRegistered } == 0)
        // One error line per refused attempt says what is wrong.
        let refusals = log.messages.filter { $0.hasPrefix("error") && $0.contains(logText) }
        #expect(refusals.count >= 2, "log:\n\(log.messages.joined(separator: "\n"))")
        // Every connection the server saw began with a TLS handshake record; no line was ever read.
        #expect(server.firstBytes(connection: 1).count >= 2)
        for connection in 1...server.connectionCount {
            let bytes = server.firstBytes(connection: connection)
            #expect(
                bytes.isEmpty || Array(bytes.prefix(2)) == [0x16, 0x03],
                "connection \(connection): \(bytes)")
            #expect(server.receivedLines(connection: connection).isEmpty)
        }
    }

    @Test func refusesACertificateForAnotherHostName() async throws {
        let folder = try TemporaryDirectory(prefix: "tls-name")
        let certificate = try await TestCertificate.make(
            in: folder.path,
            commonName: "irc.other.example",
            subjectAltName: "DNS:irc.other.example"
        )
        try await Self.expectRefusal(
            presenting: certificate,
            tls: .init(caFile: certificate.certificatePath, trustSystemRoots: false),
            logText: "it is for irc.other.example, not for 127.0.0.1"
        )
    }

    @Test func refusesASelfSignedCertificateThatIsNotTrusted() async throws {
        let folder = try TemporaryDirectory(prefix: "tls-self")
        let certificate = try await TestCertificate.make(in: folder.path, name: "server")
        let other = try await TestCertificate.make(in: folder.path, name: "other")
        try await Self.expectRefusal(
            presenting: certificate,
            tls: .init(caFile: other.certificatePath, trustSystemRoots: false),
            logText: "it is self-signed and not among the trusted certificates"
        )
    }

    @Test func refusesAnExpiredCertificate() async throws {
        let folder = try TemporaryDirectory(prefix: "tls-expired")
        let certificate = try await TestCertificate.makeExpired(in: folder.path)
        try await Self.expectRefusal(
            presenting: certificate,
            tls: .init(caFile: certificate.certificatePath, trustSystemRoots: false),
            logText: "it expired on 2020-02-01"
        )
    }

    @Test func refusesACertificateThatDoesNotMatchThePin() async throws {
        let folder = try TemporaryDirectory(prefix: "tls-pin")
        let certificate = try await TestCertificate.make(in: folder.path, name: "server")
        let other = try await TestCertificate.make(in: folder.path, name: "other")
        try await Self.expectRefusal(
            presenting: certificate,
            tls: .init(caFile: certificate.certificatePath, pinnedFingerprint: other.sha256Fingerprint),
            logText: "fingerprint \(certificate.sha256Fingerprint) does not match the pinned"
        )
    }
}

/// Log lines captured for assertions, as "level message", with the instant each was logged (the client
/// logs synchronously, so these times are exact, unlike those of events read from its stream).
final class LogRecord: Sendable {
    private let lines = NIOLockedValueBox<[(ContinuousClock.Instant, String)]>([])
    /// The same lines, for waits that wake as each is logged.
    private let arriving = WaitableLines()

    var messages: [String] { lines.withLockedValue { $0.map(\.1) } }

    func contains(_ text: String) -> Bool { messages.contains { $0.contains(text) } }

    /// When lines containing `text` were logged.
    func times(of text: String) -> [ContinuousClock.Instant] {
        lines.withLockedValue { $0.filter { $0.1.contains(text) }.map(\.0) }
    }

    func append(_ line: String) {
        lines.withLockedValue { $0.append((.now, line)) }
        arriving.append(line)
    }

    /// Waits for a line containing `text` (woken as each line is logged); false when `timeout`
    /// passed first.
    func waitFor(_ text: String, timeout: Duration = .seconds(30)) async -> Bool {
        await arriving.wait(timeout: timeout) { $0.contains { $0.contains(text) } }
    }

    /// A logger at `info` level writing here.
    func logger() -> Logger {
        var logger = Logger(label: "IRCClient", factory: { _ in RecordingLogHandler(record: self) })
        logger.logLevel = .info
        return logger
    }
}

struct RecordingLogHandler: LogHandler {
    let record: LogRecord
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        record.append("\(event.level) \(event.message)")
    }
}
