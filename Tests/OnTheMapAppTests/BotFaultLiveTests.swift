import BotTesting
import Foundation
import IRCProtocol
import OnTheMapApp
import OnTheMapService
import SQLiteDirectory
import Testing

/// The built `onthemap-bot` executable against a real ircd, under faults an operator must see and
/// input a student should not get through: a locked database, SIGTERM with many replies queued,
/// invalid UTF-8 and bidi marks.
@Suite(.tags(.startsProcesses), .serialized, .timeLimit(.minutes(3))) struct BotFaultLiveTests {
    static let jane = (email: "jane@class.test", password: "jane-Secret-Pw-1")
    static let tom = (email: "tom@class.test", password: "tom-Secret-Pw-22")

    /// The bot process and its log (JSON lines), read line by line as it comes (``output``).
    struct RunningBot {
        let process: Process
        let logFile: String
        var output: ProcessOutput?

        /// Waits for the bot to log a line containing `text`.
        @discardableResult
        func waitForLog(_ text: String, timeout: Duration = .seconds(60)) async throws -> String {
            let output = try #require(output, "this bot's output is not read line by line")
            return try await output.lines.waitForLine(containing: text, timeout: timeout, "the bot's log: \(text)")
        }

        var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

        /// The log's lines, decoded.
        var entries: [[String: Any]] {
            log.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        func entries(level: String, containing text: String) -> [[String: Any]] {
            entries.filter { ($0["level"] as? String) == level && "\($0)".contains(text) }
        }

        /// Sends SIGTERM and waits for the process to exit.
        func stop(timeout: Duration = .seconds(40)) async throws {
            if process.isRunning { process.terminate() }
            await process.waitForExit(timeout: timeout)
            // The last lines it wrote are in the log file too.
            if !process.isRunning { output?.waitUntilDrained() }
        }
    }

    static func startBot(config: String, in folder: TemporaryDirectory) throws -> RunningBot {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        let configPath = folder.file("bot.yaml")
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["run", "--config", configPath, "--log-format", "json"]
        let logFile = folder.file("bot.log")
        let output = try ProcessOutput(logPath: logFile)
        try output.attach(to: process)
        try process.run()
        output.processStarted()
        return RunningBot(process: process, logFile: logFile, output: output)
    }

    /// Makes the database with Jane's and Tom's accounts before the bot opens it.
    static func makeDatabase(_ path: String) async throws {
        let directory = try SQLiteStudentDirectory(path: path)
        _ = try await directory.addAccount(
            email: jane.email, password: jane.password, firstName: "Jane", lastName: "Doe")
        _ = try await directory.addAccount(email: tom.email, password: tom.password, firstName: "Tom", lastName: "Li")
        try directory.close()
    }

    /// `GET url` with curl: the status code and the body.
    static func get(_ url: String) async throws -> (Int, String) {
        let output = try await runCommand("/usr/bin/curl", ["-s", "-m", "10", "-w", "\n%{http_code}", url])
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// The next PRIVMSG or NOTICE from `bot` to `user`.
    static func reply(from bot: String, to user: TestIRCUser, timeout: Duration = .seconds(10)) async throws -> String {
        let message = try await user.waitForMessage(timeout: timeout, "a reply from \(bot)") {
            ($0.command == "PRIVMSG" || $0.command == "NOTICE") && $0.sourceNick == bot
        }
        return message.parameters.last ?? ""
    }

    static func logIn(_ user: TestIRCUser, _ account: (email: String, password: String), to bot: String)
        async throws
    {
        try await user.privmsg(bot, "!login \(account.email) \(account.password)")
        let welcome = try await reply(from: bot, to: user, timeout: .seconds(15))
        #expect(welcome.contains("You are logged in"), "\(welcome)")
    }

    /// Another process holds `BEGIN EXCLUSIVE` on the database: writes from the bot wait for it.
    final class ExclusiveLock {
        let process = Process()
        let input = Pipe()

        init(database: String, folder: TemporaryDirectory) async throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            process.arguments = [database]
            process.standardInput = input
            let output = folder.file("sqlite3.out")
            #expect(FileManager.default.createFile(atPath: output, contents: nil))
            let printed = try ProcessOutput(logPath: output)
            try printed.attach(to: process)
            try process.run()
            printed.processStarted()
            input.fileHandleForWriting.write(
                Data("PRAGMA busy_timeout = 5000;\nBEGIN EXCLUSIVE;\nSELECT 'lock-held';\n".utf8))
            if await printed.lines.wait(timeout: .seconds(30), until: { $0.contains("lock-held") }) { return }
            Issue.record(
                "sqlite3 did not take the lock: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
        }

        func release() async throws {
            input.fileHandleForWriting.write(Data("ROLLBACK;\n.quit\n".utf8))
            await process.waitForExit(timeout: .seconds(30))
        }
    }

    /// With the database locked by another process, students are told the directory is busy within
    /// seconds (no "error 5"); `/healthz` answers 503 naming the lock; the log has one warning with
    /// the cause however many commands meet it, and one line when the directory works again.
    @Test func aLockedDatabaseIsToldToStudentsAndShownToTheOperatorOnce() async throws {
        try await NgircdServer.withRunning { server in
            let folder = try TemporaryDirectory(prefix: "bot-locked")
            let database = folder.file("class.sqlite")
            try await Self.makeDatabase(database)
            let operatorPort = try await FreePort.pick()
            let jane = try await TestIRCUser.connect(
                port: server.tlsPort, caFile: server.certificate.certificatePath, nick: "jane")
            let tom = try await TestIRCUser.connect(
                port: server.tlsPort, caFile: server.certificate.certificatePath, nick: "tom")
            try await jane.join("#class")
            let bot = try Self.startBot(
                config: """
                    irc:
                      server: 127.0.0.1
                      port: \(server.tlsPort)
                      tls_ca_file: \(server.certificate.certificatePath)
                      nick: LockBot
                      channels: ["#class"]
                    service:
                      database: \(database)
                    operator:
                      enabled: true
                      listen: 127.0.0.1:\(operatorPort)
                    """, in: folder)
            _ = try await jane.waitForMessage(timeout: .seconds(20), "the bot's JOIN") {
                $0.command == "JOIN" && $0.sourceNick == "LockBot"
            }
            try await Self.logIn(jane, Self.jane, to: "LockBot")
            #expect(try await Self.get("http://127.0.0.1:\(operatorPort)/healthz").0 == 200)

            let lock = try await ExclusiveLock(database: database, folder: folder)
            let started = ContinuousClock.now
            try await jane.privmsg("LockBot", "!post Madrid, Spain | https://example.com/jane")
            let postReply = try await Self.reply(from: "LockBot", to: jane, timeout: .seconds(8))
            #expect(ContinuousClock.now - started < .seconds(8))
            #expect(postReply.contains("The class directory is busy"), "\(postReply)")
            #expect(!postReply.contains("error 5"), "\(postReply)")
            try await tom.privmsg("LockBot", "!login \(Self.tom.email) \(Self.tom.password)")
            let loginReply = try await Self.reply(from: "LockBot", to: tom, timeout: .seconds(8))
            #expect(loginReply.contains("The class directory is busy"), "\(loginReply)")

            let (status, body) = try await Self.get("http://127.0.0.1:\(operatorPort)/healthz")
            #expect(status == 503, "\(body)")
            #expect(body.contains("locked"), "\(body)")
            _ = try? await bot.waitForLog("cannot be read or written", timeout: .seconds(30))
            let warnings = bot.entries(level: "warning", containing: "cannot be read or written")
            #expect(warnings.count == 1, "\(bot.log)")
            #expect(warnings.first.map { "\($0)".contains("database is locked") } == true, "\(bot.log)")

            try await lock.release()
            try await jane.privmsg("LockBot", "!link https://example.com/jane")
            let saved = try await Self.reply(from: "LockBot", to: jane)
            #expect(saved.hasPrefix("You are on the map"), "\(saved)")
            #expect(try await Self.get("http://127.0.0.1:\(operatorPort)/healthz").0 == 200)
            _ = try? await bot.waitForLog("works again", timeout: .seconds(30))
            #expect(bot.entries(level: "notice", containing: "works again").count == 1, "\(bot.log)")
            #expect(bot.entries(level: "warning", containing: "cannot be read or written").count == 1)

            try await bot.stop()
            #expect(!bot.process.isRunning)
            #expect(!bot.log.contains(Self.jane.password) && !bot.log.contains(Self.tom.password))
            await jane.quit()
            await tom.quit()
        }
    }

    /// SIGTERM with replies queued behind the flood limit: within the drain time every queued line
    /// still goes out before QUIT; with a drain too short the log says how many were dropped, and
    /// those sent plus those dropped are all that were queued.
    @Test func sigtermDrainsQueuedRepliesAtTheFloodRateAndCountsTheDropped() async throws {
        try await InspircdServer.withRunning { server in
            let sent = try await sigtermWithQueuedPongs(on: server, drainSeconds: 30, nick: "DrainBot")
            #expect(sent.received == sent.queued)
            #expect(sent.dropped == nil, "\(sent.log)")

            let cut = try await sigtermWithQueuedPongs(on: server, drainSeconds: 1, nick: "CutBot")
            #expect(cut.received < cut.queued)
            #expect(cut.dropped == cut.queued - cut.received, "\(cut.log)")
        }
    }

    struct DrainOutcome {
        var queued: Int
        var received: Int
        var dropped: Int?
        var log: String
    }

    /// Queues 40 "pong" replies (10 lines a second after a burst of 1), sends SIGTERM once two have
    /// arrived, and counts those that arrive before the bot's QUIT.
    func sigtermWithQueuedPongs(on server: InspircdServer, drainSeconds: Int, nick: String) async throws
        -> DrainOutcome
    {
        let folder = try TemporaryDirectory(prefix: "bot-drain")
        let student = try await TestIRCUser.connect(
            port: server.tlsPort, caFile: server.certificate.certificatePath, nick: "pinger\(drainSeconds)")
        try await student.join("#drain")
        let bot = try Self.startBot(
            config: """
                irc:
                  server: 127.0.0.1
                  port: \(server.tlsPort)
                  tls_ca_file: \(server.certificate.certificatePath)
                  nick: \(nick)
                  channels: ["#drain"]
                  flood: {burst: 1, lines_per_second: 10}
                  shutdown_drain_seconds: \(drainSeconds)
                service:
                  database: \(folder.file("bot.sqlite"))
                plugins:
                  user_limits: false
                """, in: folder)
        _ = try await student.waitForMessage(timeout: .seconds(20), "the bot's JOIN") {
            $0.command == "JOIN" && $0.sourceNick == nick
        }
        let queued = 40
        try await student.sendBurst(Array(repeating: "PRIVMSG \(nick) :!ping", count: queued))
        let isPong: @Sendable (IRCMessage) -> Bool = {
            $0.command == "PRIVMSG" && $0.sourceNick == nick && $0.parameters.last == "pong"
        }
        _ = try await student.waitForMessages(count: 2, timeout: .seconds(10), "the first pongs", where: isPong)
        let started = ContinuousClock.now
        bot.process.terminate()
        _ = try await student.waitForMessage(timeout: .seconds(drainSeconds + 10), "the bot's QUIT") {
            $0.command == "QUIT" && $0.sourceNick == nick
        }
        try await bot.stop()
        #expect(!bot.process.isRunning)
        #expect(bot.process.terminationStatus == 0)
        #expect(ContinuousClock.now - started < .seconds(drainSeconds + 5))
        var received = 2
        while (try? await student.waitForMessage(timeout: .zero, where: isPong)) != nil { received += 1 }
        await student.quit()
        let dropped = bot.entries(level: "warning", containing: "queued lines dropped").first.flatMap { entry in
            (entry["message"] as? String)?.split(separator: " ").compactMap { Int($0) }.first
        }
        return DrainOutcome(queued: queued, received: received, dropped: dropped, log: bot.log)
    }

    /// Text that is not UTF-8 in a place or a link is refused with a sentence saying so, and
    /// nothing is saved; bidi marks a student typed never come back in a reply.
    @Test func invalidUTF8IsRefusedAndBidiMarksNeverComeBack() async throws {
        try await NgircdServer.withRunning { server in
            let folder = try TemporaryDirectory(prefix: "bot-text")
            let database = folder.file("class.sqlite")
            try await Self.makeDatabase(database)
            let jane = try await TestIRCUser.connect(
                port: server.tlsPort, caFile: server.certificate.certificatePath, nick: "jane")
            try await jane.join("#class")
            let bot = try Self.startBot(
                config: """
                    irc:
                      server: 127.0.0.1
                      port: \(server.tlsPort)
                      tls_ca_file: \(server.certificate.certificatePath)
                      nick: TextBot
                      channels: ["#class"]
                    service:
                      database: \(database)
                    """, in: folder)
            _ = try await jane.waitForMessage(timeout: .seconds(20), "the bot's JOIN") {
                $0.command == "JOIN" && $0.sourceNick == "TextBot"
            }
            try await Self.logIn(jane, Self.jane, to: "TextBot")

            try await jane.send(bytes: Array("PRIVMSG TextBot :!post Madrid ".utf8) + [0xFF, 0xFE, 0xC3, 0x28])
            let place = try await Self.reply(from: "TextBot", to: jane, timeout: .seconds(15))
            #expect(place.contains("That place has characters I could not read"), "\(place)")
            #expect(!place.contains("\u{FFFD}"))

            try await jane.send(
                bytes: Array("PRIVMSG TextBot :!post Madrid, Spain | https://example.com/".utf8) + [0xE2, 0x28, 0xA1])
            let link = try await Self.reply(from: "TextBot", to: jane, timeout: .seconds(15))
            #expect(link.contains("That link has characters I could not read"), "\(link)")

            // The one-shot post kept its place (Madrid) while its link was refused: cancel that step.
            try await jane.privmsg("TextBot", "!cancel")
            _ = try await Self.reply(from: "TextBot", to: jane, timeout: .seconds(15))
            // Direction marks in a place are refused, as on every way in, and never echoed.
            try await jane.privmsg("TextBot", "!post Qwzx\u{200F}yv\u{061C}q\u{200E}j")
            let echoed = try await Self.reply(from: "TextBot", to: jane, timeout: .seconds(15))
            #expect(echoed.hasPrefix("That place has hidden characters in it"), "\(echoed)")
            #expect(!echoed.unicodeScalars.contains(where: TextSanitizer.isBidiControl))

            try await bot.stop()
            #expect(!bot.process.isRunning)
            await jane.quit()
            let directory = try SQLiteStudentDirectory(path: database)
            #expect(try await directory.recentLocations(limit: 10, skip: 0).isEmpty)
            try directory.close()
        }
    }

    /// `check-config` names a directory given as the config plainly, and warns about a web
    /// listener on every interface while still accepting it.
    @Test func checkConfigSaysWhatIsWrongPlainly() async throws {
        let executable = try #require(BotLiveTests.builtExecutable())
        let folder = try TemporaryDirectory(prefix: "bot-check-faults")
        let (status, output) = try await runProcess(executable, ["check-config", "--config", folder.path])
        #expect(status == BotExitStatus.configuration)
        #expect(output.contains("\(folder.path) is a directory, not a config file"), "\(output)")
        #expect(!output.contains("NSCocoaErrorDomain"), "\(output)")

        let open = folder.file("open.yaml")
        try """
        irc: {server: irc.example.org, nick: OpenBot, channels: ["#a"]}
        web: {enabled: true, listen: "0.0.0.0:8080", public_url: "http://class.example.org"}
        """.write(toFile: open, atomically: true, encoding: .utf8)
        let (openStatus, openOutput) = try await runProcess(executable, ["check-config", "--config", open])
        #expect(openStatus == 0, "\(openOutput)")
        #expect(openOutput.contains("warning: web.listen: 0.0.0.0:8080 listens on every network interface"))

        let spaced = folder.file("spaced.yaml")
        try "irc: {server: irc.example.org, nick: SpaceBot, channels: [\"#a b c\"]}\n".write(
            toFile: spaced, atomically: true, encoding: .utf8)
        let (spacedStatus, spacedOutput) = try await runProcess(executable, ["check-config", "--config", spaced])
        #expect(spacedStatus != 0)
        #expect(spacedOutput.contains("irc.channels[0]: \"#a b c\" has 3 words"), "\(spacedOutput)")
    }
}
