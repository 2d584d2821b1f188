import BotTesting
import Foundation
import IRCProtocol
import Testing

/// Two real `onthemap-bot run` processes on one InspIRCd: bot A keeps the class in SQLite and
/// serves it as the v1 API; bot B uses A's `/v1` as its `udacity` backend. A student logs in and
/// posts through B, and both channels hear the announcement: B's at once, A's through the API.
@Suite(.tags(.startsProcesses), .serialized) struct BotOverBotAPILiveTests {
    static let password = "over-the-api-pw-1"
    static let email = "rosalind@class.test"

    @Test(.timeLimit(.minutes(3)))
    func aPostThroughTheSecondBotIsAnnouncedByBoth() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built")
        let folder = try TemporaryDirectory(prefix: "bot-over-api")
        try await InspircdServer.withRunning { server in
            try await Self.scenario(executable: executable, folder: folder, server: server)
        }
    }

    static func irc(nick: String, channel: String, server: InspircdServer) -> String {
        """
        irc:
          server: 127.0.0.1
          port: \(server.tlsPort)
          tls_ca_file: \(server.certificate.certificatePath)
          nick: \(nick)
          channels: ["\(channel)"]
          announce_to: ["\(channel)"]
        """
    }

    static func scenario(executable: String, folder: TemporaryDirectory, server: InspircdServer) async throws {
        let webPort = try await FreePort.pick()
        let configA = folder.file("a.yaml")
        try """
        \(irc(nick: "MapBotA", channel: "#alpha", server: server))
        service:
          backend: local
          database: \(folder.file("class.sqlite"))
          api: {enabled: true}
        web:
          enabled: true
          listen: 127.0.0.1:\(webPort)
          public_url: http://127.0.0.1:\(webPort)
          visibility: public   # bot B reads A's pins through the API without a session
        plugins:
          announce:
            poll_seconds: 3600
        """.write(toFile: configA, atomically: true, encoding: .utf8)
        let configB = folder.file("b.yaml")
        try """
        \(irc(nick: "MapBotB", channel: "#beta", server: server))
        service:
          backend: udacity
          udacity_url: http://127.0.0.1:\(webPort)/v1
        plugins:
          announce:
            poll_seconds: 3600
        privacy:
          open_channel: full   # #beta has no key: the full announcement is what is tested
        """.write(toFile: configB, atomically: true, encoding: .utf8)
        let roster = folder.file("roster.csv")
        try "email,first_name,last_name,password\n\(email),Rosalind,Franklin,\(password)\n"
            .write(toFile: roster, atomically: true, encoding: .utf8)
        let imported = try await runCommand(executable, ["accounts", "import", "--config", configA, roster])
        #expect(imported.contains("1 added"), "\(imported)")

        let watcher = try await TestIRCUser.connect(
            port: server.tlsPort, caFile: server.certificate.certificatePath, nick: "watcher")
        try await watcher.join("#alpha")
        try await watcher.join("#beta")
        var processes: [BotProcess] = []
        defer { for process in processes { process.kill() } }
        for (nick, config) in [("MapBotA", configA), ("MapBotB", configB)] {
            processes.append(try BotProcess(executable: executable, config: config, log: folder.file("\(nick).log")))
            _ = try await watcher.waitForMessage(timeout: .seconds(30), "\(nick)'s JOIN") {
                $0.command == "JOIN" && $0.sourceNick == nick
            }
        }
        try await processes[0].waitForLog("web map listener up", timeout: .seconds(30))
        // The announcers' first rounds (at start) are over once each has read the map: each logs it.
        for process in processes { try await process.waitForLog("announcer started fresh", timeout: .seconds(30)) }

        let student = try await TestIRCUser.connect(
            port: server.tlsPort, caFile: server.certificate.certificatePath, nick: "rosalind")
        try await student.privmsg("MapBotB", "!login \(email) \(password)")
        let welcome = try await student.waitForMessage(timeout: .seconds(30), "welcome") {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBotB"
        }
        #expect(welcome.parameters.last?.hasPrefix("Welcome, Rosalind Franklin!") == true, "\(welcome)")

        let link = "https://class.example/rosalind"
        try await student.privmsg("MapBotB", "!post Paris, France | \(link)")
        let posted = try await student.waitForMessage(timeout: .seconds(30), "post reply") {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBotB"
        }
        #expect(posted.parameters.last?.hasPrefix("You are on the map") == true, "\(posted)")

        // Both channels hear of the pin, each from its own bot, well before any poll.
        // Looked at as each line arrives.
        let announcers = { @Sendable (lines: [String]) -> [String: String] in
            var heard: [String: String] = [:]
            for line in lines {
                guard let message = try? IRCMessage(parsing: line, maxLineBytes: 16_384), message.command == "PRIVMSG",
                    let channel = message.parameters.first, let text = message.parameters.last,
                    text.hasPrefix("New pin: Rosalind Franklin"), text.hasSuffix(link)
                else { continue }
                heard[channel] = message.sourceNick
            }
            return heard
        }
        _ = try? await watcher.waitForLines(timeout: .seconds(30), "both announcements") { announcers($0).count >= 2 }
        let heard = announcers(await watcher.receivedLines)
        #expect(heard == ["#alpha": "MapBotA", "#beta": "MapBotB"])

        // Bot A's own commands see the pin at once.
        try await student.privmsg("MapBotA", "!where Rosalind")
        let whereAnswer = try await student.waitForMessage(timeout: .seconds(30), "!where on A") {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBotA"
        }
        #expect(whereAnswer.parameters.last?.contains("Paris") == true, "\(whereAnswer)")
        await student.quit()
        await watcher.quit()
    }
}
