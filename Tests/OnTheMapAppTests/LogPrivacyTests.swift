import BotKit
import BotTesting
import Foundation
import IRCProtocol
import Logging
import OnTheMapApp
import OnTheMapService
import SQLiteDirectory
import Testing

/// What the bot's log keeps about the students who send it commands, with the router the app
/// assembles from a config (`BotAssembly.makeRouter`) over a SQLite class.
@Suite struct LogPrivacyTests {
    /// The router of `yaml` (a class on a fresh SQLite file) logging into `recorder`.
    static func router(_ yaml: String, recorder: LogRecorder, folder: TemporaryDirectory) async throws -> (
        CommandRouter, ServiceStack
    ) {
        let database = folder.file("class.sqlite")
        let setup = try SQLiteStudentDirectory(path: database)
        _ = try await setup.addAccount(
            email: "ada@class.test", password: "ada-Secret-Pw-1", firstName: "Ada", lastName: "Lovelace")
        try setup.close()
        let config = try ConfigLoader.parse(
            yaml: """
                irc: {server: 127.0.0.1, nick: MapBot, channels: ["#class"]}
                service: {backend: local, database: "\(database)"}
                \(yaml)
                """)
        let stack = try await ServiceStack.make(
            config: config, logger: Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() })
        let router = BotAssembly.makeRouter(
            config: config, stack: stack, transport: RecordingTransport(nick: "MapBot"), logger: recorder.logger())
        return (router, stack)
    }

    static let ada = UserIdentity(nick: "ada", user: "~ada", host: "home-of-ada.example")

    static func send(_ router: CommandRouter, _ text: String) async {
        await router.handle(IRCUserMessage(sender: ada, origin: .privateMessage, text: text))
        await router.waitUntilIdle()
    }

    /// By default a command's log line names neither what the student typed nor their nick or
    /// host: only the command, its outcome and a pseudonym, the same one for each of their lines.
    @Test func commandLinesKeepNoStudentDataByDefault() async throws {
        let folder = try TemporaryDirectory(prefix: "log-privacy")
        let recorder = LogRecorder()
        let (router, stack) = try await Self.router("", recorder: recorder, folder: folder)
        await Self.send(router, "!login ada@class.test ada-Secret-Pw-1")
        await Self.send(router, "!post 1600 Amphitheatre Parkway, Mountain View")
        await Self.send(router, "!where Grace Hopper")
        await stack.shutdown()
        let lines = recorder.all.filter { $0.contains("] command ") }
        #expect(lines.count == 3, "\(recorder.all)")
        for line in lines {
            #expect(!line.contains("Amphitheatre") && !line.contains("Grace") && !line.contains("argument="), "\(line)")
            #expect(!line.contains("ada") && !line.contains("home-of") && !line.contains("Secret"), "\(line)")
        }
        let pseudonyms = Set(lines.compactMap { $0.split(separator: " ").first { $0.hasPrefix("user=p-") } })
        #expect(pseudonyms.count == 1, "one pseudonym for one sender: \(lines)")
    }

    /// `log.student_data: true` logs the arguments and the sender's mask, and check-config warns of it.
    @Test func studentDataIsAnOptIn() async throws {
        let folder = try TemporaryDirectory(prefix: "log-privacy")
        let recorder = LogRecorder()
        let yaml = "log: {student_data: true}"
        let (router, stack) = try await Self.router(yaml, recorder: recorder, folder: folder)
        await Self.send(router, "!login ada@class.test ada-Secret-Pw-1")
        await Self.send(router, "!where Grace Hopper")
        await stack.shutdown()
        let line = try #require(recorder.all.first { $0.contains("] command ") && $0.contains("command=where") })
        #expect(line.contains("argument=Grace Hopper") && line.contains("user=ada!~ada@home-of-ada.example"), "\(line)")
        let config = try ConfigLoader.parse(
            yaml: "irc: {server: 127.0.0.1, nick: MapBot, channels: [\"#class\"]}\n" + yaml)
        #expect(ConfigLoader.warnings(for: config).contains { $0.key == "log.student_data" })
        #expect(
            !ConfigLoader.warnings(for: try ConfigLoader.parse(yaml: "irc: {server: 127.0.0.1, nick: MapBot}")).contains
            {
                $0.key == "log.student_data"
            })
    }

    /// A class's pseudonyms stay the same across restarts (the key is kept in the class's state
    /// store), differ between classes, and do not contain what they stand for.
    @Test func pseudonymsAreStableWithinAClassOnly() async throws {
        let folder = try TemporaryDirectory(prefix: "log-privacy")
        let first = try SQLiteStudentDirectory(path: folder.file("a.sqlite"))
        let other = try SQLiteStudentDirectory(path: folder.file("b.sqlite"))
        let ada = "~ada@home-of-ada.example"
        let before = await LogPseudonyms.load(from: first).pseudonym(of: ada)
        let again = await LogPseudonyms.load(from: first).pseudonym(of: ada.uppercased())
        let elsewhere = await LogPseudonyms.load(from: other).pseudonym(of: ada)
        #expect(before == again)
        #expect(before != elsewhere)
        // "p-" and 12 hex digits: nothing of the user or host survives but by chance ("ada" is hex).
        #expect(
            before.hasPrefix("p-") && before.count == 14
                && before.dropFirst(2).allSatisfy { "0123456789abcdef".contains($0) }, "\(before)")
        try first.close()
        try other.close()
    }
}
