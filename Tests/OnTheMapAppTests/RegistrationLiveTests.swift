import BotTesting
import Foundation
import IRCProtocol
import Testing

/// The built bot on InspIRCd with `!register` allowed: four nicks from one host make three
/// accounts at most, and registering an email that has an account gets the very answer a new one
/// gets (nothing tells who is in the class).
@Suite(.tags(.startsProcesses), .serialized, .timeLimit(.minutes(3))) struct RegistrationLiveTests {
    @Test func oneHostMakesFewAccountsAndNoAnswerTellsWhoHasOne() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await LiveBotSetup.withServer("inspircd") { port, caFile in
            let folder = try TemporaryDirectory(prefix: "registration-live")
            let config = try LiveBotSetup.writeConfig(
                in: folder, port: port, caFile: caFile, database: folder.file("class.sqlite"))
            try
                (try String(contentsOfFile: config, encoding: .utf8)
                + "\nplugins:\n  login:\n    allow_registration: true\n")
                .write(toFile: config, atomically: true, encoding: .utf8)
            let roster = folder.file("roster.csv")
            try "email,first_name,last_name,password\nradia@class.test,Radia,Perlman,original-pw-1\n"
                .write(toFile: roster, atomically: true, encoding: .utf8)
            _ = try await runCommand(executable, ["accounts", "import", "--config", config, roster])
            var users: [TestIRCUser] = []
            for index in 1...4 {
                users.append(try await TestIRCUser.connect(port: port, caFile: caFile, nick: "newbie\(index)"))
            }
            try await users[0].join("#class")
            let process = try BotProcess(executable: executable, config: config, log: folder.file("bot.log"))
            defer { process.kill() }
            _ = try await users[0].waitForMessage(timeout: .seconds(30), "the bot's JOIN") {
                $0.command == "JOIN" && $0.sourceNick == "MapBot"
            }
            func register(_ user: TestIRCUser, _ email: String) async throws -> String {
                try await user.privmsg("MapBot", "!register \(email) chosen-pw-123 Radia Perlman")
                let answer = try await user.waitForMessage(timeout: .seconds(20), "the register answer") {
                    $0.command == "PRIVMSG" && $0.sourceNick == "MapBot"
                }
                return answer.parameters.last ?? ""
            }
            let taken = try await register(users[0], "radia@class.test")
            let fresh = try await register(users[1], "fresh@class.test")
            #expect(taken == fresh.replacingOccurrences(of: "fresh@class.test", with: "radia@class.test"), "\(taken)")
            #expect(fresh.hasPrefix("Thank you."))
            _ = try await register(users[2], "third@class.test")
            let fourth = try await register(users[3], "fourth@class.test")
            #expect(fourth.hasPrefix("Your host has tried 3 registrations today"), "\(fourth)")
            // Radia's account is as it was: her own password still logs in.
            try await users[3].privmsg("MapBot", "!login radia@class.test original-pw-1")
            let welcome = try await users[3].waitForMessage(timeout: .seconds(20), "Radia's login") {
                $0.command == "PRIVMSG" && $0.sourceNick == "MapBot"
            }
            #expect(welcome.parameters.last?.hasPrefix("Welcome, Radia Perlman!") == true, "\(welcome)")
            for user in users { await user.quit() }
        }
    }
}
