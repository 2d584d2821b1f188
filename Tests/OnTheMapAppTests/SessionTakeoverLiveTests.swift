import BotTesting
import Foundation
import IRCProtocol
import SQLiteDirectory
import Testing

/// Attempts to take over a student's login session, against the built bot on real ircds over TLS:
/// InspIRCd, which offers MONITOR, and ngircd, which offers neither MONITOR nor WATCH (the bot checks
/// the sign-on time WHOIS gives). Each attempt comes from the same host with the same nick and user
/// name as the student, as from a shared NAT, shell or web gateway.
@Suite(.tags(.startsProcesses), .serialized, .timeLimit(.minutes(6))) struct SessionTakeoverLiveTests {
    static let bot = "MapBot"
    static let jane = (email: "jane@class.test", password: "jane-Secret-Pw-1")
    static let notLoggedIn = "You are not logged in."
    static let loginFirst = "You need to log in first"

    /// A running bot and how to reach its server.
    struct Setup {
        let port: Int
        let caFile: String

        func connect(_ nick: String, user: String? = nil) async throws -> TestIRCUser {
            try await TestIRCUser.connect(port: port, caFile: caFile, nick: nick, username: user ?? nick)
        }
    }

    /// `!login` as Jane from `student` and the bot's welcome.
    static func logIn(_ student: TestIRCUser) async throws {
        try await student.privmsg(bot, "!login \(jane.email) \(jane.password)")
        let welcome = try await answer(to: student)
        #expect(welcome.hasPrefix("Welcome, Jane Doe!"), "\(welcome)")
    }

    /// The bot's next private answer to `user`.
    static func answer(to user: TestIRCUser) async throws -> String {
        let message = try await user.waitForMessage(timeout: .seconds(20), "the bot's answer") {
            $0.command == "PRIVMSG" && $0.sourceNick == bot
        }
        return message.parameters.last ?? ""
    }

    /// Whoever uses the student's nick and user name now asks who they are and tries to change
    /// the student's pin: both must be refused.
    static func expectNoTakeover(_ setup: Setup, nick: String = "alice") async throws {
        // Sign-on times are whole seconds: the next connection starts in a later second.
        try await Task.sleep(for: .milliseconds(1100))
        let mallory = try await setup.connect(nick, user: "alice")
        try await mallory.privmsg(bot, "!whoami")
        let whoami = try await answer(to: mallory)
        #expect(whoami.hasPrefix(notLoggedIn), "\(whoami)")
        try await mallory.privmsg(bot, "!post Paris | https://evil.example")
        let post = try await answer(to: mallory)
        #expect(post.hasPrefix(loginFirst), "\(post)")
        await mallory.quit()
    }

    @Test(arguments: ["inspircd", "ngircd"])
    func aQuitEndsTheSessionWithoutASharedChannel(server: String) async throws {
        try await Self.withBot(on: server) { setup in
            let alice = try await setup.connect("alice")
            try await Self.logIn(alice)
            try await alice.privmsg(Self.bot, "!whoami")
            #expect(try await Self.answer(to: alice).hasPrefix("You are logged in as Jane Doe"))
            await alice.quit()
            try await Self.expectNoTakeover(setup)
        }
    }

    @Test(arguments: ["inspircd", "ngircd"])
    func aQuitAfterLeavingTheSharedChannelEndsTheSession(server: String) async throws {
        try await Self.withBot(on: server) { setup in
            let alice = try await setup.connect("alice")
            try await alice.join("#class")
            try await Self.logIn(alice)
            try await alice.send("PART #class")
            _ = try await alice.waitForMessage(timeout: .seconds(10), "PART") { $0.command == "PART" }
            await alice.quit()
            try await Self.expectNoTakeover(setup)
        }
    }

    @Test(arguments: ["inspircd", "ngircd"])
    func aNickChangeOutOfSightDoesNotHandTheSessionToTheNextHolder(server: String) async throws {
        try await Self.withBot(on: server) { setup in
            let alice = try await setup.connect("alice")
            try await Self.logIn(alice)
            try await alice.send("NICK alice_away")
            _ = try await alice.waitForMessage(timeout: .seconds(10), "NICK") { $0.command == "NICK" }
            try await Self.expectNoTakeover(setup)
            // The student herself, under her new nick, is still logged in.
            try await alice.privmsg(Self.bot, "!whoami")
            let whoami = try await Self.answer(to: alice)
            #expect(whoami.hasPrefix("You are logged in as Jane Doe"), "\(whoami)")
            await alice.quit()
        }
    }

    /// Starts `server` ("inspircd" or "ngircd") and the built bot with Jane's account, waits until
    /// the bot has joined #class, runs `body` and stops everything.
    static func withBot(on server: String, _ body: (Setup) async throws -> Void) async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await LiveBotSetup.withServer(server) { port, caFile in
            try await run(executable, port: port, caFile: caFile, body)
        }
    }

    static func run(_ executable: String, port: Int, caFile: String, _ body: (Setup) async throws -> Void)
        async throws
    {
        let folder = try TemporaryDirectory(prefix: "takeover")
        let database = folder.file("class.sqlite")
        let directory = try SQLiteStudentDirectory(path: database)
        _ = try await directory.addAccount(
            email: jane.email, password: jane.password, firstName: "Jane", lastName: "Doe")
        try directory.close()
        let config = try LiveBotSetup.writeConfig(
            in: folder, port: port, caFile: caFile, database: database,
            ircExtra: "  flood: {burst: 20, lines_per_second: 10}")
        let watcher = try await TestIRCUser.connect(port: port, caFile: caFile, nick: "watcher")
        try await watcher.join("#class")
        let process = try BotProcess(executable: executable, config: config, log: folder.file("bot.log"))
        defer { process.kill() }
        _ = try await watcher.waitForMessage(timeout: .seconds(30), "the bot's JOIN") {
            $0.command == "JOIN" && $0.sourceNick == bot
        }
        try await body(Setup(port: port, caFile: caFile))
        await watcher.quit()
    }
}
