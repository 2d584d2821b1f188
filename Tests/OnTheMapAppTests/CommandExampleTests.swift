import BotKit
import BotTesting
@testable import ClassKit
import Foundation
import IRCClient
import IRCProtocol
import Localization
import Logging
@testable import OnTheMapApp
@testable import OnTheMapService
import SQLiteDirectory
import Testing

/// Every command's examples (`!help <command>` shows them) are true: the students' ones of the demo
/// class, the owners' ones of a bot connected to a real IRC server.
@Suite struct CommandExampleTests {
    static let geocoder: GazetteerGeocoder = {
        do { return try GazetteerGeocoder.loadBundled() } catch { fatalError("gazetteer: \(error)") }
    }()

    /// The default config with the web map on: every plugin, as `seed-demo` and `scripts/run-local` use them.
    static var config: BotConfiguration {
        var config = BotConfiguration()
        config.irc.announceTo = ["#class"]
        config.web.enabled = true
        return config
    }

    /// A bot with every plugin of ``config`` on a fresh demo class, speaking `languages`.
    static func demoBot(
        in folder: TemporaryDirectory, languages: ChannelLanguages = ChannelLanguages()
    ) async throws -> TestBot<StudentLogin> {
        let sqlite = try SQLiteStudentDirectory(
            path: folder.file("demo.sqlite"),
            options: LocalDirectoryOptions(
                signUpURL: config.service.signupURL, passwordHasher: PasswordHasher(uncheckedRounds: 1_000)))
        _ = try await DemoClass.seed(
            into: sqlite, geocoder: geocoder,
            gate: PrivacyGate(places: nil, policy: PrivacyPolicy(), choices: PrivacyChoices(store: nil)),
            precision: .exact)
        let services = ClassServices(
            directory: sqlite, trips: sqlite, accounts: sqlite, stateStore: sqlite, geocoder: geocoder,
            places: geocoder,
            settings: PluginAssembly.settings(for: config))
        var settings = CommandRouter.Settings.unlimited
        settings.languages = languages
        return TestBot(
            plugins: PluginAssembly.plugins(config: config, services: services), settings: settings,
            gate: services.logins)
    }

    /// Runs `example` as the demo student Alice (logged in first when it says so), in a private
    /// message for a private-only command, else in a channel; returns the answer lines.
    static func run(_ example: CommandExample, of command: Command, on bot: TestBot<StudentLogin>) async -> [String] {
        let (email, password, _, _) = DemoClass.accounts[0]
        if example.loggedIn {
            let welcome = await bot.dm("!login \(email) \(password)", as: "alice")
            #expect(welcome.first?.text.hasPrefix("Welcome") == true, "\(welcome)")
        }
        if command.allowed == .privateMessage {
            return await bot.dm(example.input, as: "alice").map(\.text)
        }
        return await bot.say(example.input, in: "#class", as: "alice").map {
            $0.target == "#class" && $0.text.hasPrefix("alice: ") ? String($0.text.dropFirst(7)) : $0.text
        }
    }

    @Test func everyExampleOfEveryCommandIsTrueOfTheDemoClass() async throws {
        let folder = try TemporaryDirectory(prefix: "examples")
        let commands = try await Self.demoBot(in: folder).router.catalog.entries.map(\.command)
        #expect(commands.count >= 15)
        for command in commands {
            #expect(!command.examples.isEmpty, "!\(command.name) has no example")
            #expect(command.examples.allSatisfy { !$0.byOwner }, "!\(command.name) is not an owner command")
            for (index, example) in command.examples.enumerated() {
                let bot = try await Self.demoBot(in: TemporaryDirectory(prefix: "example-\(command.name)-\(index)"))
                let answer = await Self.run(example, of: command, on: bot)
                #expect(
                    example.matches(answer),
                    "\(example.input) answered \(answer), not \(example.answer)")
            }
        }
    }

    /// `!help <command>` shows each example with what it shows, in the reader's language: every
    /// example has an explanation in the catalogues, translated, and the line stays short enough
    /// for one IRC line.
    @Test(arguments: Language.supported) func helpExplainsEveryExampleInEachLanguage(_ language: Language) async throws
    {
        let catalogs = try Catalogs(folder: Catalogs.bundledFolder())
        let (phrases, english) = (catalogs.phrasebook(language), catalogs.phrasebook(.english))
        let bot = try await Self.demoBot(
            in: TemporaryDirectory(prefix: "help-\(language.tag)"), languages: ChannelLanguages(fallback: language))
        let commands = await bot.router.catalog.entries.map(\.command)
        for command in commands {
            let explained = try command.examples.map { example in
                let key = try #require(example.explanation, "\(example.input) has no explanation")
                #expect(catalogs.source.messages[key] != nil, "\(key) is not in en.json")
                if language != .english { #expect(phrases(key) != english(key), "\(key) is not translated") }
                let input = command.hasSecretArguments ? command.usage(in: phrases, prefix: "!") : example.input
                return phrases("help.exampleExplained", ["example": input, "explanation": phrases(key)])
            }
            let lines = await bot.dm("!help \(command.name)", as: "alice").map(\.text)
            #expect(Array(lines.suffix(explained.count)) == explained, "!help \(command.name) in \(language.tag)")
            for line in explained { #expect(line.utf8.count <= 400, "\(line)") }
        }
    }

    /// Every owner command's examples, typed by an owner in a private message, answer as they say,
    /// on a bot wired as it runs (`BotAssembly.makeNetwork`, its answers recorded) whose owner
    /// commands act on a real connection to ngircd over TLS. The examples run on one bot in the
    /// order the commands are declared (`!unignore` after `!ignore`), but `!quit`, which ends the
    /// connection, last.
    @Test func everyOwnerExampleIsTrueOfAConnectedBot() async throws {
        try await NgircdServer.withRunning { server in
            let folder = try TemporaryDirectory(prefix: "owner-examples")
            let configPath = folder.file("bot.yaml")
            try """
            irc:
              server: 127.0.0.1
              port: \(server.tlsPort)
              tls_ca_file: \(server.certificate.certificatePath)
              nick: MapBot
              channels: ["#class"]
              announce_to: ["#class"]
              owners: ["account:teacher"]
            service:
              database: \(folder.file("class.sqlite"))
            """.write(toFile: configPath, atomically: true, encoding: .utf8)
            let config = try ConfigLoader.load(path: configPath)
            let quiet = Logger(label: "owner-examples", factory: { _ in SwiftLogNoOpLogHandler() })
            let stack = try await ServiceStack.make(config: config, logger: quiet, loadGeocoder: false)
            let transport = RecordingTransport()
            let (control, router) = BotAssembly.makeNetwork(
                BotConfiguration.defaultNetworkName, config: config, configPath: configPath, stack: stack,
                sharing: nil, group: BotControlGroup(), transport: transport, logger: quiet)
            let clientLog = LogRecorder()
            let client = IRCClient(configuration: IRCClientConfiguration(config.irc), logger: clientLog.logger())
            let running = Task { await client.run() }
            control.attach(client: client, capabilities: .declared(for: .local)) {
                HealthReport.Backend(name: "local", reachable: true, error: nil)
            }
            // The client logs the join once it has taken it.
            await clientLog.waitFor("Joined #class", timeout: .seconds(60))
            #expect(
                await client.joinedChannels.contains("#class"),
                """
                the bot did not join #class; its client logged:
                \(clientLog.all.joined(separator: "\n"))
                ngircd logged:
                \(server.log())
                """)

            let owner = UserIdentity(nick: "boss", user: "~boss", host: "boss.example", account: "teacher")
            let commands = await router.catalog.entries.map(\.command).filter(\.requiresOwner)
            #expect(commands.count == 10)
            let examples = commands.flatMap { command in command.examples.map { (command.name, $0) } }
            for (name, example) in examples.filter({ $0.0 != "quit" }) + examples.filter({ $0.0 == "quit" }) {
                #expect(example.byOwner, "an example of !\(name) that is not typed by an owner")
                _ = transport.takeSent()
                await router.handle(IRCUserMessage(sender: owner, origin: .privateMessage, text: example.input))
                await router.waitUntilIdle()
                let answer = transport.takeSent().map(\.text)
                #expect(example.matches(answer), "\(example.input) answered \(answer), not \(example.answer)")
            }
            // `!quit` stops the connection: the client's run returns (the shutdown below ends it
            // when it did not).
            let stopped = TestSignal()
            Task {
                await running.value
                stopped.signal()
            }
            #expect(await stopped.wait(timeout: .seconds(5)), "!quit did not stop the connection")
            await client.shutdown()
            await running.value
            await stack.shutdown()
        }
    }

    /// `!help about` tells students where their privacy is handled.
    @Test func helpAboutPointsToThePrivacyCommands() async throws {
        let bot = try await Self.demoBot(in: TemporaryDirectory(prefix: "about"))
        let about = await bot.dm("!help about", as: "alice").map(\.text).joined(separator: "\n")
        #expect(about.contains("!privacy"), "\(about)")
        #expect(about.contains("!mydata") && about.contains("!forget"), "\(about)")
    }
}
