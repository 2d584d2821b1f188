import BotKit
import BotTesting
import ClassKit
import Foundation
import IRCClient
import IRCProtocol
import Logging
import OnTheMapApp
import OnTheMapService
import SQLiteDirectory
import NIOConcurrencyHelpers
import Testing

/// Every log line, at trace level, rendered with its metadata; a test can wait for one.
final class LogRecorder: Sendable {
    let lines = WaitableLines()
    func append(_ line: String) { lines.append(line) }
    var all: [String] { lines.lines }

    /// Waits (woken by each logged line) until a line contains `text`; false after `timeout`.
    @discardableResult
    func waitFor(_ text: String, timeout: Duration = .seconds(30)) async -> Bool {
        await lines.wait(timeout: timeout) { $0.contains { $0.contains(text) } }
    }

    /// A logger at trace level writing here.
    func logger() -> Logger {
        var logger = Logger(
            label: "hostile", factory: { [self] label in RecordingLogHandler(label: label, recorder: self) })
        logger.logLevel = .trace
        return logger
    }
}

struct RecordingLogHandler: LogHandler {
    let label: String
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let fields = all.keys.sorted().map { "\($0)=\(all[$0].map { "\($0)" } ?? "")" }.joined(separator: " ")
        let level = event.level
        let message = event.message
        if let error = event.error { recorder.append("\(level) [\(label)] error: \(error)") }
        recorder.append("\(level) [\(label)] \(message) \(fields)")
    }
}

/// The whole bot (real IRC client, identity tracking, router, plugins, SQLite) against a scripted
/// IRC server that plays what a network with services would send: extended-join, account tags,
/// `ACCOUNT *`, NICK, QUIT, and a line split at a line feed.
@Suite(.serialized, .timeLimit(.minutes(3))) struct HostileScenarioTests {
    static let jane = (email: "jane@class.test", password: "jane-Secret-Pw-1")
    static let tom = (email: "tom@class.test", password: "tom-Secret-Pw-22")

    /// A bot connected to a scripted server; `send` plays a server line, `reply` waits for the
    /// bot's next PRIVMSG or NOTICE to a target.
    final class Harness: Sendable {
        let server: ScriptedIRCServer
        let bot: BotService
        let network: PlayedNetwork
        let running: Task<BotService.Outcome, Never>
        private let seen = NIOLockedValueBox<Int>(0)

        init(server: ScriptedIRCServer, bot: BotService, network: PlayedNetwork) {
            self.server = server
            self.bot = bot
            self.network = network
            self.running = Task { await bot.runUntilStopped() }
        }

        func send(_ line: String) {
            network.played(line)
            server.broadcast(line)
        }

        /// The texts the bot sent to `target` since the last call (waiting for at least one).
        func replies(to target: String, timeout: Duration = .seconds(40)) async throws -> [String] {
            let server = self.server
            let start = seen.withLockedValue { $0 }
            let answers = { @Sendable () -> [IRCMessage] in
                server.receivedLines().dropFirst(start).compactMap {
                    try? IRCMessage(parsing: $0, maxLineBytes: 16_384)
                }
                .filter { ["PRIVMSG", "NOTICE"].contains($0.command) && $0.parameters.first == target }
            }
            // Looked at as each line arrives.
            guard await server.waitUntil(timeout: timeout, { !answers().isEmpty }) else {
                throw IRCTestSupportError.timeout(
                    "no reply to \(target); got \(server.receivedLines().suffix(5))")
            }
            // The rest of a multi-line answer has no end mark. Once the command is done and every
            // line it queued is written, a PING's PONG (written after them on the same connection)
            // arrives last: the answer is whole when the PONG is in.
            await bot.router.waitUntilIdle()
            _ = await bot.client.waitUntilQueuedLinesAreWritten()
            let token = "whole-\(seen.withLockedValue { $0 })"
            server.broadcast("PING :\(token)")
            let ponged = { @Sendable () -> Bool in
                server.receivedLines().dropFirst(start).contains { $0.hasPrefix("PONG") && $0.hasSuffix(token) }
            }
            guard await server.waitUntil(timeout: timeout, ponged)
            else { throw IRCTestSupportError.timeout("no PONG to \(token)") }
            seen.withLockedValue { $0 = server.receivedLines().count }
            return answers().compactMap(\.parameters.last)
        }

        /// `nick!user@host` says `text` privately to the bot (with an account tag when given).
        func privately(_ source: String, _ text: String, account: String? = nil) {
            send("\(account.map { "@account=\($0) " } ?? ""):\(source) PRIVMSG MapBot :\(text)")
        }

        func stop() async {
            await bot.shutdown()
            _ = await running.value
            await server.stop()
        }
    }

    static func withHarness(
        logger: Logger = Logger(label: "quiet", factory: { _ in SwiftLogNoOpLogHandler() }),
        _ body: (Harness) async throws -> Void
    ) async throws {
        let folder = try TemporaryDirectory(prefix: "hostile-scenario")
        let database = folder.file("class.sqlite")
        let setup = try SQLiteStudentDirectory(path: database)
        _ = try await setup.addAccount(
            email: jane.email, password: jane.password, firstName: "Jane", lastName: "Doe")
        _ = try await setup.addAccount(
            email: tom.email, password: tom.password, firstName: "Tom", lastName: "Tacoma")
        try setup.close()

        let network = PlayedNetwork()
        let server = try await ScriptedIRCServer.start { message, _ in
            switch message.command {
            case "WHOIS":
                return network.whoisReply(for: message.parameters.last ?? "")
            case "CAP":
                switch message.parameters.first {
                case "LS": return [":srv CAP * LS :account-tag extended-join account-notify multi-prefix"]
                case "REQ": return [":srv CAP * ACK :\(message.parameters.last ?? "")"]
                case "END":
                    return [
                        ":srv 001 MapBot :Welcome",
                        ":srv 005 MapBot CASEMAPPING=rfc1459 CHANTYPES=# :are supported",
                        ":srv 376 MapBot :End of MOTD",
                    ]
                default: return []
                }
            case "JOIN":
                let channel = message.parameters.first ?? "#class"
                return [
                    ":MapBot!otm@127.0.0.1 JOIN \(channel) * :bot",
                    ":srv 366 MapBot \(channel) :End of /NAMES list.",
                ]
            case "PING":
                return [":srv PONG srv :\(message.parameters.last ?? "")"]
            default:
                return []
            }
        }
        let config = try ConfigLoader.parse(
            yaml: """
                irc:
                  server: 127.0.0.1
                  port: \(server.port)
                  tls: false
                  nick: MapBot
                  channels: ["#class"]
                  announce_to: ["#class"]
                  flood: {burst: 20, lines_per_second: 10}
                service:
                  database: \(database)
                privacy:
                  open_channel: full   # the scripted server says no channel modes: the full texts are tested
                """)
        let bot = try await BotAssembly.makeService(config: config, logger: logger)
        let harness = Harness(server: server, bot: bot, network: network)
        do {
            _ = try await server.waitForLine(timeout: .seconds(20)) { $0.command == "JOIN" }
            // The client handles the server's lines in order: once it answers a later PING, it has
            // taken in what the server said about the join.
            server.broadcast("PING :joined")
            _ = try await server.waitForLine(timeout: .seconds(30)) {
                $0.command == "PONG" && $0.parameters.last == "joined"
            }
            try await body(harness)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    /// Who is connected, as the lines the test plays say: each new `nick!user@host` is a new connection
    /// with its own sign-on time, a QUIT ends it, a NICK moves it; WHOIS is answered from it.
    final class PlayedNetwork: Sendable {
        private let connections = NIOLockedValueBox<(byNick: [String: (mask: String, signon: Int)], signons: Int)>(
            ([:], 0))

        func played(_ line: String) {
            guard let message = try? IRCMessage(parsing: line.split(separator: "\n").first.map(String.init) ?? line),
                let source = message.sourceIdentity, source.user != nil
            else { return }
            let mask = "\(source.nick)!\(source.user ?? "")@\(source.host ?? "")"
            connections.withLockedValue { state in
                let key = source.nick.lowercased()
                switch message.command {
                case "QUIT":
                    state.byNick[key] = nil
                case "NICK":
                    let old = state.byNick.removeValue(forKey: key)
                    let new = message.parameters.first ?? source.nick
                    let newMask = "\(new)!\(source.user ?? "")@\(source.host ?? "")"
                    state.byNick[new.lowercased()] = (newMask, old?.signon ?? 1_700_000_000 + state.signons)
                default:
                    if state.byNick[key]?.mask != mask {
                        state.signons += 1
                        state.byNick[key] = (mask, 1_700_000_000 + state.signons)
                    }
                }
            }
        }

        func whoisReply(for nick: String) -> [String] {
            let found = connections.withLockedValue { $0.byNick[nick.lowercased()] }
            guard let found else {
                return [":srv 401 MapBot \(nick) :No such nick", ":srv 318 MapBot \(nick) :End of /WHOIS list."]
            }
            let source = IRCSource(parsing: found.mask)
            return [
                ":srv 311 MapBot \(source.nick) \(source.user ?? "") \(source.host ?? "") * :Student",
                ":srv 317 MapBot \(source.nick) 0 \(found.signon) :seconds idle, signon time",
                ":srv 318 MapBot \(source.nick) :End of /WHOIS list.",
            ]
        }
    }

    @Test func logRedactionCoversAddressedFormattedAndAliasedLogins() {
        let texts = [
            "MapBot: login a@b.test pw-123", "MapBot, !identify a@b.test pw-123",
            "\u{02}!login\u{02} a@b.test pw-123",
            "?register a@b.test pw-123 A", "\u{01}LOGIN a pw-123\u{01}", "  !LOGIN a@b.test pw-123",
        ]
        for text in texts {
            #expect(LogRedaction.isSensitive(text), "\(text.debugDescription)")
            #expect(!LogRedaction.redact(":a!b@c PRIVMSG MapBot :\(text)").contains("pw-123"))
        }
        #expect(
            LogRedaction.redact(":a!b@c PRIVMSG MapBot :!link https://u:pw-123@x.example/p")
                == ":a!b@c PRIVMSG MapBot :!link https://<redacted>@x.example/p")
        #expect(!LogRedaction.isSensitive("MapBot: where is the login page"))
        #expect(!LogRedaction.isSensitive("please login later"))
    }

    static let notLoggedIn = "You are not logged in. Log in privately: /msg MapBot !login <email> <password>"

    @Test func aSessionNeverMovesToAnotherPersonThroughTheIRCLayer() async throws {
        try await Self.withHarness { h in
            // Jane, identified to services, joins (extended-join) and logs in.
            let jane = "jane!~jane@home.example"
            h.send(":\(jane) JOIN #class janeacct :Jane Doe")
            h.privately(jane, "!login \(Self.jane.email) \(Self.jane.password)", account: "janeacct")
            #expect(try await h.replies(to: "jane").first?.hasPrefix("Welcome, Jane Doe!") == true)
            h.privately(jane, "!whoami", account: "janeacct")
            #expect(
                try await h.replies(to: "jane").first?.contains("bound to your services account janeacct")
                    == true)

            // A nick change keeps it.
            h.send(":\(jane) NICK jane_away")
            let away = "jane_away!~jane@home.example"
            h.privately(away, "!whoami", account: "janeacct")
            #expect(
                try await h.replies(to: "jane_away").first?.hasPrefix("You are logged in as Jane Doe") == true
            )

            // A services logout ends it. Identified again, she is logged in through the link her
            // !login made (no password session comes back), and !unlink ends that for good.
            h.send(":\(away) ACCOUNT *")
            h.privately(away, "!whoami")
            #expect(try await h.replies(to: "jane_away") == [Self.notLoggedIn])
            h.send(":\(away) ACCOUNT janeacct")
            h.privately(away, "!whoami", account: "janeacct")
            #expect(
                try await h.replies(to: "jane_away")
                    == ["You are logged in as Jane Doe, through your services account janeacct."])
            h.privately(away, "!unlink", account: "janeacct")
            #expect(
                try await h.replies(to: "jane_away").first?.hasPrefix(
                    "Your services account janeacct is no longer linked")
                    == true)
            h.privately(away, "!whoami", account: "janeacct")
            #expect(try await h.replies(to: "jane_away") == [Self.notLoggedIn])

            // Tom, without services: bound to nick + user@host.
            let tom = "tom!~tom@t.example"
            h.send(":\(tom) JOIN #class * :Tom")
            h.privately(tom, "!login \(Self.tom.email) \(Self.tom.password)")
            #expect(try await h.replies(to: "tom").first?.hasPrefix("Welcome, Tom Tacoma!") == true)
            // The same nick from another host: nothing.
            h.privately("tom!~tom@elsewhere.example", "!whoami")
            #expect(try await h.replies(to: "tom") == [Self.notLoggedIn])

            // A line split at a line feed: the second half has no source and is not Tom's.
            h.send(":\(tom) PRIVMSG MapBot :!ping\nPRIVMSG MapBot :!logout")
            h.privately(tom, "!whoami")
            var afterSplit = try await h.replies(to: "tom")
            if !afterSplit.contains(where: { $0.hasPrefix("You are logged in") }) {
                afterSplit += try await h.replies(to: "tom")
            }
            #expect(afterSplit.first == "pong")
            #expect(afterSplit.contains { $0.hasPrefix("You are logged in as Tom Tacoma") })
            #expect(!afterSplit.contains { $0.contains("logged out") })

            // NUL and a bare CR inside a message: whatever the client makes of them, nothing
            // unsafe comes back and Tom keeps his session.
            h.privately(tom, "!where Tom\u{0}PRIVMSG #class :pwned\rJOIN #evil")
            h.privately(tom, "!ping")
            var collected: [String] = []
            while !collected.contains("pong") { collected += try await h.replies(to: "tom") }
            #expect(await h.bot.router.sessions.count == 1)

            // Tom quits; someone takes his nick, from his host or another: no session.
            h.send(":\(tom) QUIT :bye")
            h.send(":tom!~tom@t.example JOIN #class * :Not Tom")
            h.privately(tom, "!whoami")
            #expect(try await h.replies(to: "tom") == [Self.notLoggedIn])
            h.privately("tom!~mallory@evil.example", "!whoami", account: "tom")
            #expect(try await h.replies(to: "tom") == [Self.notLoggedIn])
            #expect(await h.bot.router.sessions.count == 0)

            // Nothing the bot sent carries a control character (CTCP markers aside) or joined #evil.
            for line in h.server.receivedLines() {
                #expect(
                    !line.unicodeScalars.contains { $0.value < 0x20 && $0.value != 0x01 },
                    "\(line.debugDescription)")
                #expect(!line.hasPrefix("JOIN #evil"))
            }
        }
    }

    @Test func noPasswordOrSessionIdInLogsMetricsOrReplies() async throws {
        _ = TestMetrics.registry
        let recorder = LogRecorder()
        let wrong = ["wrong-Guess-Pw-7", "wrong-Guess-Pw-8", "wrong-Guess-Pw-9"]
        let linkSecret = "link-Secret-77"
        var sessionIds: [String] = []
        try await Self.withHarness(logger: recorder.logger()) { h in
            let jane = "jane!~jane@home.example"
            h.send(":\(jane) JOIN #class * :Jane Doe")
            // Typed in the channel by mistake, twice.
            h.send(":\(jane) PRIVMSG #class :!login \(Self.jane.email) \(Self.jane.password)")
            #expect(
                try await h.replies(to: "#class").first?.contains("never type a password in a channel")
                    == true)
            h.send(":\(jane) PRIVMSG #class :MapBot: login \(Self.jane.email) \(Self.jane.password)")
            #expect(
                try await h.replies(to: "#class").first?.contains("never type a password in a channel")
                    == true)
            // A wrong password, then the right one with the other spelling of the command.
            h.privately(jane, "!identify \(Self.jane.email) \(wrong[0])")
            #expect(try await h.replies(to: "jane") == ["Wrong email or password."])
            h.privately(jane, "\u{02}!login\u{02} \(Self.jane.email) \(Self.jane.password)")
            #expect(try await h.replies(to: "jane").first?.hasPrefix("Welcome, Jane Doe!") == true)
            sessionIds += [
                try #require(
                    await h.bot.control?.services.sessions.session(ofNick: "jane")?.session.sessionId)
            ]
            // A post, with a link that carries a password first.
            h.privately(jane, "!post Seattle")
            #expect(try await h.replies(to: "jane").first?.hasPrefix("Found Seattle") == true)
            h.privately(jane, "!link https://jane:\(linkSecret)@example.com/me")
            #expect(try await h.replies(to: "jane").first?.contains("user name or password") == true)
            h.privately(jane, "!link https://example.com/jane")
            #expect(try await h.replies(to: "jane").first?.hasPrefix("You are on the map") == true)
            h.privately(jane, "!logout")
            #expect(try await h.replies(to: "jane").first?.hasPrefix("You are logged out") == true)
            // Someone guesses from several nicks; a sign-up attempt with a password.
            for (index, guess) in wrong.dropFirst().enumerated() {
                h.privately("guess\(index)!~g@g\(index).example", "login \(Self.jane.email) \(guess)")
                #expect(try await h.replies(to: "guess\(index)") == ["Wrong email or password."])
            }
            h.privately("eve!~eve@e.example", "!register eve@class.test \(wrong[0]) Eve Evans")
            #expect(try await h.replies(to: "eve").first?.contains("Registration is turned off") == true)
            // Tom logs in and out too (from the channel, so that the bot sees him all along).
            h.send(":tom!~tom@t.example JOIN #class * :Tom")
            h.privately("tom!~tom@t.example", "login \(Self.tom.email) \(Self.tom.password)")
            #expect(try await h.replies(to: "tom").first?.hasPrefix("Welcome, Tom Tacoma!") == true)
            sessionIds += [
                try #require(
                    await h.bot.control?.services.sessions.session(ofNick: "tom")?.session.sessionId)
            ]
            h.privately("tom!~tom@t.example", "!logout")
            #expect(try await h.replies(to: "tom").first?.hasPrefix("You are logged out") == true)

            // Everything the bot said on IRC.
            let sent = h.server.receivedLines()
            let secrets = [Self.jane.password, Self.tom.password, linkSecret] + wrong + sessionIds
            for line in sent {
                for secret in secrets { #expect(!line.contains(secret), "sent: \(line)") }
            }
            #expect(sent.contains { $0.contains("PRIVMSG #class :New pin: Jane Doe") })
        }
        let secrets = [Self.jane.password, Self.tom.password, linkSecret] + wrong + sessionIds
        let logs = recorder.all
        // The scenario was logged in full: the IRC lines at trace level and every command.
        #expect(logs.contains { $0.hasPrefix("trace") && $0.contains("PRIVMSG MapBot") })
        #expect(logs.contains { $0.contains("<redacted>") })
        #expect(logs.filter { $0.contains("command=login") }.count >= 3)
        #expect(logs.contains { $0.contains("command=link") })
        for line in logs {
            for secret in secrets { #expect(!line.contains(secret), "log: \(line)") }
        }
        let metrics = String(decoding: TestMetrics.registry.emitToBuffer(), as: UTF8.self)
        #expect(metrics.contains("onthemap_commands_total"))
        for secret in secrets { #expect(!metrics.contains(secret)) }
    }
}
