import BotTesting
import Foundation
import IRCProtocol
import Testing

/// Someone holds the bot's nick when it connects (as after a server restart): the built bot warns
/// its channels once and takes the nick back as soon as it is free — at once through MONITOR on
/// InspIRCd, within one ISON poll on ngircd (no MONITOR or WATCH) — long before its slow periodic
/// retry would.
@Suite(.tags(.startsProcesses), .serialized, .timeLimit(.minutes(4))) struct NickRegainLiveTests {
    @Test(arguments: ["inspircd", "ngircd"])
    func theBotTakesItsNickBackAsSoonAsItIsFree(server: String) async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await LiveBotSetup.withServer(server) { port, caFile in
            try await Self.regain(executable, port: port, caFile: caFile)
        }
    }

    static func regain(_ executable: String, port: Int, caFile: String) async throws {
        let squatter = try await TestIRCUser.connect(port: port, caFile: caFile, nick: "MapBot")
        let watcher = try await TestIRCUser.connect(port: port, caFile: caFile, nick: "watcher")
        try await watcher.join("#class")
        let folder = try TemporaryDirectory(prefix: "nick-regain")
        let config = try LiveBotSetup.writeConfig(
            in: folder, port: port, caFile: caFile, database: folder.file("class.sqlite"))
        let process = try BotProcess(executable: executable, config: config, log: folder.file("bot.log"))
        defer { process.kill() }

        let join = try await watcher.waitForMessage(timeout: .seconds(30), "the bot's JOIN") {
            $0.command == "JOIN" && ($0.sourceNick ?? "").hasPrefix("MapBot")
        }
        let stand = try #require(join.sourceNick)
        #expect(stand != "MapBot")
        let warning = try await watcher.waitForMessage(timeout: .seconds(10), "the warning") {
            $0.command == "PRIVMSG" && $0.sourceNick == stand
        }
        #expect(warning.parameters.first == "#class")
        #expect(
            warning.parameters.last?.hasPrefix("I am \(stand) until I get my nick back; do not send logins to MapBot")
                == true, "\(warning)")

        await squatter.quit()
        let freed = ContinuousClock.now
        let change = try await watcher.waitForMessage(timeout: .seconds(15), "the bot's NICK") {
            $0.command == "NICK" && $0.sourceNick == stand
        }
        #expect(change.parameters.first == "MapBot")
        // MONITOR answers at once; an ISON poll every 5 s answers within one poll.
        #expect(freed.duration(to: .now) < .seconds(8))
        // Said once: no second warning after the nick came back. The bot answers a !ping after
        // what it had to say about the nick change: once "pong" is here, a second warning would be too.
        try await watcher.privmsg("MapBot", "!ping")
        _ = try await watcher.waitForMessage(timeout: .seconds(15), "the bot's pong") {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBot" && $0.parameters.last == "pong"
        }
        let warnings = await watcher.receivedLines.filter { $0.contains("until I get my nick back") }
        #expect(warnings.count == 1, "\(warnings)")
        await watcher.quit()
    }
}
