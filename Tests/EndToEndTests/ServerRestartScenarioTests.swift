import BotTesting
import Foundation
import IRCClient
import IRCProtocol
@_spi(Testing) import OnTheMapApp
import SQLiteDirectory
import Testing

/// The whole bot on a real ngircd over TLS while the server is killed (SIGKILL) and restarted on the
/// same ports several times: with a `!post` half done, with replies queued, and again while the bot
/// is still reconnecting. The bot comes back and rejoins; students who come back are new connections,
/// so their connection-bound sessions do not carry over (someone else under the same nick and
/// user@host would look the same), but after logging in again an open `!post` goes on; someone else
/// under the nick gets nothing; every announcement is heard exactly once.
@Suite(.tags(.startsProcesses), .serialized) struct ServerRestartScenarioTests {
    static let botNick = "MapBot"
    static let channel = "#class"
    static let jane = (
        email: "jane@class.test", password: "jane-secret-pw1", first: "Jane", last: "Doe"
    )
    static let tom = (
        email: "tom@class.test", password: "tom-secret-pw22", first: "Tom", last: "Tacoma"
    )
    static let janePin = "New pin: Jane Doe — Seattle, Washington, United States — https://jane.example/work"
    static let tomPin = "New pin: Tom Tacoma — Portland, Oregon, United States — https://tom.example"

    /// Every connection a student had, for counting what they heard over the whole test.
    actor Class {
        private(set) var connections: [String: [TestIRCUser]] = [:]
        let server: NgircdServer

        init(server: NgircdServer) { self.server = server }

        /// Connects `nick` (with `username`, the nick by default) and joins the class channel.
        func connect(_ nick: String, username: String? = nil) async throws -> TestIRCUser {
            let user = try await TestIRCUser.connect(
                port: server.tlsPort, caFile: server.certificate.certificatePath, nick: nick,
                username: username, timeout: .seconds(20))
            try await user.join(ServerRestartScenarioTests.channel)
            connections[username ?? nick, default: []].append(user)
            return user
        }

        /// Every line the connections of `username` received from the bot, to the channel.
        func channelLinesFromBot(_ username: String) async -> [String] {
            var lines: [String] = []
            for user in connections[username] ?? [] {
                for line in await user.receivedLines {
                    guard let message = try? IRCMessage(parsing: line, maxLineBytes: 16_384),
                        fromBot(message, to: ServerRestartScenarioTests.channel)
                    else { continue }
                    lines.append(message.parameters.last ?? "")
                }
            }
            return lines
        }

        func quitAll() async {
            for user in connections.values.flatMap({ $0 }) { await user.quit() }
        }
    }

    static func fromBot(_ message: IRCMessage, to target: String) -> Bool {
        message.command == "PRIVMSG" && message.sourceNick == botNick
            && message.parameters.first == target
    }

    /// Waits until `user` sees the bot in the channel: its JOIN, or its nick in the NAMES list.
    static func waitForBot(_ user: TestIRCUser) async throws {
        _ = try await user.waitForMessage(timeout: .seconds(40), "the bot in \(channel)") {
            ($0.command == "JOIN" && $0.sourceNick == botNick)
                || ($0.command == "353"
                    && $0.parameters.last?.split(separator: " ").contains {
                        $0.hasSuffix(botNick)
                    } == true)
        }
    }

    /// Kills the server (clients see the connection drop) and starts it again on the same ports.
    static func killAndRestart(_ server: NgircdServer) async throws {
        await server.stop()
        try await server.restart()
    }

    @Test(.timeLimit(.minutes(3))) func theBotSurvivesServerRestarts() async throws {
        let folder = try TemporaryDirectory(prefix: "e2e-restart")
        let database = folder.file("class.sqlite")
        let setup = try SQLiteStudentDirectory(path: database)
        for student in [Self.jane, Self.tom] {
            _ = try await setup.addAccount(
                email: student.email, password: student.password, firstName: student.first,
                lastName: student.last)
        }
        try setup.close()
        try await NgircdServer.withRunning { server in
            let config = try ConfigLoader.parse(
                yaml: """
                    irc:
                      server: 127.0.0.1
                      port: \(server.tlsPort)
                      tls_ca_file: \(server.certificate.certificatePath)
                      nick: \(Self.botNick)
                      channels: ["\(Self.channel)"]
                      announce_to: ["\(Self.channel)"]
                      flood: {burst: 2, lines_per_second: 2}
                    service:
                      database: \(database)
                    plugins:
                      announce: {poll_seconds: 10}
                    privacy:
                      open_channel: full   # the channel has no key: the full announcements are tested
                    """)
            let students = Class(server: server)
            let log = WaitableLines()
            let bot = try await BotAssembly.makeService(
                config: config, logger: WaitableLogHandler.logger(log, label: "e2e-restart", level: .info)
            ) { irc in
                // Long enough for the students to be back in the channel before the bot returns.
                irc.reconnect = .init(
                    minimumDelay: .seconds(3), maximumDelay: .seconds(6), jitter: 0.1,
                    resetAfter: .seconds(60))
            }
            let running = Task { await bot.runUntilStopped() }
            do {
                try await Self.scenario(students: students, server: server, bot: bot, log: log)
            } catch {
                print("the bot's log:\n  " + log.lines.suffix(40).joined(separator: "\n  "))
                await bot.shutdown()
                _ = await running.value
                await students.quitAll()
                throw error
            }
            await bot.shutdown()
            #expect(await running.value == .shutDown)
            await students.quitAll()
        }
    }

    static func scenario(students: Class, server: NgircdServer, bot: BotService, log: WaitableLines) async throws {
        var jane = try await students.connect("jane")
        var tom = try await students.connect("tom")
        try await waitForBot(jane)

        try await jane.privmsg(botNick, "!login \(Self.jane.email) \(Self.jane.password)")
        _ = try await jane.waitForMessage(timeout: .seconds(15), "jane's welcome") {
            fromBot($0, to: "jane") && $0.parameters.last?.hasPrefix("Welcome, Jane Doe!") == true
        }
        try await tom.privmsg(botNick, "!login \(Self.tom.email) \(Self.tom.password)")
        _ = try await tom.waitForMessage(timeout: .seconds(15), "tom's welcome") {
            fromBot($0, to: "tom") && $0.parameters.last?.hasPrefix("Welcome, Tom Tacoma!") == true
        }
        // Step one of jane's !post.
        try await jane.privmsg(botNick, "!post Seattle, WA")
        _ = try await jane.waitForMessage(timeout: .seconds(15), "the found place") {
            fromBot($0, to: "jane") && $0.parameters.last?.hasPrefix("Found Seattle") == true
        }

        // Kill 1: a post flow is open. Both students come back under the same nick and user@host, on
        // new connections: logged out, and after logging in again jane finishes her post.
        try await killAndRestart(server)
        jane = try await students.connect("jane")
        tom = try await students.connect("tom")
        try await waitForBot(jane)
        try await jane.privmsg(botNick, "!whoami")
        // (Replies still queued when the server died may arrive first: wait for the answer itself.)
        let stillIn = try await jane.waitForMessage(timeout: .seconds(15), "whoami after restart") {
            fromBot($0, to: "jane") && $0.parameters.last?.hasPrefix("You are") == true
        }
        #expect(stillIn.parameters.last?.hasPrefix("You are not logged in.") == true, "\(stillIn)")
        try await jane.privmsg(botNick, "!login \(Self.jane.email) \(Self.jane.password)")
        _ = try await jane.waitForMessage(timeout: .seconds(15), "jane's second welcome") {
            fromBot($0, to: "jane") && $0.parameters.last?.hasPrefix("Welcome, Jane Doe!") == true
        }
        try await jane.privmsg(botNick, "!link https://jane.example/work")
        let saved = try await jane.waitForMessage(timeout: .seconds(15), "the saved pin") {
            fromBot($0, to: "jane") && $0.parameters.last?.hasPrefix("You are on the map") == true
        }
        #expect(
            saved.parameters.last?.hasPrefix("You are on the map: Jane Doe — Seattle, Washington, United States (")
                == true)
        _ = try await tom.waitForMessage(timeout: .seconds(15), "jane's announcement") {
            fromBot($0, to: channel) && $0.parameters.last == janePin
        }

        try await tom.privmsg(botNick, "!login \(Self.tom.email) \(Self.tom.password)")
        _ = try await tom.waitForMessage(timeout: .seconds(15), "tom's second welcome") {
            fromBot($0, to: "tom") && $0.parameters.last?.hasPrefix("Welcome, Tom Tacoma!") == true
        }

        // Kill 2: replies queued (the bot sends 2 lines a second; the help lines, tom's post reply and
        // its announcement queue up behind each other).
        let linesBefore = await tom.receivedLines.count
        let logBefore = log.lines.count
        try await tom.sendBurst([
            "PRIVMSG \(botNick) :!help", "PRIVMSG \(botNick) :!help about",
            "PRIVMSG \(botNick) :!post Portland, OR | https://tom.example",
        ])
        // Once the first of these replies has come and the post has run (tom's commands run in the
        // order sent), the rest wait in the queue. A kill before the post ran would leave it to be
        // checked against the network after the restart, where tom is a new connection.
        try await tom.waitForLines(timeout: .seconds(20), "the first reply to the burst") { lines in
            lines.dropFirst(linesBefore).contains { $0.contains(" PRIVMSG tom :") || $0.contains(" NOTICE tom :") }
        }
        let postRan = try await log.waitForLine(
            containing: "command=post", after: logBefore, timeout: .seconds(20), "tom's !post in the bot's log")
        #expect(postRan.contains("outcome=ok"), "\(postRan)")
        #expect(await bot.client.queuedLineCount > 0)
        try await killAndRestart(server)
        jane = try await students.connect("jane")
        tom = try await students.connect("tom")
        try await waitForBot(jane)
        _ = try await jane.waitForMessage(timeout: .seconds(30), "tom's announcement after the restart") {
            fromBot($0, to: channel) && $0.parameters.last == tomPin
        }
        let tomSaved = try await tom.waitForMessage(timeout: .seconds(15), "tom's saved pin") {
            fromBot($0, to: "tom") && $0.parameters.last?.hasPrefix("You are on the map") == true
        }
        #expect(
            tomSaved.parameters.last?.hasPrefix("You are on the map: Tom Tacoma — Portland, Oregon, United States")
                == true)

        // Kill 3 and 4: killed again while the bot is still reconnecting (it waits at least 3 s).
        // Meanwhile tom is gone and someone else takes his nick (another user name): no session for
        // them.
        try await killAndRestart(server)
        _ = try await students.connect("jane")
        try await killAndRestart(server)
        jane = try await students.connect("jane")
        let impostor = try await students.connect("tom", username: "imp")
        try await waitForBot(jane)
        try await impostor.privmsg(botNick, "!whoami")
        let notTom = try await impostor.waitForMessage(timeout: .seconds(15), "the impostor's whoami") {
            fromBot($0, to: "tom") && $0.parameters.last?.hasPrefix("You are") == true
        }
        #expect(notTom.parameters.last?.hasPrefix("You are not logged in.") == true)
        await impostor.quit()
        _ = try await jane.waitForMessage(timeout: .seconds(10), "the impostor's QUIT") {
            $0.command == "QUIT" && $0.sourceNick == "tom"
        }
        // The real tom comes back on a new connection: his session ended with his old one.
        tom = try await students.connect("tom")
        try await tom.privmsg(botNick, "!whoami")
        let tomIn = try await tom.waitForMessage(timeout: .seconds(15), "tom's whoami") {
            fromBot($0, to: "tom") && $0.parameters.last?.hasPrefix("You are") == true
        }
        #expect(tomIn.parameters.last?.hasPrefix("You are not logged in.") == true)

        // jane QUITs while the bot watches: her session ends, even for the same nick and user@host.
        await jane.quit()
        _ = try await tom.waitForMessage(timeout: .seconds(10), "jane's QUIT") {
            $0.command == "QUIT" && $0.sourceNick == "jane"
        }
        let taker = try await TestIRCUser.connect(
            port: server.tlsPort, caFile: server.certificate.certificatePath, nick: "jane")
        try await taker.privmsg(botNick, "!whoami")
        let noSession = try await taker.waitForMessage(timeout: .seconds(15), "the taker's whoami") {
            fromBot($0, to: "jane") && $0.parameters.last?.hasPrefix("You are") == true
        }
        #expect(noSession.parameters.last?.hasPrefix("You are not logged in.") == true)
        await taker.quit()

        // Every announcement was heard exactly once, through four restarts and the announcer's polls.
        let janeHeard = await students.channelLinesFromBot("jane")
        let tomHeard = await students.channelLinesFromBot("tom")
        #expect(janeHeard.filter { $0 == janePin }.count == 1, "\(janeHeard)")
        #expect(janeHeard.filter { $0 == tomPin }.count == 1, "\(janeHeard)")
        #expect(tomHeard.filter { $0 == janePin }.count == 1, "\(tomHeard)")
        #expect(tomHeard.filter { $0 == tomPin }.count <= 1, "\(tomHeard)")
        #expect(janeHeard.allSatisfy { $0 == janePin || $0 == tomPin }, "\(janeHeard)")
        #expect(await bot.client.isRegistered)
    }
}
