import BotTesting
import Foundation
import IRCProtocol
import Testing

/// The built bot against InspIRCd over TLS, stopped with SIGTERM in the middle of a student's
/// two-step `!post` and started again on the same database (SQLite, PostgreSQL). The student who
/// stayed connected carries on: `!whoami` answers, the post is finished with `!post <link>`, their
/// `!units` choice and the owner's `!ignore` are still there. A student who disconnected while the
/// bot was down, and whose nick and user@host someone took meanwhile (a new sign-on time), is not
/// logged in for the newcomer.
@Suite(.tags(.startsProcesses), .serialized, .timeLimit(.minutes(6))) struct ContinuityLiveTests {
    static let bot = "MapBot"
    static let password = "continuity-Pw-1"

    @Test func aRestartMidPostOnSQLite() async throws {
        let folder = try TemporaryDirectory(prefix: "continuity-sqlite")
        let database = folder.file("class.sqlite")
        try await restartMidPost(folder: folder, service: "  database: \(database)") {
            try await runCommand("/usr/bin/sqlite3", [database, "SELECT key || '=' || value FROM bot_state;"])
        }
    }

    @Test(.enabled(if: PostgresCluster.isAvailable)) func aRestartMidPostOnPostgreSQL() async throws {
        let folder = try TemporaryDirectory(prefix: "continuity-postgres")
        try await PostgresCluster.withRunning { cluster in
            try await restartMidPost(
                folder: folder, service: "  backend: postgres\n  postgres_url: \"\(cluster.url)\""
            ) {
                try await cluster.psql("SELECT key || '=' || value FROM bot_state")
            }
        }
    }

    /// The bot's next private answer to `user`.
    static func answer(to user: TestIRCUser, timeout: Duration = .seconds(20)) async throws -> String {
        let message = try await user.waitForMessage(timeout: timeout, "the bot's answer") {
            $0.command == "PRIVMSG" && $0.sourceNick == bot
        }
        return message.parameters.last ?? ""
    }

    /// Says `text` to the bot as `user`; returns its first answer line.
    static func ask(_ user: TestIRCUser, _ text: String) async throws -> String {
        try await user.privmsg(bot, text)
        return try await answer(to: user)
    }

    /// Starts the bot and waits until `watcher` sees it join #class.
    static func startBot(_ executable: String, config: String, log: String, watcher: TestIRCUser) async throws
        -> BotProcess
    {
        let process = try BotProcess(executable: executable, config: config, log: log)
        _ = try await watcher.waitForMessage(timeout: .seconds(30), "the bot's JOIN") {
            $0.command == "JOIN" && $0.sourceNick == bot
        }
        return process
    }

    /// Writes the bot's config (owner boss, #class, the `service` lines) and imports Jane's and Bob's
    /// accounts with the bot's own command; returns the config's path.
    static func prepare(
        folder: TemporaryDirectory, executable: String, port: Int, caFile: String, service: String
    ) async throws -> String {
        let config = folder.file("bot.yaml")
        try """
        irc:
          server: 127.0.0.1
          port: \(port)
          tls_ca_file: \(caFile)
          nick: \(bot)
          channels: ["#class"]
          owners: ["boss!*@*"]
          flood: {burst: 20, lines_per_second: 10}
        service:
        \(service)
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let roster = folder.file("roster.csv")
        try """
        email,first_name,last_name,password
        jane@class.test,Jane,Doe,\(password)
        bob@class.test,Bob,Roe,\(password)
        """.write(toFile: roster, atomically: true, encoding: .utf8)
        let imported = try await runCommand(executable, ["accounts", "import", "--config", config, roster])
        #expect(imported.contains("2 added"), "\(imported)")
        return config
    }

    func restartMidPost(
        folder: TemporaryDirectory, service: String, botState: () async throws -> String
    ) async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built")
        try await InspircdServer.withRunning { server in
            let (port, caFile) = (server.tlsPort, server.certificate.certificatePath)
            let config = try await Self.prepare(
                folder: folder, executable: executable, port: port, caFile: caFile, service: service)
            func connect(_ nick: String) async throws -> TestIRCUser {
                try await TestIRCUser.connect(port: port, caFile: caFile, nick: nick, username: nick)
            }

            let watcher = try await connect("watcher")
            try await watcher.join("#class")
            var process = try await Self.startBot(
                executable, config: config, log: folder.file("bot-1.log"), watcher: watcher)
            defer { process.kill() }

            // Alice shares #class with the bot; Bob shares no channel with it.
            let alice = try await connect("alice")
            try await alice.join("#class")
            let welcome = try await Self.ask(alice, "!login jane@class.test \(Self.password)")
            #expect(welcome.hasPrefix("Welcome, Jane Doe!"), "\(welcome)")
            #expect(try await Self.ask(alice, "!units mi") == "OK, I will show you distances in miles (mi).")
            try await alice.privmsg(Self.bot, "!post Paris")
            var step1: [String] = []
            while !(step1.last ?? "").hasPrefix("Now send your link") {
                step1.append(try await Self.answer(to: alice))
            }
            #expect(step1.first?.hasPrefix("Found Paris, Île-de-France, France") == true, "\(step1)")
            let bob = try await connect("bob")
            #expect(try await Self.ask(bob, "!login bob@class.test \(Self.password)").hasPrefix("Welcome, Bob Roe!"))
            #expect(try await Self.ask(bob, "!whoami").hasPrefix("You are logged in as Bob Roe"))
            let boss = try await connect("boss")
            #expect(try await Self.ask(boss, "!ignore spammer") == "Ignoring spammer!*@* until !unignore.")

            // SIGTERM; while the bot is down, Bob disconnects and someone else connects with his
            // nick and user name from the same host (sign-on times are whole seconds).
            process.terminate()
            _ = try await watcher.waitForMessage(timeout: .seconds(20), "the bot's QUIT") {
                $0.command == "QUIT" && $0.sourceNick == Self.bot
            }
            await bob.quit()
            try await Task.sleep(for: .milliseconds(1100))
            let newcomer = try await connect("bob")
            process = try await Self.startBot(
                executable, config: config, log: folder.file("bot-2.log"), watcher: watcher)

            let whoami = try await Self.ask(alice, "!whoami")
            #expect(whoami.hasPrefix("You are logged in as Jane Doe"), "\(whoami)")
            #expect(try await Self.ask(alice, "!units").hasPrefix("Your distances are in mi."))
            let saved = try await Self.ask(alice, "!post https://jane.example/me")
            #expect(saved.hasPrefix("You are on the map: Jane Doe — Paris"), "\(saved)")

            #expect(try await Self.ask(newcomer, "!whoami").hasPrefix("You are not logged in."))
            let refused = try await Self.ask(newcomer, "!post Lima | https://evil.example")
            #expect(refused.hasPrefix("You need to log in first"), "\(refused)")

            let ignores = try await Self.ask(boss, "!ignores")
            #expect(ignores.contains("spammer!*@*"), "\(ignores)")
            let spammer = try await connect("spammer")
            try await spammer.privmsg(Self.bot, "!whoami")
            let heard = try? await Self.answer(to: spammer, timeout: .seconds(3))
            #expect(heard == nil, "an ignored nick got \(heard ?? "")")

            // What was kept holds no password, and neither do the logs.
            let state = try await botState()
            // Both sessions were kept: Jane's, and Bob's, which the newcomer could not take.
            let sessions = try #require(state.split(separator: "\n").first { $0.hasPrefix("sessions@") })
            #expect(sessions.contains(#""nick":"alice""#) && sessions.contains(#""nick":"bob""#), "\(sessions)")
            #expect(!state.contains(Self.password))
            for log in ["bot-1.log", "bot-2.log"] {
                let text = try String(contentsOfFile: folder.file(log), encoding: .utf8)
                #expect(!text.contains(Self.password), "\(log) holds the password")
            }
            for user in [alice, newcomer, boss, spammer, watcher] { await user.quit() }
        }
    }
}

extension BotProcess {
    /// SIGTERM (a deploy's stop), then waits for the exit.
    func terminate() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        output.waitUntilDrained()
    }
}
