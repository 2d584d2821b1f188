import BotTesting
import Foundation
import IRCProtocol
import Logging
import OnTheMapApp
import OnTheMapService
import SQLiteDirectory
import Testing

/// The whole bot (config → service stack → plugins → IRC over TLS) against a real ngircd, with
/// two scripted students; once on the local SQLite directory, once on the Udacity-compatible
/// HTTP backend (the fake server).
@Suite(.serialized) struct ClassScenarioTests {
    static let botNick = "MapBot"
    static let channel = "#class"
    static let jane = (email: "jane@class.test", password: "jane-secret-pw1", first: "Jane", last: "Doe")
    static let tom = (email: "tom@class.test", password: "tom-secret-pw22", first: "Tom", last: "Tacoma")

    static let quietLogger: Logger = {
        var logger = Logger(label: "e2e", factory: { _ in SwiftLogNoOpLogHandler() })
        logger.logLevel = .critical
        return logger
    }()

    static func config(server: NgircdServer, service: String) throws -> BotConfiguration {
        try ConfigLoader.parse(
            yaml: """
                irc:
                  server: 127.0.0.1
                  port: \(server.tlsPort)
                  tls_ca_file: \(server.certificate.certificatePath)
                  nick: \(botNick)
                  channels: ["\(channel)"]
                  announce_to: ["\(channel)"]
                  flood: {burst: 10, lines_per_second: 5}
                privacy:
                  open_channel: full   # the channel has no key: the full texts in it are what is tested
                \(service)
                """)
    }

    @Test(.timeLimit(.minutes(2))) func theClassOnTheLocalDirectory() async throws {
        let folder = try TemporaryDirectory(prefix: "e2e-local")
        let database = folder.file("class.sqlite")
        let setup = try SQLiteStudentDirectory(path: database)
        for student in [Self.jane, Self.tom] {
            _ = try await setup.addAccount(
                email: student.email, password: student.password, firstName: student.first,
                lastName: student.last)
        }
        try setup.close()
        try await NgircdServer.withRunning { server in
            let config = try Self.config(server: server, service: "service:\n  database: \(database)")
            try await Self.runScenario(config: config, server: server)
        }
    }

    @Test(.timeLimit(.minutes(2))) func theClassOnTheUdacityCompatibleBackend() async throws {
        let udacity = FakeUdacityServer(accounts: [
            .init(
                email: Self.jane.email, password: Self.jane.password, key: "u1001",
                firstName: Self.jane.first, lastName: Self.jane.last),
            .init(
                email: Self.tom.email, password: Self.tom.password, key: "u2002", firstName: Self.tom.first,
                lastName: Self.tom.last),
        ])
        let baseURL = try await udacity.start()
        do {
            try await NgircdServer.withRunning { server in
                let config = try Self.config(
                    server: server,
                    service: "service:\n  backend: udacity\n  udacity_url: \(baseURL.absoluteString)")
                try await Self.runScenario(config: config, server: server)
            }
        } catch {
            await udacity.stop()
            throw error
        }
        // Both pins went through the HTTP API.
        let pins = await udacity.locations()
        #expect(Set(pins.map(\.uniqueKey)) == ["u1001", "u2002"])
        #expect(pins.first { $0.uniqueKey == "u1001" }?.mediaURL == "https://jane.example/work")
        await udacity.stop()
    }

    /// The class scenario, the same for every backend.
    static func runScenario(config: BotConfiguration, server: NgircdServer) async throws {
        let ca = server.certificate.certificatePath
        let jane = try await TestIRCUser.connect(port: server.tlsPort, caFile: ca, nick: "jane")
        let tom = try await TestIRCUser.connect(port: server.tlsPort, caFile: ca, nick: "tom")
        try await jane.join(channel)
        try await tom.join(channel)

        let bot = try await BotAssembly.makeService(config: config, logger: quietLogger)
        let running = Task { await bot.runUntilStopped() }
        do {
            try await scenario(jane: jane, tom: tom, server: server)
        } catch {
            await bot.shutdown()
            _ = await running.value
            await jane.quit()
            await tom.quit()
            throw error
        }
        await bot.shutdown()
        #expect(await running.value == .shutDown)
        await jane.quit()
        await tom.quit()
    }

    static func fromBot(_ message: IRCMessage, to target: String) -> Bool {
        message.command == "PRIVMSG" && message.sourceNick == botNick && message.parameters.first == target
    }

    /// Both test users come from 127.0.0.1 with their own user names: the router counts their
    /// commands (and rate limits) apart, as it would for students behind one school NAT.
    static func scenario(jane: TestIRCUser, tom: TestIRCUser, server: NgircdServer) async throws {
        _ = try await jane.waitForMessage(timeout: .seconds(20), "the bot's JOIN") {
            $0.command == "JOIN" && $0.sourceNick == botNick
        }

        // !login in the channel: refused, never echoed, not processed.
        try await tom.privmsg(channel, "!login \(Self.tom.email) \(Self.tom.password)")
        let warning = try await tom.waitForMessage(timeout: .seconds(10), "the password warning") {
            fromBot($0, to: channel)
        }
        #expect(warning.parameters.last?.hasPrefix("tom: never type a password in a channel") == true)
        try await tom.privmsg(botNick, "!whoami")
        let notIn = try await tom.waitForMessage(timeout: .seconds(10), "whoami") { fromBot($0, to: "tom") }
        #expect(notIn.parameters.last?.hasPrefix("You are not logged in.") == true)

        // Private logins.
        try await jane.privmsg(botNick, "!login \(Self.jane.email) \(Self.jane.password)")
        let welcome = try await jane.waitForMessage(timeout: .seconds(15), "jane's welcome") {
            fromBot($0, to: "jane")
        }
        #expect(welcome.parameters.last?.hasPrefix("Welcome, Jane Doe!") == true)
        try await tom.privmsg(botNick, "!login \(Self.tom.email) \(Self.tom.password)")
        let tomWelcome = try await tom.waitForMessage(timeout: .seconds(15), "tom's welcome") {
            fromBot($0, to: "tom")
        }
        #expect(tomWelcome.parameters.last?.hasPrefix("Welcome, Tom Tacoma!") == true)

        // Jane posts in two steps; Tom sees the announcement in the channel.
        try await jane.privmsg(botNick, "!post Seattle, WA")
        let found = try await jane.waitForMessages(count: 2, timeout: .seconds(10), "the found place") {
            fromBot($0, to: "jane")
        }
        #expect(found[0].parameters.last?.hasPrefix("Found Seattle") == true)
        try await jane.privmsg(botNick, "!link https://jane.example/work")
        let saved = try await jane.waitForMessage(timeout: .seconds(10), "the saved pin") {
            fromBot($0, to: "jane")
        }
        #expect(
            saved.parameters.last?.hasPrefix("You are on the map: Jane Doe — Seattle, Washington, United States (")
                == true)
        let announced = try await tom.waitForMessage(timeout: .seconds(10), "the announcement") {
            fromBot($0, to: channel)
        }
        #expect(
            announced.parameters.last
                == "New pin: Jane Doe — Seattle, Washington, United States — https://jane.example/work")

        // Tom posts in one shot.
        try await tom.privmsg(botNick, "!post Portland, OR | https://tom.example")
        let tomSaved = try await tom.waitForMessage(timeout: .seconds(10), "tom's pin") {
            fromBot($0, to: "tom")
        }
        #expect(
            tomSaved.parameters.last?.hasPrefix("You are on the map: Tom Tacoma — Portland, Oregon, United States")
                == true)
        let tomAnnounced = try await jane.waitForMessage(timeout: .seconds(10), "tom's announcement") {
            fromBot($0, to: channel) && $0.parameters.last?.contains("Tom Tacoma") == true
        }
        #expect(
            tomAnnounced.parameters.last
                == "New pin: Tom Tacoma — Portland, Oregon, United States — https://tom.example")

        // !where in the channel.
        try await tom.privmsg(channel, "!where jane doe")
        let whereLine = try await tom.waitForMessage(timeout: .seconds(10), "!where") {
            fromBot($0, to: channel) && $0.parameters.last?.hasPrefix("tom: ") == true
        }
        #expect(
            whereLine.parameters.last?.hasPrefix(
                "tom: Jane Doe — Seattle, Washington, United States — https://jane.example/work — ")
                == true)

        // !near from Tom's own pin, with the distance computed here: both pins are towns, so it is
        // rounded to 5 km.
        let gazetteer = try GazetteerGeocoder.loadBundled()
        let seattle = try #require(gazetteer.lookup("Seattle, WA", limit: 1).first).coordinate
        let portland = try #require(gazetteer.lookup("Portland, OR", limit: 1).first).coordinate
        let kilometres = Int((GreatCircle.distanceKilometres(seattle, portland) / 5).rounded()) * 5
        try await tom.privmsg(channel, "!near")
        let near = try await tom.waitForMessage(timeout: .seconds(10), "!near") {
            fromBot($0, to: channel) && $0.parameters.last?.hasPrefix("tom: ") == true
        }
        #expect(
            near.parameters.last
                == "tom: Jane Doe — ~\(kilometres) km — Seattle, Washington, United States — https://jane.example/work")
        // And from a place, privately: Tom's !near just now does not rate-limit Jane.
        try await jane.privmsg(botNick, "!near Portland, OR")
        let nearPlace = try await jane.waitForMessages(count: 2, timeout: .seconds(10), "!near place") {
            fromBot($0, to: "jane")
        }
        #expect(nearPlace[0].parameters.last?.hasPrefix("Nearest to Portland") == true)
        #expect(
            nearPlace[1].parameters.last
                == "Tom Tacoma — same city — Portland, Oregon, United States — https://tom.example")

        // A nick change keeps the session.
        try await jane.send("NICK jane_away")
        _ = try await jane.waitForMessage(timeout: .seconds(10), "the NICK") { $0.command == "NICK" }
        try await jane.privmsg(botNick, "!whoami")
        let stillIn = try await jane.waitForMessage(timeout: .seconds(10), "whoami after NICK") {
            fromBot($0, to: "jane_away")
        }
        #expect(stillIn.parameters.last?.hasPrefix("You are logged in as Jane Doe") == true)

        // Someone taking the old nick gets no session.
        let taker = try await TestIRCUser.connect(
            port: server.tlsPort, caFile: server.certificate.certificatePath, nick: "jane")
        try await taker.privmsg(botNick, "!whoami")
        let noSession = try await taker.waitForMessage(timeout: .seconds(10), "the taker's whoami") {
            fromBot($0, to: "jane")
        }
        #expect(noSession.parameters.last?.hasPrefix("You are not logged in.") == true)
        await taker.quit()

        // Nothing the bot sent ever contained a password.
        for user in [jane, tom] {
            for line in await user.receivedLines where line.hasPrefix(":\(botNick)!") {
                #expect(!line.contains(Self.jane.password) && !line.contains(Self.tom.password), "\(line)")
            }
        }
    }
}
