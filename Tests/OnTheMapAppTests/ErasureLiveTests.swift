import BotTesting
import Foundation
import OnTheMapService
import SQLiteDirectory
import Testing

/// The erasure as a student meets it: the built bot on a real ircd over TLS and a real SQLite
/// file. After `!login`, `!forget` and `!forget confirm`, while the bot still runs, the student's
/// email and name are in neither the database file nor its write-ahead log.
@Suite(.tags(.startsProcesses)) struct ErasureLiveTests {
    @Test func forgetConfirmLeavesNoByteOfTheStudentInTheRunningBotsFiles() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await LiveBotSetup.withServer("ngircd") { port, caFile in
            try await forget(executable, port: port, caFile: caFile)
        }
    }

    func forget(_ executable: String, port: Int, caFile: String) async throws {
        let folder = try TemporaryDirectory(prefix: "erasure-live")
        let database = folder.file("bot.sqlite")
        let email = "zebulon.quixmoor@class.test"
        let password = "correct horse battery"
        let directory = try SQLiteStudentDirectory(path: database)
        let account = try await directory.addAccount(
            email: email, password: password, firstName: "Zebulon", lastName: "Quixmoor")
        _ = try await directory.createLocation(
            asTyped: PinDraft(
                uniqueKey: account.accountKey, firstName: "Zebulon", lastName: "Quixmoor", mapString: "Reykjavik",
                mediaURL: "https://example.org/zeb", coordinate: Coordinate(latitude: 64.1, longitude: -21.9)),
            session: nil)
        try directory.close()
        let config = try LiveBotSetup.writeConfig(in: folder, port: port, caFile: caFile, database: database)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["run", "--config", config]
        let logFile = folder.file("bot.log")
        #expect(FileManager.default.createFile(atPath: logFile, contents: nil))
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        process.standardOutput = log
        process.standardError = log
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let student = try await TestIRCUser.connect(port: port, caFile: caFile, nick: "zeb")
        try await student.join("#class")
        _ = try await student.waitForMessage(timeout: .seconds(20), "the bot's JOIN") {
            $0.command == "JOIN" && $0.sourceNick == "MapBot"
        }
        func ask(_ text: String, _ expected: String) async throws -> String {
            try await student.privmsg("MapBot", text)
            let answer = try await student.waitForMessage(timeout: .seconds(15), expected) {
                $0.command == "PRIVMSG" && $0.sourceNick == "MapBot" && $0.parameters.last?.hasPrefix(expected) == true
            }
            return answer.parameters.last ?? ""
        }
        _ = try await ask("!login \(email) \(password)", "Welcome, Zebulon Quixmoor!")
        _ = try await ask("!units mi", "OK, I will show you distances in miles")
        _ = try await ask("!forget", "This erases for good")
        let erased = try await ask("!forget confirm", "Erased:")
        #expect(erased.contains("your pin (Reykjavik)"), "\(erased)")
        let whoami = try await ask("!whoami", "You are")
        #expect(whoami.hasPrefix("You are not logged in."), "\(whoami)")

        #expect(process.isRunning)
        for file in [database, database + "-wal"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
            for secret in [email, "Zebulon", "Quixmoor", account.accountKey] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is still in \(file)")
            }
        }
        await student.quit()
        process.terminate()
        process.waitUntilExit()
    }
}
