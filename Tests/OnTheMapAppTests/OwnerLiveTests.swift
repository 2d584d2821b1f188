import BotTesting
import Foundation
import IRCProtocol
import Testing

/// The built bot on InspIRCd, steered by its owner from IRC: a stranger is refused; the owner joins
/// and leaves channels, speaks through the bot, ignores and un-ignores a user, reloads the config
/// (by `!reload` and by SIGHUP: new channels, a new command prefix), reads `!status`, and stops it.
@Suite(.tags(.startsProcesses), .serialized, .timeLimit(.minutes(4))) struct OwnerLiveTests {
    @Test func theOwnerSteersTheRunningBotFromIRC() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await LiveBotSetup.withServer("inspircd") { port, caFile in
            try await Self.steer(executable, port: port, caFile: caFile)
        }
    }

    static func botLines(_ user: TestIRCUser, _ what: String) async throws -> String {
        let message = try await user.waitForMessage(timeout: .seconds(15), what) {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBot"
        }
        return message.parameters.last ?? ""
    }

    static func steer(_ executable: String, port: Int, caFile: String) async throws {
        let folder = try TemporaryDirectory(prefix: "owner-live")
        let database = folder.file("class.sqlite")
        let owners = "  owners: [\"boss!*@*\"]"
        // The keyless #class says everything, so that !reload's answer is about the config's changes
        // and not also the open channel's warning.
        let config = try LiveBotSetup.writeConfig(
            in: folder, port: port, caFile: caFile, database: database, ircExtra: owners,
            extra: "privacy: {open_channel: full}")
        let boss = try await TestIRCUser.connect(port: port, caFile: caFile, nick: "boss")
        let mallory = try await TestIRCUser.connect(port: port, caFile: caFile, nick: "mallory")
        let watcher = try await TestIRCUser.connect(port: port, caFile: caFile, nick: "watcher")
        try await watcher.join("#class")
        try await watcher.join("#extra")
        let process = try BotProcess(executable: executable, config: config, log: folder.file("bot.log"))
        defer { process.kill() }
        _ = try await watcher.waitForMessage(timeout: .seconds(30), "the bot's JOIN") {
            $0.command == "JOIN" && $0.sourceNick == "MapBot"
        }

        // A stranger is refused, and nothing happens.
        try await mallory.privmsg("MapBot", "!join #extra")
        #expect(try await botLines(mallory, "the refusal") == "!join is for the bot's owners only.")

        try await boss.privmsg("MapBot", "!join #extra")
        #expect(try await botLines(boss, "join reply") == "Joining #extra.")
        _ = try await watcher.waitForMessage(timeout: .seconds(10), "JOIN #extra") {
            $0.command == "JOIN" && $0.sourceNick == "MapBot" && $0.parameters.first == "#extra"
        }
        try await boss.privmsg("MapBot", "!say #extra Office hours moved to 4 pm.")
        let said = try await watcher.waitForMessage(timeout: .seconds(10), "the line said") {
            $0.command == "PRIVMSG" && $0.parameters.first == "#extra"
        }
        #expect(said.parameters.last == "Office hours moved to 4 pm.")
        #expect(try await botLines(boss, "say reply") == "Said in #extra.")
        try await boss.privmsg("MapBot", "!part #extra")
        #expect(try await botLines(boss, "part reply") == "Leaving #extra.")
        _ = try await watcher.waitForMessage(timeout: .seconds(10), "PART #extra") {
            $0.command == "PART" && $0.sourceNick == "MapBot"
        }

        // Ignored: no answer at all; lifted: answered again.
        try await boss.privmsg("MapBot", "!ignore mallory 30")
        #expect(try await botLines(boss, "ignore reply") == "Ignoring mallory!*@* for 30 minutes.")
        try await mallory.privmsg("MapBot", "!ping")
        try await boss.privmsg("MapBot", "!ignores")
        #expect(try await botLines(boss, "ignores").hasPrefix("Ignoring 1: mallory!*@* (30 min left, by boss)"))
        try await boss.privmsg("MapBot", "!unignore mallory")
        #expect(try await botLines(boss, "unignore reply") == "No longer ignoring mallory!*@*.")
        try await mallory.privmsg("MapBot", "!ping")
        #expect(try await botLines(mallory, "pong after unignore") == "pong")
        let pongs = await mallory.receivedLines.filter { $0.hasSuffix(" :pong") }
        #expect(pongs.count == 1, "the ping sent while ignored was answered: \(pongs)")

        // !reload: a new channel and a new prefix apply at once; a new nick waits for a restart.
        try LiveBotSetup.writeConfig(
            in: folder, port: port, caFile: caFile, database: database,
            ircExtra: owners + "\n  command_prefix: \"?\"\n  alt_nicks: [MapBot2]",
            extra: "privacy: {open_channel: full}"
        ).rewriteChannels(["#class", "#extra"])
        try await boss.privmsg("MapBot", "!reload")
        let reloaded = try await botLines(boss, "reload reply")
        #expect(reloaded.contains("applied irc.channels, irc.command_prefix"), "\(reloaded)")
        #expect(reloaded.contains("needs a restart: irc.nick"), "\(reloaded)")
        _ = try await watcher.waitForMessage(timeout: .seconds(10), "JOIN #extra after reload") {
            $0.command == "JOIN" && $0.sourceNick == "MapBot" && $0.parameters.first == "#extra"
        }
        try await boss.privmsg("MapBot", "?status")
        let status = try await botLines(boss, "status")
        #expect(status.contains("registered on 127.0.0.1:\(port) over TLS as MapBot"), "\(status)")
        // InspIRCd names its bot mode (BOT=B): the bot set it on itself, and says so.
        #expect(status.contains("as MapBot (bot mode +B, kept by the server);"), "\(status)")
        #expect(status.contains("#class") && status.contains("#extra"), "\(status)")

        // SIGHUP: the channel dropped from the file is left.
        try LiveBotSetup.writeConfig(
            in: folder, port: port, caFile: caFile, database: database, ircExtra: owners + "\n  command_prefix: \"?\""
        ).rewriteChannels(["#class"])
        kill(process.process.processIdentifier, SIGHUP)
        _ = try await watcher.waitForMessage(timeout: .seconds(10), "PART #extra after SIGHUP") {
            $0.command == "PART" && $0.sourceNick == "MapBot" && $0.parameters.first == "#extra"
        }

        try await boss.privmsg("MapBot", "?quit See you next term")
        let quit = try await watcher.waitForMessage(timeout: .seconds(15), "the bot's QUIT") {
            $0.command == "QUIT" && $0.sourceNick == "MapBot"
        }
        #expect(quit.parameters.last?.contains("See you next term") == true, "\(quit)")
        await process.process.waitForExit(timeout: .seconds(30))
        #expect(!process.process.isRunning)
        #expect(process.process.terminationStatus == 0)
        let log = try String(contentsOfFile: folder.file("bot.log"), encoding: .utf8)
        #expect(log.contains("owner command refused"))
        #expect(log.contains("config reloaded"))
        for user in [boss, mallory, watcher] { await user.quit() }
    }
}

extension String {
    /// Rewrites the `channels:` line of the config file at this path.
    fileprivate func rewriteChannels(_ channels: [String]) throws {
        let text = try String(contentsOfFile: self, encoding: .utf8)
        let list = channels.map { "\"\($0)\"" }.joined(separator: ", ")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("  channels:") ? "  channels: [\(list)]" : String(line)
        }
        try lines.joined(separator: "\n").write(toFile: self, atomically: true, encoding: .utf8)
    }
}
