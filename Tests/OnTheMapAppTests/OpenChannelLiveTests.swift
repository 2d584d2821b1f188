import BotTesting
import Foundation
import IRCProtocol
import Logging
import OnTheMapApp
import SQLiteDirectory
import Testing

/// The whole bot on a real InspIRCd, in a class channel without a key: the bot learns the channel's
/// modes from the server, follows the operator's change, and tells its operators.
@Suite(.serialized) struct OpenChannelLiveTests {
    static let botNick = "MapBot"
    static let channel = "#class"
    static let students = [
        (email: "jane@class.test", password: "jane-secret-pw1", first: "Jane", last: "Doe", nick: "jane"),
        (email: "tom@class.test", password: "tom-secret-pw22", first: "Tom", last: "Tacoma", nick: "tom"),
    ]

    static func fromBot(_ message: IRCMessage, to target: String) -> Bool {
        message.command == "PRIVMSG" && message.sourceNick == botNick && message.parameters.first == target
    }

    /// In a channel anyone may join, a class-only class's new pin is announced by name only, the log
    /// warns once and `!status` lists the channel; once the channel's operator sets a key (+k), the
    /// bot follows the MODE change: the next announcement is the full one and `!status` lists no
    /// open channel.
    @Test(.timeLimit(.minutes(2))) func anOpenChannelHearsNamesUntilItIsKeyed() async throws {
        let folder = try TemporaryDirectory(prefix: "open-channel-live")
        let database = folder.file("class.sqlite")
        let setup = try SQLiteStudentDirectory(path: database)
        for student in Self.students {
            _ = try await setup.addAccount(
                email: student.email, password: student.password, firstName: student.first, lastName: student.last)
        }
        try setup.close()
        try await InspircdServer.withRunning { server in
            let ca = server.certificate.certificatePath
            // The first in the channel is its operator.
            let teacher = try await TestIRCUser.connect(port: server.tlsPort, caFile: ca, nick: "teacher")
            try await teacher.join(Self.channel)
            var users: [TestIRCUser] = []
            for student in Self.students {
                users.append(try await TestIRCUser.connect(port: server.tlsPort, caFile: ca, nick: student.nick))
            }
            let config = try ConfigLoader.parse(
                yaml: """
                    irc:
                      server: 127.0.0.1
                      port: \(server.tlsPort)
                      tls_ca_file: \(ca)
                      nick: \(Self.botNick)
                      channels: ["\(Self.channel)"]
                      announce_to: ["\(Self.channel)"]
                      flood: {burst: 10, lines_per_second: 5}
                      owners: ["teacher!*@127.0.0.1"]
                    service:
                      database: \(database)
                    """)
            let log = LogRecorder()
            var logger = log.logger()
            logger.logLevel = .warning
            let bot = try await BotAssembly.makeService(config: config, logger: logger)
            let running = Task { await bot.runUntilStopped() }
            do {
                try await Self.scenario(teacher: teacher, students: users, log: log)
            } catch {
                await bot.shutdown()
                _ = await running.value
                throw error
            }
            await bot.shutdown()
            #expect(await running.value == .shutDown)
            await teacher.quit()
            for user in users { await user.quit() }
        }
    }

    /// The lines of the bot's `!status` to `teacher` (told apart from what follows by a `!ping`).
    static func status(_ teacher: TestIRCUser) async throws -> [String] {
        let before = await teacher.receivedLines.count
        try await teacher.privmsg(botNick, "!status")
        try await teacher.privmsg(botNick, "!ping")
        _ = try await teacher.waitForMessage(timeout: .seconds(15), "the pong after !status") {
            fromBot($0, to: "teacher") && $0.parameters.last == "pong"
        }
        return await teacher.receivedLines.dropFirst(before).compactMap { line in
            guard let message = try? IRCMessage(parsing: line, maxLineBytes: 16_384), fromBot(message, to: "teacher")
            else { return nil }
            return message.parameters.last
        }
    }

    static func scenario(teacher: TestIRCUser, students users: [TestIRCUser], log: LogRecorder) async throws {
        _ = try await teacher.waitForMessage(timeout: .seconds(20), "the bot's JOIN") {
            $0.command == "JOIN" && $0.sourceNick == botNick
        }
        for (user, student) in zip(users, students) {
            try await user.privmsg(botNick, "!login \(student.email) \(student.password)")
            let welcome = try await user.waitForMessage(timeout: .seconds(15), "\(student.nick)'s welcome") {
                fromBot($0, to: student.nick)
            }
            #expect(welcome.parameters.last?.hasPrefix("Welcome") == true, "\(welcome)")
        }

        try await users[0].privmsg(botNick, "!post Seattle, WA | https://jane.example")
        let named = try await teacher.waitForMessage(timeout: .seconds(15), "the names-only announcement") {
            fromBot($0, to: channel)
        }
        #expect(named.parameters.last == "Jane Doe is on the map — ask me privately, or see the class map")
        // The warning comes with the server's 324, which may still be on its way.
        let warning = "#class is open to anyone (no key, not invite-only)"
        await log.waitFor(warning)
        let warned = log.all.filter { $0.contains(warning) }
        #expect(warned.count == 1, "\(log.all)")
        let open = try await status(teacher)
        #expect(
            open.contains { $0.hasPrefix("Open to anyone (no key, not invite-only): #class; students' places") },
            "\(open)")

        // The operator keys the channel; the bot, in it, hears the MODE before Tom's post.
        try await teacher.send("MODE \(channel) +k classkey")
        _ = try await teacher.waitForMessage(timeout: .seconds(10), "the key set") {
            $0.command == "MODE" && $0.parameters.first == channel && $0.parameters.dropFirst().first == "+k"
        }
        try await users[1].privmsg(botNick, "!post Portland, OR | https://tom.example")
        let full = try await teacher.waitForMessage(timeout: .seconds(15), "the full announcement") {
            fromBot($0, to: channel) && $0.parameters.last?.contains("Tom Tacoma") == true
        }
        #expect(full.parameters.last == "New pin: Tom Tacoma — Portland, Oregon, United States — https://tom.example")
        let keyed = try await status(teacher)
        #expect(keyed.first?.hasPrefix("On The Map") == true, "\(keyed)")
        #expect(!keyed.contains { $0.contains("Open to anyone") }, "\(keyed)")
    }
}
