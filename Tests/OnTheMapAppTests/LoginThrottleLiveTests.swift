import BotTesting
import Foundation
import IRCProtocol
import NIOConcurrencyHelpers
import Testing

/// Password guessing against the built `onthemap-bot` (SQLite directory) on a real InspIRCd over TLS.
///
/// Every test connection comes from the loopback interface, and a client binds its own source
/// address before connecting: the guessers use 127.0.0.1 (and a few other 127.0.x.y addresses), the
/// students 127.0.0.2. Linux routes the whole 127.0.0.0/8 locally, and InspIRCd (with
/// `resolvehostnames` off) shows each client's source address as its host, so these stand for
/// separate machines as the bot sees them; nothing else distinguishes hosts on a test server without
/// services (no accounts, no cloaks).
@Suite(.tags(.startsProcesses), .serialized, .timeLimit(.minutes(6))) struct LoginThrottleLiveTests {
    static let bob = (email: "bob@uni.edu", password: "Bob-Correct-Horse-77")
    static let carol = (email: "carol@uni.edu", password: "Carol-Staple-Battery-12")
    static let studentHost = "127.0.0.2"

    /// Wrong passwords for one email spread over ten user names on one host lock out that host, not
    /// the email's owner on a new device; the owner's trusted device is remembered by the next start of
    /// the bot, so a lockout of the email that it took part in (one typo) does not hold it back.
    @Test func guessesForOneEmailFromOneHostDoNotLockItsOwnerOutAndTrustOutlivesARestart() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await InspircdServer.withRunning { server in
            let bot = try BotUnderTest(executable: executable, server: server, prefix: "throttle-email")
            try bot.addAccount(Self.bob.email, Self.bob.password, first: "Bob", last: "Student")
            let watcher = try await bot.start()

            // Ten connections from 127.0.0.1, each with its own nick and user name, one guess each.
            var replies: [String] = []
            for index in 1...10 {
                let guesser = try await bot.connect(nick: "guess\(index)", user: "g\(index)", from: "127.0.0.1")
                replies.append(try await bot.logIn(guesser, Self.bob.email, "wrong-guess-\(index)"))
                await guesser.quit()
            }
            #expect(replies.prefix(4).allSatisfy { $0 == "Wrong email or password." }, "\(replies)")
            #expect(
                replies[4]
                    == "Wrong email or password. Too many failed attempts: please wait 15 minutes before trying again.")
            // A new user name on the same host is the same host.
            #expect(
                replies.dropFirst(5).allSatisfy {
                    $0 == "Too many wrong passwords; please wait 15 minutes before trying again."
                }, "\(replies)")

            // Bob, on a device he never used before, gets in.
            let laptop = try await bot.connect(nick: "bob", user: "bob", from: Self.studentHost)
            #expect(try await bot.logIn(laptop, Self.bob.email, Self.bob.password).hasPrefix("Welcome, Bob Student!"))
            await laptop.quit()

            try await bot.restart(watcher: watcher)

            // After the restart: nine guesses from two hosts and one typo from Bob's laptop make ten
            // wrong passwords for his email, which holds back the hosts that gave them…
            var afterRestart: [String] = []
            for index in 1...5 {
                let guesser = try await bot.connect(nick: "again\(index)", user: "a\(index)", from: "127.0.0.1")
                afterRestart.append(try await bot.logIn(guesser, Self.bob.email, "wrong-again-\(index)"))
                await guesser.quit()
            }
            for index in 1...4 {
                let guesser = try await bot.connect(nick: "other\(index)", user: "o\(index)", from: "127.0.0.3")
                afterRestart.append(try await bot.logIn(guesser, Self.bob.email, "wrong-other-\(index)"))
                await guesser.quit()
            }
            #expect(afterRestart.allSatisfy { $0.hasPrefix("Wrong email or password.") }, "\(afterRestart)")
            let typing = try await bot.connect(nick: "bob", user: "bob", from: Self.studentHost)
            #expect(try await bot.logIn(typing, Self.bob.email, "Bob-Correct-Horse-7") == "Wrong email or password.")
            let held = try await bot.connect(nick: "other5", user: "o5", from: "127.0.0.3")
            #expect(
                try await bot.logIn(held, Self.bob.email, Self.bob.password)
                    == "Too many wrong passwords were tried for that email; please wait 15 minutes before trying again."
            )
            await held.quit()
            // …but not Bob's laptop: the bot remembered across the restart that he logged in from it.
            #expect(try await bot.logIn(typing, Self.bob.email, Self.bob.password).hasPrefix("Welcome, Bob Student!"))
            await typing.quit()
            await watcher.quit()
            try await bot.stop()
        }
    }

    /// Thirteen user names on one host giving five wrong passwords each do not use up the bot-wide
    /// allowance: the host is held back after its own five, and a student elsewhere gets in. The
    /// bot-wide cap still works against many hosts: once sixty failures came from twelve more hosts,
    /// a host with a failure of its own waits, and a host without any does not.
    @Test func guessersOnOneHostCannotUseUpTheBotWideAllowance() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await InspircdServer.withRunning { server in
            let bot = try BotUnderTest(executable: executable, server: server, prefix: "throttle-global")
            try bot.addAccount(Self.carol.email, Self.carol.password, first: "Carol", last: "Student")
            let watcher = try await bot.start()

            var replies: [String] = []
            for index in 1...13 {
                let guesser = try await bot.connect(nick: "flood\(index)", user: "f\(index)", from: "127.0.0.1")
                for attempt in 1...5 {
                    replies.append(
                        try await bot.logIn(guesser, "nobody\(index)-\(attempt)@uni.edu", "wrong-\(index)-\(attempt)"))
                }
                await guesser.quit()
            }
            #expect(replies.count == 65)
            #expect(replies.prefix(4).allSatisfy { $0 == "Wrong email or password." }, "\(replies)")
            #expect(
                replies.dropFirst(5).allSatisfy {
                    $0 == "Too many wrong passwords; please wait 15 minutes before trying again."
                }, "\(replies)")

            let carol = try await bot.connect(nick: "carol", user: "carol", from: Self.studentHost)
            #expect(
                try await bot.logIn(carol, Self.carol.email, Self.carol.password).hasPrefix("Welcome, Carol Student!"))
            await carol.quit()

            // One failure from 127.0.2.1, then sixty from twelve hosts 127.0.1.x (five each, their own
            // allowance): the bot-wide cap is reached.
            let early = try await bot.connect(nick: "early", user: "early", from: "127.0.2.1")
            #expect(try await bot.logIn(early, "early@uni.edu", "wrong-early") == "Wrong email or password.")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for host in 1...12 {
                    group.addTask {
                        let guesser = try await bot.connect(nick: "wide\(host)", user: "w", from: "127.0.1.\(host)")
                        for attempt in 1...5 {
                            _ = try await bot.logIn(guesser, "wide\(host)-\(attempt)@uni.edu", "wrong-\(attempt)")
                        }
                        await guesser.quit()
                    }
                }
                try await group.waitForAll()
            }
            let again = try await bot.logIn(early, "early@uni.edu", "wrong-early-again")
            #expect(
                again.hasPrefix("Too many wrong passwords are being tried on this bot just now; please wait"),
                "\(again)")
            await early.quit()
            let fresh = try await bot.connect(nick: "carol", user: "carol", from: Self.studentHost)
            #expect(
                try await bot.logIn(fresh, Self.carol.email, Self.carol.password).hasPrefix("Welcome, Carol Student!"))
            await fresh.quit()
            await watcher.quit()
            try await bot.stop()
        }
    }
}

/// The built bot as a process on one config and SQLite database, with a watcher in its channel.
private final class BotUnderTest: Sendable {
    let executable: String
    let server: InspircdServer
    let folder: TemporaryDirectory
    let configPath: String
    private let running = NIOLockedValueBox<Process?>(nil)

    init(executable: String, server: InspircdServer, prefix: String) throws {
        self.executable = executable
        self.server = server
        self.folder = try TemporaryDirectory(prefix: prefix)
        self.configPath = folder.file("bot.yaml")
        try """
        irc:
          server: 127.0.0.1
          port: \(server.tlsPort)
          tls_ca_file: \(server.certificate.certificatePath)
          nick: MapBot
          channels: ["#class"]
          announce_to: []
          flood: {enabled: false}
        service:
          database: \(folder.file("bot.sqlite"))
        geocoder:
          kind: nominatim
          nominatim_url: http://127.0.0.1:9/
          user_agent: onthemap-throttle-test
        # The guessers share a few loopback addresses: the budget of commands per address (its own
        # live test is HostCrowdLiveTests) is raised so that what answers them is the login throttle.
        plugins:
          commands_per_host: {burst: 1000, per_minute: 1000}
        """.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// `onthemap-bot accounts add`, the password on standard input.
    func addAccount(_ email: String, _ password: String, first: String, last: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "accounts", "add", "--config", configPath, "--email", email, "--first", first, "--last", last,
        ]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data((password + "\n").utf8))
        try input.fileHandleForWriting.close()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "accounts add: \(printed)")
    }

    /// Starts the bot and returns a watcher who saw it join its channel.
    func start() async throws -> TestIRCUser {
        let watcher = try await connect(nick: "watcher", user: "watcher", from: "127.0.0.9")
        try await watcher.join("#class")
        try launch()
        _ = try await watcher.waitForMessage(timeout: .seconds(30), "the bot's JOIN") {
            $0.command == "JOIN" && $0.sourceNick == "MapBot"
        }
        return watcher
    }

    /// Stops the bot (SIGTERM) and starts it again on the same config and database.
    func restart(watcher: TestIRCUser) async throws {
        try await stop()
        _ = try await watcher.waitForMessage(timeout: .seconds(10), "the bot's QUIT") {
            $0.command == "QUIT" && $0.sourceNick == "MapBot"
        }
        try launch()
        _ = try await watcher.waitForMessage(timeout: .seconds(30), "the bot's JOIN after the restart") {
            $0.command == "JOIN" && $0.sourceNick == "MapBot"
        }
    }

    private func launch() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["run", "--config", configPath]
        let logFile = folder.file("bot.log")
        if !FileManager.default.fileExists(atPath: logFile) {
            _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        try log.seekToEnd()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        running.withLockedValue { $0 = process }
    }

    /// SIGTERM, then waits until the process has exited cleanly.
    func stop() async throws {
        guard let process = running.withLockedValue({ $0.take() }) else { return }
        process.terminate()
        if !(await process.waitForExit(timeout: .seconds(30))) { process.interrupt() }
        try #require(!process.isRunning, "the bot did not stop; log: \(log())")
        #expect(process.terminationStatus == 0, "log: \(log())")
    }

    func log() -> String {
        (try? String(contentsOfFile: folder.file("bot.log"), encoding: .utf8)) ?? ""
    }

    /// A client from `address` (its host as the bot sees it) with its own nick and user name.
    func connect(nick: String, user: String, from address: String) async throws -> TestIRCUser {
        try await TestIRCUser.connect(
            port: server.tlsPort, caFile: server.certificate.certificatePath, nick: nick, username: user,
            localAddress: address)
    }

    /// Sends `!login` privately and returns the bot's answer.
    func logIn(_ user: TestIRCUser, _ email: String, _ password: String) async throws -> String {
        try await user.privmsg("MapBot", "!login \(email) \(password)")
        let nick = await user.nick
        let reply = try await user.waitForMessage(timeout: .seconds(30), "the answer to !login") {
            ($0.command == "PRIVMSG" || $0.command == "NOTICE") && $0.sourceNick == "MapBot"
                && $0.parameters.first == nick
        }
        return reply.parameters.last ?? ""
    }
}
