import BotTesting
import Foundation
import IRCProtocol
import Testing

/// The built bot on InspIRCd, paced at 10 lines, then 4 a second, against a crowd of 60 connections from one address, each with its own nick and user name, each
/// sending `!register` and `!post Paris` privately at once: a student elsewhere is answered within
/// 5 s while the crowd waits (the crowd shares one budget of commands and one turn of the send
/// queue), and once the crowd has gone the queue empties instead of writing to nobody for minutes.
@Suite(.tags(.runsAlone), .serialized, .timeLimit(.minutes(3))) struct HostCrowdLiveTests {
    static let crowdSize = 60

    @Test func aCrowdFromOneAddressDoesNotMakeOthersWait() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await LiveBotSetup.withServer("inspircd") { port, caFile in
            let folder = try TemporaryDirectory(prefix: "host-crowd")
            let config = try LiveBotSetup.writeConfig(
                in: folder, port: port, caFile: caFile, database: folder.file("class.sqlite"),
                ircExtra: "  owners: [\"boss!*@*\"]\n  flood: {burst: 10, lines_per_second: 4}")
            try
                (try String(contentsOfFile: config, encoding: .utf8)
                + "\nplugins:\n  login:\n    allow_registration: true\n")
                .write(toFile: config, atomically: true, encoding: .utf8)
            let ada = try await TestIRCUser.connect(
                port: port, caFile: caFile, nick: "ada", localAddress: "127.0.0.2")
            let boss = try await TestIRCUser.connect(
                port: port, caFile: caFile, nick: "boss", localAddress: "127.0.0.3")
            try await ada.join("#class")
            var crowd: [TestIRCUser] = []
            for batch in stride(from: 0, to: Self.crowdSize, by: 20) {
                crowd += try await withThrowingTaskGroup(of: TestIRCUser.self) { group in
                    for index in batch..<min(batch + 20, Self.crowdSize) {
                        group.addTask {
                            try await TestIRCUser.connect(
                                port: port, caFile: caFile, nick: "crowd\(index)", username: "c\(index)",
                                localAddress: "127.0.0.77")
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            let process = try BotProcess(executable: executable, config: config, log: folder.file("bot.log"))
            defer { process.kill() }
            _ = try await ada.waitForMessage(timeout: .seconds(30), "the bot's JOIN") {
                $0.command == "JOIN" && $0.sourceNick == "MapBot"
            }

            for (index, member) in crowd.enumerated() {
                try await member.privmsg(
                    "MapBot", "!register crowd\(index)@crowd.test pw-\(index)-secret Crowd \(index)")
                try await member.privmsg("MapBot", "!post Paris")
            }
            // The bystander asks once the crowd's commands are being refused (its burst is in).
            try await process.waitForLog("refusing commands from a busy host", timeout: .seconds(30))
            for round in 1...2 {
                let asked = ContinuousClock.now
                try await ada.privmsg("#class", "!ping")
                _ = try await ada.waitForMessage(timeout: .seconds(60), "pong \(round)") {
                    $0.command == "PRIVMSG" && $0.sourceNick == "MapBot" && $0.parameters.last == "ada: pong"
                }
                let waited = asked.duration(to: .now)
                #expect(waited < .seconds(5), "a bystander's !ping waited \(waited) behind the crowd")
                // The second !ping is asked two seconds later, while the crowd's answers still drain
                // (the time between the two is the subject, not a wait for something).
                if round == 1 { try await Task.sleep(for: .seconds(2)) }
            }

            // Three of the crowd were told that their address sends too much; the rest of the
            // refusals were silent.
            let log = try String(contentsOfFile: folder.file("bot.log"), encoding: .utf8)
            let told = log.components(separatedBy: "refusing commands from a busy host").count - 1
            #expect(told == 3, "\(told) refusals told")

            for member in crowd { await member.quit() }
            // What still waited for the crowd is dropped as the server says they are gone: the
            // queue is empty long before 120 queued answers would have been written at 4 a second.
            try await process.waitForLog("The send queue is empty:", timeout: .seconds(20))
            try await boss.privmsg("MapBot", "!status")
            let status = try await boss.waitForMessage(timeout: .seconds(30), "status") {
                $0.sourceNick == "MapBot" && ($0.parameters.last ?? "").contains("lines queued to send")
            }
            let text = status.parameters.last ?? ""
            let queued =
                Int(text.components(separatedBy: " lines queued to send")[0].split(separator: " ").last ?? "") ?? -1
            #expect(queued == 0, "lines still queued after the crowd left: \(text)")
            await ada.quit()
            await boss.quit()
        }
    }
}
