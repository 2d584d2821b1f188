import BotTesting
import Foundation
import OnTheMapService
import SQLiteDirectory
import Testing

/// The operator's `accounts forget`, run as a separate process while the built bot runs on a real
/// ircd over TLS and a real SQLite file: the running bot ends the student's session and drops their
/// open post step at once, and writes none of it back when it saves what it keeps for others.
@Suite(.tags(.startsProcesses), .timeLimit(.minutes(3))) struct OperatorErasureLiveTests {
    /// After `accounts forget`, the student's `!whoami` names nobody, their open `!post` step cannot
    /// be completed, and once another student has logged in, started a post and chosen a unit (each
    /// a write of the bot's kept state), neither the database file nor its write-ahead log holds the
    /// erased student's account key, nick, user name, email, name or place.
    @Test func accountsForgetReachesTheRunningBotBeforeItsNextWrite() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await LiveBotSetup.withServer("ngircd") { port, caFile in
            try await forget(executable, port: port, caFile: caFile)
        }
    }

    func forget(_ executable: String, port: Int, caFile: String) async throws {
        let folder = try TemporaryDirectory(prefix: "operator-erasure-live")
        let database = folder.file("bot.sqlite")
        let email = "zebulon.quixmoor@class.test"
        let password = "correct horse battery"
        let directory = try SQLiteStudentDirectory(path: database)
        let account = try await directory.addAccount(
            email: email, password: password, firstName: "Zebulon", lastName: "Quixmoor")
        _ = try await directory.addAccount(
            email: "otto@class.test", password: password, firstName: "Otto", lastName: "Roe")
        try directory.close()
        let config = try LiveBotSetup.writeConfig(in: folder, port: port, caFile: caFile, database: database)
        let process = try BotProcess(executable: executable, config: config, log: folder.file("bot.log"))
        defer { process.kill() }

        let student = try await TestIRCUser.connect(
            port: port, caFile: caFile, nick: "zebquix", username: "zqhostuser")
        try await student.join("#class")
        _ = try await student.waitForMessage(timeout: .seconds(30), "the bot's JOIN") {
            $0.command == "JOIN" && $0.sourceNick == "MapBot"
        }
        _ = try await Self.ask(student, "!login \(email) \(password)", "Welcome, Zebulon Quixmoor!")
        _ = try await Self.ask(student, "!post Lisbon", "Now send your link")
        // The open step is kept (a write the bot made before the erasure).
        #expect(Self.files(database).range(of: Data("Lisbon".utf8)) != nil)

        let forgot = try await runCommand(executable, ["accounts", "forget", "--config", config, "--email", email])
        #expect(forgot.contains("Erased \(email)"), "\(forgot)")

        let whoami = try await Self.ask(student, "!whoami", "You are")
        #expect(whoami.hasPrefix("You are not logged in."), "\(whoami)")
        _ = try await Self.ask(student, "!post https://example.org/zeb", "You need to log in first")

        let other = try await TestIRCUser.connect(port: port, caFile: caFile, nick: "ottoroe")
        _ = try await Self.ask(other, "!login otto@class.test \(password)", "Welcome, Otto Roe!")
        _ = try await Self.ask(other, "!post Paris", "Now send your link")
        _ = try await Self.ask(other, "!units mi", "OK, I will show you distances in miles")
        _ = try await Self.ask(other, "!whoami", "You are logged in as Otto Roe")

        #expect(process.process.isRunning)
        let bytes = Self.files(database)
        #expect(bytes.range(of: Data("ottoroe".utf8)) != nil, "the other student's session was kept")
        for secret in [account.accountKey, "zebquix", "zqhostuser", email, "Zebulon", "Quixmoor", "Lisbon"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is still in the database files")
        }
        await student.quit()
        await other.quit()
    }

    /// The database file and its write-ahead log, one after the other.
    static func files(_ database: String) -> Data {
        [database, database + "-wal"].reduce(into: Data()) { bytes, file in
            bytes += (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
        }
    }

    /// Sends `text` to the bot privately and returns its first answer that starts with `expected`.
    static func ask(_ user: TestIRCUser, _ text: String, _ expected: String) async throws -> String {
        try await user.privmsg("MapBot", text)
        let answer = try await user.waitForMessage(timeout: .seconds(20), "the answer to \(text)") {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBot" && $0.parameters.last?.hasPrefix(expected) == true
        }
        return answer.parameters.last ?? ""
    }
}
