import BotTesting
import Foundation
import IRCProtocol
import Logging
import OnTheMapApp
import SQLiteDirectory
import Testing

/// The whole bot on a real InspIRCd, in a class channel without a key: the bot learns the channel's
/// modes from the server and follows the operator's change.
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

    /// In a channel anyone may join, a class-only class's new pin is announced by name only; once
    /// the channel's operator sets a key (+k), the bot follows the MODE change and the next
    /// announcement is the full one.
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
                    service:
                      database: \(database)
                    """)
            var logger = Logger(label: "open-channel", factory: { _ in SwiftLogNoOpLogHandler() })
            logger.logLevel = .critical
            let bot = try await BotAssembly.makeService(config: config, logger: logger)
            let running = Task { await bot.runUntilStopped() }
            do {
                try await Self.scenario(teacher: teacher, students: users)
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

    static func scenario(teacher: TestIRCUser, students users: [TestIRCUser]) async throws {
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
    }
}
