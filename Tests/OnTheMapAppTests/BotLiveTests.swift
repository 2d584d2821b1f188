import BotTesting
import Foundation
import IRCProtocol
import Logging
import OnTheMapApp
import Testing

/// The whole bot against a real ngircd over TLS (certificate made at test time).
@Suite(.tags(.startsProcesses), .serialized) struct BotLiveTests {
    static func config(
        for server: NgircdServer, nick: String, channel: String, database: String
    ) throws -> BotConfiguration {
        try ConfigLoader.parse(
            yaml: """
                irc:
                  server: 127.0.0.1
                  port: \(server.tlsPort)
                  tls_ca_file: \(server.certificate.certificatePath)
                  nick: \(nick)
                  channels: ["\(channel)"]
                  announce_to: ["\(channel)"]
                  quit_message: Class is over
                service:
                  database: \(database)
                """)
    }

    static let quietLogger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func botJoinsOverTLSAndAnswersInChannelAndPrivately() async throws {
        try await NgircdServer.withRunning { server in try await botAnswers(on: server) }
    }

    func botAnswers(on server: NgircdServer) async throws {
        let student = try await TestIRCUser.connect(
            port: server.tlsPort, caFile: server.certificate.certificatePath, nick: "alice")
        try await student.join("#class")

        let folder = try TemporaryDirectory(prefix: "bot-live")
        let bot = try await BotAssembly.makeService(
            config: try Self.config(
                for: server, nick: "MapBot", channel: "#class", database: folder.file("bot.sqlite")),
            logger: Self.quietLogger)
        let running = Task { await bot.runUntilStopped() }

        _ = try await student.waitForMessage(timeout: .seconds(20), "the bot's JOIN") {
            $0.command == "JOIN" && $0.sourceNick == "MapBot"
        }
        try await student.privmsg("#class", "!ping")
        let pong = try await student.waitForMessage(timeout: .seconds(10), "pong") {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBot"
        }
        #expect(pong.parameters == ["#class", "alice: pong"])

        try await student.privmsg("MapBot", "!help ping")
        let help = try await student.waitForMessage(timeout: .seconds(10), "help") {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBot"
        }
        #expect(help.parameters.first == "alice")
        #expect(help.parameters.last?.hasPrefix("!ping — ") == true)

        try await student.privmsg("MapBot", "\u{01}VERSION\u{01}")
        let version = try await student.waitForMessage(timeout: .seconds(10), "CTCP VERSION") {
            $0.command == "NOTICE" && $0.sourceNick == "MapBot"
        }
        // The CTCP answer carries the same number and commit as `--version`.
        #expect(version.parameters.last == "\u{01}VERSION \(BotVersion.ctcpReply)\u{01}")
        #expect(version.parameters.last?.contains(BotVersion.current) == true)

        await bot.shutdown()
        let quit = try await student.waitForMessage(timeout: .seconds(10), "the bot's QUIT") {
            $0.command == "QUIT" && $0.sourceNick == "MapBot"
        }
        #expect(quit.parameters.last?.contains("Class is over") == true)
        #expect(await running.value == .shutDown)
        await student.quit()
    }

    @Test func theExecutableQuitsCleanlyOnSIGTERM() async throws {
        let executable = try #require(Self.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await NgircdServer.withRunning { server in try await executableQuits(executable, on: server) }
    }

    func executableQuits(_ executable: String, on server: NgircdServer) async throws {
        let folder = try TemporaryDirectory(prefix: "bot-sigterm")
        let configPath = folder.file("bot.yaml")
        try """
        irc:
          server: 127.0.0.1
          port: \(server.tlsPort)
          tls_ca_file: \(server.certificate.certificatePath)
          nick: TermBot
          channels: ["#term"]
          quit_message: Terminated politely
          sasl: {mechanism: PLAIN, username: TermBot, password: "Sasl-Secret-4711", required: false}
        service:
          database: \(folder.file("bot.sqlite"))
        """.write(toFile: configPath, atomically: true, encoding: .utf8)
        let student = try await TestIRCUser.connect(
            port: server.tlsPort, caFile: server.certificate.certificatePath, nick: "watcher")
        try await student.join("#term")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["run", "--config", configPath, "--log-level", "debug", "--log-format", "json"]
        let logFile = folder.file("bot.log")
        #expect(FileManager.default.createFile(atPath: logFile, contents: nil))
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        process.standardOutput = log
        process.standardError = log
        try process.run()

        _ = try await student.waitForMessage(timeout: .seconds(20), "the bot's JOIN") {
            $0.command == "JOIN" && $0.sourceNick == "TermBot"
        }
        process.terminate()  // SIGTERM
        let quit = try await student.waitForMessage(timeout: .seconds(10), "the bot's QUIT") {
            $0.command == "QUIT" && $0.sourceNick == "TermBot"
        }
        #expect(quit.parameters.last?.contains("Terminated politely") == true)
        await process.waitForExit(timeout: .seconds(30))
        #expect(!process.isRunning)
        #expect(process.terminationReason == .exit)
        #expect(
            process.terminationStatus == 0, "bot log: \((try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "")")
        // JSON lines, one object each, and never the SASL password (ngircd offers no SASL: the
        // bot says so and goes on, as `required: false` asks).
        let logText = try String(contentsOfFile: logFile, encoding: .utf8)
        let lines = logText.split(separator: "\n")
        #expect(lines.count >= 3)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["message"] is String, "\(line)")
            #expect(object?["level"] is String, "\(line)")
        }
        #expect(!logText.contains("Sasl-Secret-4711"))
        await student.quit()
    }

    @Test func checkConfigNamesProblemsAndFailsOnABadFile() async throws {
        let executable = try #require(Self.builtExecutable())
        let folder = try TemporaryDirectory(prefix: "bot-check")
        let bad = folder.file("bad.yaml")
        try "irc:\n  server: x\n  port: 0\n  nickk: A\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let (status, output) = try await runProcess(executable, ["check-config", "--config", bad])
        #expect(status != 0)
        #expect(output.contains("irc.port"))
        #expect(output.contains("irc.nickk: unknown key (did you mean \"nick\"?)"))
        #expect(output.contains("irc.nick: is missing"))

        let good = folder.file("good.yaml")
        try "irc:\n  server: irc.example.org\n  nick: GoodBot\n  channels: ['#a']\n".write(
            toFile: good, atomically: true, encoding: .utf8)
        let (okStatus, okOutput) = try await runProcess(executable, ["check-config", "--config", good])
        #expect(okStatus == 0, "\(okOutput)")
        #expect(okOutput.contains("is valid"))
    }

    /// A binary of this package (`onthemap-bot` unless named) that SwiftPM built beside the test bundle.
    static func builtExecutable(_ name: String = "onthemap-bot") -> String? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }
}
