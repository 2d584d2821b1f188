import BotTesting
import Foundation
import IRCProtocol
import NIOConcurrencyHelpers
import Testing

/// The store a journey's bot keeps its class in.
enum JourneyStore: String, Sendable, CustomStringConvertible {
    case sqlite, postgres
    var description: String { rawValue }
}

/// The people of the journeys: their class accounts, services accounts and passwords (fixtures).
enum JourneyPeople {
    /// The password of every services account (the bot's, the owner's and the students').
    static let servicesPassword = "journey-services-pass-31"
    static let botAccount = "OnTheMapBot"
    static let ownerAccount = "teacher"
    /// Students with a class password (the roster imported before the bot starts).
    static let ada = (email: "ada@class.test", first: "Ada", last: "Lovelace", password: "ada-class-pass-27")
    static let erin = (email: "erin@class.test", first: "Erin", last: "Quixmoor", password: "erin-class-pass-27")
    static let noor = (email: "noor@class.test", first: "Noor", last: "Haddad", password: "noor-class-pass-27")
    /// A student with a class password and a services account, who links them by logging in.
    static let lin = (
        email: "lin@class.test", first: "Lin", last: "Wei", password: "lin-class-pass-27", account: "lin"
    )
    /// A student known by her services account only (imported by the operator while the bot runs).
    static let jane = (email: "jane@class.test", first: "Jane", last: "Doe", account: "jane")
    static let servicesAccounts = [botAccount, ownerAccount, jane.account, lin.account]
}

/// One InspIRCd with Atheme services, shared by every journey of the suite (both stores): the bot's
/// account, the owner's and a student's are registered with NickServ.
final class JourneyNetwork: Sendable {
    @TaskLocal static var current: JourneyNetwork?

    let server: InspircdServer
    let services: AthemeServices

    init(server: InspircdServer, services: AthemeServices) {
        self.server = server
        self.services = services
    }

    var port: Int { server.tlsPort }
    var caFile: String { server.certificate.certificatePath }

    static func withRunning(_ body: (JourneyNetwork) async throws -> Void) async throws {
        let server = try await InspircdServer.start(services: .init(password: "link-\(UUID().uuidString)"))
        let services: AthemeServices
        do {
            services = try await AthemeServices.start(linkedTo: server)
        } catch {
            await server.stop()
            throw error
        }
        let network = JourneyNetwork(server: server, services: services)
        do {
            for account in JourneyPeople.servicesAccounts {
                try await AthemeServices.register(
                    account: account, password: JourneyPeople.servicesPassword, email: "\(account)@mail.test",
                    on: server)
            }
            try await body(network)
        } catch {
            await services.stop()
            await server.stop()
            throw error
        }
        await services.stop()
        await server.stop()
    }

    /// Someone on the network: identified to `account` by SASL when given.
    func connect(_ nick: String, sasl account: String? = nil) async throws -> TestIRCUser {
        try await TestIRCUser.connect(
            port: port, caFile: caFile, nick: nick, sasl: account.map { ($0, JourneyPeople.servicesPassword) })
    }
}

/// Starts the shared ircd and services once for the whole suite.
struct JourneyNetworkScope: SuiteTrait, TestScoping {
    typealias TestScopeProvider = Self

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await JourneyNetwork.withRunning { network in
            try await JourneyNetwork.$current.withValue(network) { try await function() }
        }
    }
}

/// Starts one bot process on `store` for the journeys of a nested suite, and stops it after them.
struct JourneyBotScope: SuiteTrait, TestScoping {
    typealias TestScopeProvider = Self

    let store: JourneyStore

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let network = try #require(JourneyNetwork.current, "the journey network was not started")
        try await JourneyBot.withRunning(store: store, network: network) { bot in
            try await JourneyBot.$current.withValue(bot) { try await function() }
        }
    }
}

extension Trait where Self == JourneyNetworkScope {
    /// One ircd and its services for every journey of the suite.
    static var journeyNetwork: JourneyNetworkScope { JourneyNetworkScope() }
}

extension Trait where Self == JourneyBotScope {
    /// One built bot on `store` for every journey of the suite.
    static func journeyBot(_ store: JourneyStore) -> JourneyBotScope { JourneyBotScope(store: store) }
}

/// The shipped example config with what a test machine must change: the server, ports, paths and
/// secrets, and the parts the journeys need turned on. Every changed line is marked in the file.
enum JourneyConfig {
    static var examplePath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/onthemap.example.yaml").path
    }

    /// `example` with the value of each `section.key` path of `changes` replaced (the example's own
    /// keys only: a path it does not have is an error, so the config stays the example's shape).
    static func edit(_ example: String, _ changes: [String: String]) throws -> String {
        var stack: [(indent: Int, key: String)] = []
        var done = Set<String>()
        var lines: [String] = []
        for line in example.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.drop(while: { $0 == " " })
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#"), let colon = trimmed.firstIndex(of: ":"),
                trimmed[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
            else {
                lines.append(line)
                continue
            }
            let indent = line.count - trimmed.count
            while let last = stack.last, last.indent >= indent { stack.removeLast() }
            let key = String(trimmed[..<colon])
            stack.append((indent, key))
            let path = stack.map(\.key).joined(separator: ".")
            if let value = changes[path] {
                lines.append(
                    String(repeating: " ", count: indent) + "\(key): \(value)   # changed for the journey tests")
                done.insert(path)
            } else {
                lines.append(line)
            }
        }
        let missing = Set(changes.keys).subtracting(done)
        guard missing.isEmpty else {
            throw IRCTestSupportError.commandFailed(
                "editing the example config", status: 1, output: "no such keys: \(missing.sorted())")
        }
        return lines.joined(separator: "\n")
    }

    /// A YAML double-quoted string.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// What a journey sent to the bot, by command word, for the `!help` coverage check.
final class JourneyWalk: Sendable {
    private let sent = NIOLockedValueBox<Set<String>>([])

    func record(_ text: String) {
        var word = text.split(separator: " ").first.map(String.init) ?? ""
        if word.hasPrefix("!") { word.removeFirst() }
        sent.withLockedValue { _ = $0.insert(word.lowercased()) }
    }

    var commands: Set<String> { sent.withLockedValue { $0 } }

    private let lines = NIOLockedValueBox<[String]>([])

    /// Notes an exchange for the transcript a failure shows.
    func note(_ line: String) { lines.withLockedValue { $0.append(line) } }

    /// Every exchange so far (passwords left out).
    var transcript: String { lines.withLockedValue { $0.joined(separator: "\n") } }
}

/// The built `onthemap-bot` running on one store, with its config and where it listens.
final class JourneyBot: Sendable {
    @TaskLocal static var current: JourneyBot?

    static let nick = "OnTheMapBot"

    let store: JourneyStore
    let network: JourneyNetwork
    let executable: String
    let folder: TemporaryDirectory
    let config: String
    let webPort: Int
    let operatorPort: Int
    /// The database file (SQLite) or URL (PostgreSQL).
    let database: String
    let process: NIOLockedValueBox<BotProcess?> = .init(nil)
    /// A member of `#class` from before the bot came: sees its JOIN and its announcements.
    let watcher: TestIRCUser

    private init(
        store: JourneyStore, network: JourneyNetwork, executable: String, folder: TemporaryDirectory, config: String,
        webPort: Int, operatorPort: Int, database: String, watcher: TestIRCUser
    ) {
        self.store = store
        self.network = network
        self.executable = executable
        self.folder = folder
        self.config = config
        self.webPort = webPort
        self.operatorPort = operatorPort
        self.database = database
        self.watcher = watcher
    }

    var web: String { "http://127.0.0.1:\(webPort)" }
    var operatorURL: String { "http://127.0.0.1:\(operatorPort)" }
    var logPath: String { folder.file("bot.log") }
    var isRunning: Bool { process.withLockedValue { $0?.process.isRunning ?? false } }

    /// The end of the bot's log (it never holds a password), for failure messages.
    func logTail(_ characters: Int = 3_000) -> String {
        String(((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").suffix(characters))
    }

    /// Runs `onthemap-bot <arguments>` with this bot's config (inserted after the subcommand words),
    /// as the operator does on the bot's machine; returns the exit status and output.
    func cli(_ words: [String], _ rest: [String] = [], input: String? = nil) async throws -> (
        status: Int32, output: String
    ) {
        try await runProcess(executable, words + ["--config", config] + rest, input: input, timeout: .seconds(60))
    }

    /// The config of `store` made from the example, the class database, the roster and the
    /// classmates' pins, then the bot started and seen joining `#class`.
    static func withRunning(
        store: JourneyStore, network: JourneyNetwork, _ body: (JourneyBot) async throws -> Void
    ) async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        let folder = try TemporaryDirectory(prefix: "journey-\(store)")
        var databaseName: String?
        let database: String
        switch store {
        case .sqlite:
            database = folder.file("class.sqlite")
        case .postgres:
            let server = try #require(
                ProcessInfo.processInfo.environment["ONTHEMAP_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 },
                "ONTHEMAP_TEST_POSTGRES_URL is not set: run with scripts/with-postgres.sh")
            let name = "onthemap_journey_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            try await runCommand("/usr/bin/psql", [server, "-q", "-c", "CREATE DATABASE \(name)"])
            databaseName = name
            var components = try #require(URLComponents(string: server))
            components.path = "/" + name
            database = try #require(components.string)
        }
        defer {
            if let databaseName, let server = ProcessInfo.processInfo.environment["ONTHEMAP_TEST_POSTGRES_URL"] {
                // Dropped by the next run's server at the latest (scripts/with-postgres.sh throws it away).
                let drop = Process()
                drop.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
                drop.arguments = [server, "-q", "-c", "DROP DATABASE IF EXISTS \(databaseName) WITH (FORCE)"]
                drop.standardOutput = FileHandle.nullDevice
                drop.standardError = FileHandle.nullDevice
                try? drop.run()
            }
        }
        let webPort = try await FreePort.pick()
        let operatorPort = try await FreePort.pick()
        let example = try String(contentsOfFile: JourneyConfig.examplePath, encoding: .utf8)
        // Changed from the example: where the server, the database and the listeners are, and the
        // secrets; turned on for the journeys: the web map and the v1 API (web.enabled,
        // service.api.enabled), an owner (irc.owners). plugins.user_limits is off because every
        // person of the journeys connects from 127.0.0.1 and types faster than a person: the
        // per-address budget would hold the class back. irc.flood sends 10 lines a second instead
        // of the stock server's 1: the journeys' ircd admits any rate, the gate still paces every
        // line, and at 1 a second the bot's answers, not the journeys, would set the suite's time.
        // Everything else is the example's.
        var changes: [String: String] = [
            "irc.server": "127.0.0.1",
            "irc.port": "\(network.port)",
            "irc.tls_ca_file": JourneyConfig.quoted(network.caFile),
            "irc.sasl.password": JourneyConfig.quoted(JourneyPeople.servicesPassword),
            "irc.owners": "[\"account:\(JourneyPeople.ownerAccount)\"]",
            "irc.flood": "{burst: 20, lines_per_second: 10}",
            "service.api.enabled": "true",
            "plugins.user_limits": "false",
            "web.enabled": "true",
            "web.listen": "127.0.0.1:\(webPort)",
            "web.public_url": "http://127.0.0.1:\(webPort)",
            "operator.listen": "127.0.0.1:\(operatorPort)",
        ]
        switch store {
        case .sqlite:
            changes["service.database"] = JourneyConfig.quoted(database)
        case .postgres:
            changes["service.backend"] = "postgres"
            changes["service.postgres_url"] = JourneyConfig.quoted(database)
        }
        let config = folder.file("onthemap.yaml")
        try JourneyConfig.edit(example, changes).write(toFile: config, atomically: true, encoding: .utf8)
        let checked = try await runProcess(executable, ["check-config", "--config", config])
        #expect(checked.status == 0, "check-config: \(checked.output)")

        // The instructor's roster, imported before the class starts.
        let roster = folder.file("roster.csv")
        try
            ([
                "email,first_name,last_name,password",
                "\(JourneyPeople.ada.email),\(JourneyPeople.ada.first),\(JourneyPeople.ada.last),\(JourneyPeople.ada.password)",
                "\(JourneyPeople.erin.email),\(JourneyPeople.erin.first),\(JourneyPeople.erin.last),\(JourneyPeople.erin.password)",
                "\(JourneyPeople.noor.email),\(JourneyPeople.noor.first),\(JourneyPeople.noor.last),\(JourneyPeople.noor.password)",
                "\(JourneyPeople.lin.email),\(JourneyPeople.lin.first),\(JourneyPeople.lin.last),\(JourneyPeople.lin.password)",
            ].joined(separator: "\n") + "\n").write(toFile: roster, atomically: true, encoding: .utf8)
        let imported = try await runCommand(executable, ["accounts", "import", "--config", config, roster])
        #expect(imported.contains("4 added"), "accounts import: \(imported)")
        // The classmates the lookups find: a pin in Tokyo for Noor, one in Nairobi for a student of
        // last term (pins import, as the class map moved from elsewhere).
        let pins = folder.file("classmates.csv")
        try """
        uniqueKey,firstName,lastName,mapString,mediaURL,latitude,longitude
        noor-tokyo,Noor,Haddad,Tokyo,https://noor.example.org,35.6895,139.6917
        wanjiru-nairobi,Wanjiru,Kamau,Nairobi,https://wanjiru.example.org,-1.2864,36.8172
        """.write(toFile: pins, atomically: true, encoding: .utf8)
        let pinned = try await runCommand(executable, ["pins", "import", "--config", config, pins])
        #expect(pinned.contains("2"), "pins import: \(pinned)")

        let watcher = try await network.connect("watcher")
        try await watcher.join("#class")
        let bot = JourneyBot(
            store: store, network: network, executable: executable, folder: folder, config: config,
            webPort: webPort, operatorPort: operatorPort, database: database, watcher: watcher)
        let started = try BotProcess(executable: executable, config: config, log: folder.file("bot.log"))
        bot.process.withLockedValue { $0 = started }
        defer { bot.process.withLockedValue { $0?.kill() } }
        do {
            _ = try await watcher.waitForMessage(timeout: .seconds(30), "the bot's JOIN on \(store)") {
                $0.command == "JOIN" && $0.sourceNick == nick
            }
            try await body(bot)
        } catch {
            Issue.record("bot log (\(store)):\n\(bot.logTail())")
            await watcher.quit()
            throw error
        }
        // SIGTERM: the bot says goodbye and exits 0.
        let process = bot.process.withLockedValue { $0?.process }
        if let process, process.isRunning {
            process.terminate()
            _ = try? await watcher.waitForMessage(timeout: .seconds(15), "the bot's QUIT") {
                $0.command == "QUIT" && $0.sourceNick == nick
            }
            await process.waitForExit(timeout: .seconds(30))
            #expect(!process.isRunning && process.terminationStatus == 0, "the bot on \(store) did not stop cleanly")
        }
        await watcher.quit()
    }
}

/// A person talking to the bot, privately unless told otherwise. Every command is recorded in the
/// journey's walk; a password never appears in a failure message.
struct JourneyPerson {
    let user: TestIRCUser
    let nick: String
    let walk: JourneyWalk
    static let timeout: Duration = .seconds(30)

    /// `text` with any password replaced, for messages.
    static func shown(_ text: String) -> String {
        let words = text.split(separator: " ")
        guard let first = words.first, ["!login", "!identify", "!register"].contains(first.lowercased()) else {
            return text
        }
        return words.prefix(2).joined(separator: " ") + " …"
    }

    private static func isPrivateAnswer(_ message: IRCMessage, to nick: String) -> Bool {
        (message.command == "PRIVMSG" || message.command == "NOTICE") && message.sourceNick == JourneyBot.nick
            && message.parameters.first.map { CaseMapping.rfc1459.equals($0, nick) } == true
    }

    /// Sends `text` to the bot privately and returns its answer: exactly `lines` lines, or with
    /// `lines` nil every line of it, told apart from what follows by a `!ping` sent after it (the
    /// bot runs one person's commands in order and sends their answers in order).
    func ask(_ text: String, lines: Int? = nil) async throws -> [String] {
        walk.record(text)
        let nick = self.nick
        walk.note("\(nick) > \(Self.shown(text))")
        try await user.privmsg(JourneyBot.nick, text)
        if lines == nil { try await user.privmsg(JourneyBot.nick, "!ping") }
        var answer: [String] = []
        while lines.map({ answer.count < $0 }) ?? true {
            let message: IRCMessage
            do {
                message = try await user.waitForMessage(timeout: Self.timeout, "the answer to \(Self.shown(text))") {
                    Self.isPrivateAnswer($0, to: nick)
                }
            } catch {
                throw JourneyError.noAnswer("\(nick) sent \(Self.shown(text)) and got only \(answer)")
            }
            let line = message.parameters.last ?? ""
            if lines == nil && line == "pong" { break }
            answer.append(line)
            walk.note("\(nick) < \(line)")
        }
        return answer
    }

    /// The answer to `text`, which is one line.
    func say(_ text: String) async throws -> String { try await ask(text, lines: 1).first ?? "" }

    /// Says `text` in `channel` and returns the bot's first line there.
    func sayInChannel(_ channel: String, _ text: String) async throws -> String {
        walk.record(text)
        walk.note("\(nick) in \(channel) > \(text)")
        try await user.privmsg(channel, text)
        let message = try await user.waitForMessage(timeout: Self.timeout, "the answer in \(channel) to \(text)") {
            $0.command == "PRIVMSG" && $0.sourceNick == JourneyBot.nick
                && $0.parameters.first.map { CaseMapping.rfc1459.equals($0, channel) } == true
                && ($0.parameters.last ?? "").hasPrefix("\(nick): ")
        }
        walk.note("\(nick) in \(channel) < \(message.parameters.last ?? "")")
        return message.parameters.last ?? ""
    }
}

enum JourneyError: Error, CustomStringConvertible {
    case noAnswer(String)
    var description: String {
        switch self {
        case .noAnswer(let what): "no answer: \(what)"
        }
    }
}
