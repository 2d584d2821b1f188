import BotTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import IRCProtocol
import Logging
@_spi(Testing) import OnTheMapApp
import SQLiteDirectory
import Testing

/// One bot process on two real networks at once, InspIRCd over TLS and ngircd in plain text, with
/// one class directory: a student logs in and posts on one network and the pin is announced once on
/// each; the same nick on the other network is nobody; `/healthz` reports both; with InspIRCd
/// killed, ngircd's students are still answered. Answers in InspIRCd's channel are threaded under
/// their questions (`+reply`), and private answers to channel commands name the channel
/// (`+channel-context`); on ngircd they carry no tags.
@Suite(.tags(.startsProcesses), .serialized) struct SeveralNetworksLiveTests {
    static let botNick = "MapBot"
    static let channel = "#class"
    static let janePin = "New pin: Jane Doe — Seattle, Washington, United States — https://jane.example"

    static let quietLogger: Logger = {
        var logger = Logger(label: "networks-live", factory: { _ in SwiftLogNoOpLogHandler() })
        logger.logLevel = .critical
        return logger
    }()

    static func fromBot(_ message: IRCMessage, to target: String) -> Bool {
        message.command == "PRIVMSG" && message.sourceNick == botNick && message.parameters.first == target
    }

    /// Waits until `user` sees the bot in the channel: its JOIN, or its nick in the NAMES list.
    static func waitForBot(_ user: TestIRCUser) async throws {
        _ = try await user.waitForMessage(timeout: .seconds(40), "the bot in \(channel)") {
            ($0.command == "JOIN" && $0.sourceNick == botNick)
                || ($0.command == "353"
                    && $0.parameters.last?.split(separator: " ").contains { $0.hasSuffix(botNick) } == true)
        }
    }

    /// What the bot said to `user` in private, once a line starting with `prefix` arrives.
    static func answer(_ user: TestIRCUser, to nick: String, startingWith prefix: String) async throws -> String {
        let message = try await user.waitForMessage(timeout: .seconds(15), "the bot's \"\(prefix)…\"") {
            fromBot($0, to: nick) && $0.parameters.last?.hasPrefix(prefix) == true
        }
        return message.parameters.last ?? ""
    }

    /// The bot's lines in the class channel that `user` received.
    static func channelLines(_ user: TestIRCUser) async -> [String] {
        await user.receivedLines.compactMap { line in
            guard let message = try? IRCMessage(parsing: line, maxLineBytes: 16_384), fromBot(message, to: channel)
            else { return nil }
            return message.parameters.last
        }
    }

    /// `/healthz` as the operator listener serves it for `bot`.
    static func healthz(_ bot: BotService) async throws -> (status: Int, report: HealthReport) {
        let server = OperatorHTTPServer(
            host: "127.0.0.1", port: 0, health: { await bot.healthReport() }, registry: TestMetrics.registry,
            logger: quietLogger)
        let app = Hummingbird.Application(router: server.makeRouter())
        return try await app.test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                (
                    Int(response.status.code),
                    try JSONDecoder().decode(HealthReport.self, from: Data(buffer: response.body))
                )
            }
        }
    }

    static func config(inspircd: InspircdServer, ngircd: NgircdServer, database: String) throws -> BotConfiguration {
        try ConfigLoader.parse(
            yaml: """
                networks:
                  - name: insp
                    server: 127.0.0.1
                    port: \(inspircd.tlsPort)
                    tls_ca_file: \(inspircd.certificate.certificatePath)
                    nick: \(botNick)
                    channels: ["\(channel)"]
                    announce_to: ["\(channel)"]
                    flood: {burst: 5, lines_per_second: 5}
                  - name: ng
                    server: 127.0.0.1
                    port: \(ngircd.plainPort)
                    tls: false
                    nick: \(botNick)
                    channels: ["\(channel)"]
                    announce_to: ["\(channel)"]
                    flood: {burst: 5, lines_per_second: 5}
                service:
                  database: \(database)
                plugins:
                  announce: {poll_seconds: 10}
                privacy:
                  open_channel: full   # the channels have no key: the full texts are what is tested
                """)
    }

    @Test(.timeLimit(.minutes(3))) func oneBotServesTwoNetworks() async throws {
        let folder = try TemporaryDirectory(prefix: "networks-live")
        let database = folder.file("class.sqlite")
        let setup = try SQLiteStudentDirectory(path: database)
        _ = try await setup.addAccount(
            email: "jane@class.test", password: "jane-secret-pw1", firstName: "Jane", lastName: "Doe")
        _ = try await setup.addAccount(
            email: "tom@class.test", password: "tom-secret-pw12", firstName: "Tom", lastName: "Lee")
        try setup.close()
        try await InspircdServer.withRunning { inspircd in
            try await NgircdServer.withRunning { ngircd in
                let config = try Self.config(inspircd: inspircd, ngircd: ngircd, database: database)
                // What the bot logs (from info up), for the test to wait on.
                let log = WaitableLines()
                let bot = try await BotAssembly.makeService(
                    config: config, logger: WaitableLogHandler.logger(log, label: "networks-live", level: .info)
                ) { irc in
                    irc.reconnect = .init(
                        minimumDelay: .seconds(1), maximumDelay: .seconds(2), jitter: 0.1, resetAfter: .seconds(60))
                }
                let running = Task { await bot.runUntilStopped() }
                var users: [TestIRCUser] = []
                do {
                    try await Self.scenario(inspircd: inspircd, ngircd: ngircd, bot: bot, log: log, users: &users)
                } catch {
                    await bot.shutdown()
                    _ = await running.value
                    for user in users { await user.quit() }
                    throw error
                }
                await bot.shutdown()
                #expect(await running.value == .shutDown)
                for user in users { await user.quit() }
            }
        }
    }

    static func scenario(
        inspircd: InspircdServer, ngircd: NgircdServer, bot: BotService, log: WaitableLines,
        users: inout [TestIRCUser]
    ) async throws {
        // Jane on InspIRCd (TLS); someone under the same nick on ngircd (plain), and a classmate there.
        let jane = try await TestIRCUser.connect(
            port: inspircd.tlsPort, caFile: inspircd.certificate.certificatePath, nick: "jane",
            capabilities: ["message-tags"], timeout: .seconds(20))
        let kim = try await TestIRCUser.connect(
            port: inspircd.tlsPort, caFile: inspircd.certificate.certificatePath, nick: "kim",
            capabilities: ["message-tags"], timeout: .seconds(20))
        let otherJane = try await TestIRCUser.connect(port: ngircd.plainPort, nick: "jane", timeout: .seconds(20))
        let tom = try await TestIRCUser.connect(port: ngircd.plainPort, nick: "tom", timeout: .seconds(20))
        users = [jane, kim, otherJane, tom]
        for user in users { try await user.join(channel) }
        try await waitForBot(jane)
        try await waitForBot(tom)

        // Threaded answers: on InspIRCd (message-tags, msgid, client tags) the answer to Jane's !ping
        // is a reply to her line, whose msgid her classmate saw; ngircd passes no tags, and the same
        // bot answers Tom there with a plain line (a tagged one would not have reached him).
        try await jane.privmsg(channel, "!ping")
        let question = try await kim.waitForMessage(timeout: .seconds(10), "Jane's !ping") {
            $0.command == "PRIVMSG" && $0.sourceNick == "jane" && $0.parameters.last == "!ping"
        }
        let questionID = try #require(question.tags["msgid"])
        let threaded = try await kim.waitForMessage(timeout: .seconds(10), "the answer to Jane") {
            fromBot($0, to: channel) && $0.parameters.last == "jane: pong"
        }
        #expect(threaded.tags["+reply"] == questionID && threaded.tags["+draft/reply"] == nil)
        try await tom.privmsg(channel, "!ping")
        let plain = try await tom.waitForMessage(timeout: .seconds(10), "the answer to Tom") {
            fromBot($0, to: channel) && $0.parameters.last == "tom: pong"
        }
        #expect(plain.tags.isEmpty)
        #expect(await tom.receivedLines.allSatisfy { !$0.hasPrefix("@") })

        // /healthz names both networks, registered.
        let (status, report) = try await healthz(bot)
        #expect(status == 200 && report.status == "ok")
        #expect(report.networks.map(\.name) == ["insp", "ng"])
        #expect(report.networks.allSatisfy { $0.registered && $0.channels == [channel] })

        // A login on InspIRCd does not log in the same nick on ngircd.
        try await jane.privmsg(botNick, "!login jane@class.test jane-secret-pw1")
        _ = try await answer(jane, to: "jane", startingWith: "Welcome, Jane Doe!")
        try await otherJane.privmsg(botNick, "!whoami")
        #expect(try await answer(otherJane, to: "jane", startingWith: "You are").hasPrefix("You are not logged in."))
        try await jane.privmsg(botNick, "!whoami")
        #expect(try await answer(jane, to: "jane", startingWith: "You are").hasPrefix("You are logged in as Jane Doe"))

        // Her post on InspIRCd is announced once in each network's channel.
        try await jane.privmsg(botNick, "!post Seattle, WA | https://jane.example")
        _ = try await answer(jane, to: "jane", startingWith: "You are on the map")
        _ = try await jane.waitForMessage(timeout: .seconds(15), "the announcement on InspIRCd") {
            fromBot($0, to: channel) && $0.parameters.last == janePin
        }
        _ = try await tom.waitForMessage(timeout: .seconds(15), "the announcement on ngircd") {
            fromBot($0, to: channel) && $0.parameters.last == janePin
        }
        // `!list` said in the channel is answered privately, shown in the channel's window by a
        // client that reads `+channel-context`.
        try await jane.privmsg(channel, "!list")
        let listed = try await jane.waitForMessage(timeout: .seconds(15), "the private !list") {
            $0.sourceNick == botNick && $0.parameters.first == "jane" && $0.tags["+channel-context"] != nil
        }
        #expect(listed.tags["+channel-context"] == channel)
        // Lookups are for the class (web.visibility: class): Tom logs in on ngircd first.
        try await tom.privmsg(botNick, "!login tom@class.test tom-secret-pw12")
        _ = try await answer(tom, to: "tom", startingWith: "Welcome, Tom Lee!")

        // Neither network announces Jane's pin again: Tom's post on ngircd is announced in a round
        // that begins after it, so after every round that could have repeated hers.
        try await tom.privmsg(botNick, "!post Lima, Peru | https://tom.example")
        _ = try await answer(tom, to: "tom", startingWith: "You are on the map")
        for user in [jane, tom] {
            _ = try await user.waitForMessage(timeout: .seconds(15), "Tom's announcement") {
                fromBot($0, to: channel) && $0.parameters.last?.hasPrefix("New pin: Tom Lee") == true
            }
        }
        #expect(await channelLines(jane).filter { $0 == janePin }.count == 1)
        #expect(await channelLines(tom).filter { $0 == janePin }.count == 1)

        // InspIRCd dies: ngircd's students are still answered, and /healthz says which network is down.
        let linesBeforeStop = log.lines.count
        await inspircd.stop()
        try await tom.privmsg(botNick, "!where Jane")
        #expect(
            try await answer(tom, to: "tom", startingWith: "Jane Doe").hasPrefix(
                "Jane Doe — Seattle, Washington, United States"))
        // The InspIRCd connection's end: its client logs that it reconnects later.
        try await log.waitForLine(
            containing: "Reconnecting in", after: linesBeforeStop, timeout: .seconds(30), "the lost InspIRCd connection"
        )
        let down = try await healthz(bot)
        #expect(down.report.networks.map(\.registered) == [false, true])
        #expect(down.status == 200 && down.report.status == "ok")
    }
}
