import BotTesting
import Foundation
import IRCProtocol
import Testing

/// The built bot on InspIRCd (with bot mode), against what an owner or another bot can make it do:
/// no reply loop (an owner's `!say` to its own nick is refused, a user marked as a bot (+B) gets no
/// answer at all, the greeting a person gets for a chat line is a NOTICE, which nothing answers), no
/// busy owner shut out, no reload that opens the bot silently or expands a hostile file.
@Suite(.tags(.startsProcesses), .serialized, .timeLimit(.minutes(3))) struct ReplyLoopLiveTests {
    @Test func theBotAnswersNeitherItselfNorOtherBots() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await LiveBotSetup.withServer("inspircd") { port, caFile in
            try await Self.scenario(executable, port: port, caFile: caFile)
        }
    }

    static func scenario(_ executable: String, port: Int, caFile: String) async throws {
        let folder = try TemporaryDirectory(prefix: "reply-loop")
        let config = try LiveBotSetup.writeConfig(
            in: folder, port: port, caFile: caFile, database: folder.file("class.sqlite"),
            ircExtra: "  owners: [\"boss!*@*\"]")
        let boss = try await TestIRCUser.connect(port: port, caFile: caFile, nick: "boss")
        let robot = try await TestIRCUser.connect(port: port, caFile: caFile, nick: "robot")
        let alice = try await TestIRCUser.connect(port: port, caFile: caFile, nick: "alice")
        try await alice.join("#class")
        let process = try BotProcess(executable: executable, config: config, log: folder.file("bot.log"))
        defer { process.kill() }
        _ = try await alice.waitForMessage(timeout: .seconds(30), "the bot's JOIN") {
            $0.command == "JOIN" && $0.sourceNick == "MapBot"
        }

        try await boss.privmsg("MapBot", "!say MapBot hi")
        let refused = try await boss.waitForMessage(timeout: .seconds(15), "the refusal") {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBot"
        }
        #expect(refused.parameters.last == "I will not talk to myself: give a channel or someone else's nick.")

        // Marked as a bot by the server: nothing, not even to a command.
        try await robot.send("MODE robot +B")
        _ = try await robot.waitForMessage(timeout: .seconds(10), "+B") { $0.command == "MODE" }
        try await robot.privmsg("MapBot", "Hi! I am a bot too.")
        try await robot.privmsg("MapBot", "!ping")
        // A person's chat line, sent after the robot's: once its answer is here, the robot's lines
        // were handled before it.
        try await alice.privmsg("MapBot", "hello")
        let greeting = try await alice.waitForMessage(timeout: .seconds(15), "the greeting") {
            $0.sourceNick == "MapBot" && ($0.command == "NOTICE" || $0.command == "PRIVMSG")
        }
        #expect(greeting.command == "NOTICE", "an automatic reply is a NOTICE: \(greeting)")
        #expect(greeting.parameters.last == "Hi! I am a class map bot. Try !help for what I can do.")
        // The bot sent alice's greeting after anything it said to the robot, and the server relays
        // in order: once the robot's own PING is answered, such a line would be here.
        try await robot.syncWithServer()
        let toRobot = await robot.receivedLines.filter { $0.contains(":MapBot!") && !$0.contains(" JOIN ") }
        #expect(toRobot.isEmpty, "the bot answered a bot: \(toRobot)")
        await robot.quit()
        await alice.quit()
        await boss.quit()
    }

    /// The owner's side: 20 commands in a row are all answered (the flood rule is for others), and
    /// `!reload` says what check-config would warn about (an owner mask any host matches), and
    /// refuses at once a file whose YAML aliases expand to a billion values, changing nothing.
    @Test func reloadsAndABusyOwnerAreHandledSafely() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await LiveBotSetup.withServer("inspircd") { port, caFile in
            let folder = try TemporaryDirectory(prefix: "owner-reload")
            let database = folder.file("class.sqlite")
            // #class has no key; its warning is not this test's, and would make the reload's answer
            // longer than one line.
            let quiet = "privacy: {open_channel: full}"
            let config = try LiveBotSetup.writeConfig(
                in: folder, port: port, caFile: caFile, database: database, ircExtra: "  owners: [\"boss!*@*\"]",
                extra: quiet)
            let boss = try await TestIRCUser.connect(port: port, caFile: caFile, nick: "boss")
            let process = try BotProcess(executable: executable, config: config, log: folder.file("bot.log"))
            defer { process.kill() }
            try await boss.join("#class")
            _ = try await boss.waitForMessage(timeout: .seconds(30), "the bot's JOIN") {
                $0.command == "JOIN" && $0.sourceNick == "MapBot"
            }
            for _ in 0..<20 { try await boss.privmsg("MapBot", "!ping") }
            let pongs = try await boss.waitForMessages(count: 20, timeout: .seconds(60), "20 pongs") {
                $0.sourceNick == "MapBot" && $0.parameters.last == "pong"
            }
            #expect(pongs.count == 20)

            let open = try LiveBotSetup.writeConfig(
                in: folder, port: port, caFile: caFile, database: database, ircExtra: "  owners: [\"*!*@*\"]",
                extra: quiet)
            #expect(open == config)
            try await boss.privmsg("MapBot", "!reload")
            let reloaded = try await boss.waitForMessage(timeout: .seconds(15), "the reload") {
                $0.sourceNick == "MapBot" && $0.command == "PRIVMSG"
            }
            #expect(
                reloaded.parameters.last?.contains("Warning: irc.owners: *!*@* lets in anyone") == true, "\(reloaded)")

            try ConfigBoundsTests.billionLaughs.write(toFile: config, atomically: true, encoding: .utf8)
            try await boss.privmsg("MapBot", "!reload")
            let refused = try await boss.waitForMessage(timeout: .seconds(15), "the refused reload") {
                $0.sourceNick == "MapBot" && $0.command == "PRIVMSG"
            }
            #expect(
                refused.parameters.last?.contains("more than 100000 values once its YAML aliases are expanded") == true,
                "\(refused)")
            try await boss.privmsg("MapBot", "!ping")
            _ = try await boss.waitForMessage(timeout: .seconds(15), "still answering") {
                $0.sourceNick == "MapBot" && $0.parameters.last == "pong"
            }
            await boss.quit()
        }
    }
}
