import BotKit
import BotTesting
import Foundation
import OnTheMapApp
import OnTheMapPlugins
@testable import OnTheMapService
import SQLiteDirectory
import Testing

/// Every command's examples (`!help <command>` shows them) are true of the demo class.
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

    /// A bot with every plugin of ``config`` on a fresh demo class.
    static func demoBot(in folder: TemporaryDirectory) async throws -> TestBot<StudentLogin> {
        let sqlite = try SQLiteStudentDirectory(
            path: folder.file("demo.sqlite"),
            options: LocalDirectoryOptions(
                signUpURL: config.service.signupURL, passwordHasher: PasswordHasher(uncheckedRounds: 1_000)))
        _ = try await DemoClass.seed(into: sqlite, geocoder: geocoder)
        let services = ClassServices(
            directory: sqlite, accounts: sqlite, stateStore: sqlite, geocoder: geocoder,
            settings: PluginAssembly.settings(for: config))
        return TestBot(plugins: PluginAssembly.plugins(config: config, services: services), sessions: SessionBook())
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
            for (index, example) in command.examples.enumerated() {
                let bot = try await Self.demoBot(in: TemporaryDirectory(prefix: "example-\(command.name)-\(index)"))
                let answer = await Self.run(example, of: command, on: bot)
                #expect(
                    example.matches(answer),
                    "\(example.input) answered \(answer), not \(example.answer)")
            }
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
