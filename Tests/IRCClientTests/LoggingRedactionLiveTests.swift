import BotTesting
import Foundation
import IRCClient
import IRCProtocol
import Logging
import Testing

/// Collects every log line (message and metadata) in memory.
final class CapturedLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: String { lock.withLock { lines.joined(separator: "\n") } }

    func logger() -> Logger {
        var logger = Logger(label: "test-capture") { _ in CapturingHandler(log: self) }
        logger.logLevel = .trace
        return logger
    }
}

struct CapturingHandler: LogHandler {
    let log: CapturedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        log.append("\(event.level) \(event.message) \(event.metadata ?? [:])")
    }
}

@Suite("Log redaction, live", .timeLimit(.minutes(1)))
struct LoggingRedactionLiveTests {
    @Test func traceLogsNeverContainCredentials() async throws {
        let server = try await ScriptedServerTests.saslServer(succeed: true)
        let captured = CapturedLog()
        let password = "hunter2-sasl-secret"
        let configuration = testConfiguration(
            port: server.port,
            tls: .init(enabled: false),
            nick: "bot",
            sasl: .init(mechanism: .plain, username: "bot", password: password)
        )
        let client = IRCClient(configuration: configuration, logger: captured.logger())
        let runner = Task { await client.run() }
        let registered = TestSignal()
        let events = Task { () -> IRCUserMessage? in
            for await event in client.events {
                if case .registered = event { registered.signal() }
                if case .privmsg(let message) = event, message.text.hasPrefix("!login") { return message }
            }
            return nil
        }
        try #require(await registered.wait(timeout: .seconds(30)), "the client did not register")
        server.broadcast(":alice!al@host PRIVMSG bot :!login alice@example.com hunter3-user-secret")
        server.broadcast(":alice!al@host PRIVMSG bot :login alice@example.com hunter4-user-secret")
        let received = await events.value
        #expect(received?.sender.nick == "alice")
        await client.sendPrivmsg(to: "alice", text: "!login is only accepted in private, hunter5-echo")
        // The line has reached the server, so the client has written (and traced) it.
        _ = try await server.waitForLine { $0.command == "PRIVMSG" && $0.parameters.first == "alice" }
        await client.shutdown()
        await runner.value
        await server.stop()

        let text = captured.all
        #expect(text.contains("CAP END"))  // raw traffic was traced
        #expect(text.contains("AUTHENTICATE <redacted>"))
        let payload = SASLPayload.base64(SASLPayload.plain(username: "bot", password: password))
        for secret in [password, payload, String(payload.prefix(20)), "hunter3-user-secret", "hunter4-user-secret"] {
            #expect(!text.contains(secret), "log leaked \(secret)")
        }
        #expect(!text.contains("hunter5-echo"))
    }

    @Test func configurationDescriptionHidesSecrets() {
        let configuration = IRCClientConfiguration(
            host: "irc.example.org",
            serverPassword: "server-secret",
            nick: "bot",
            sasl: .init(username: "bot", password: "sasl-secret")
        )
        let text = "\(configuration)"
        #expect(text.contains("irc.example.org"))
        #expect(!text.contains("server-secret") && !text.contains("sasl-secret"))
    }
}

@Suite("SendQueue")
struct SendQueueTests {
    @Test func dropsTheOldestLinesWhenFull() {
        var queue = SendQueue(capacity: 3)
        for index in 1...5 { queue.enqueue("PRIVMSG #c :\(index)") }
        #expect(queue.count == 3)
        #expect(queue.takeDroppedCount() == 2)
        #expect(queue.takeDroppedCount() == 0)
        #expect(queue.removeFirst() == "PRIVMSG #c :3")
        #expect(queue.first == "PRIVMSG #c :4")
        for index in 6...200 { queue.enqueue("PRIVMSG #c :\(index)") }
        #expect(queue.count == 3)
        let rest = [queue.removeFirst(), queue.removeFirst(), queue.removeFirst()]
        #expect(rest == ["PRIVMSG #c :198", "PRIVMSG #c :199", "PRIVMSG #c :200"])
        #expect(queue.isEmpty && queue.removeFirst() == nil)
    }
}
