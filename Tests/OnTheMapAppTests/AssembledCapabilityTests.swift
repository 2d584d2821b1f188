import BotKit
import BotTesting
import ClassKit
import Foundation
import Logging
import OnTheMapPlugins
import OnTheMapService
import Testing

@testable import OnTheMapApp

/// What the product assembles from the example config (`config/onthemap.example.yaml`, only the
/// database or server changed) keeps every capability of its directory: the stack's instrumented
/// wrappers forward trips, the class services and plugins get them, and `!status` and
/// `check-config` say the same thing the stack found. A wrapper that dropped a capability fails here.
/// (The same on PostgreSQL, through the built executable, is `JourneyLiveTests.OnPostgreSQL`.)
@Suite struct AssembledCapabilityTests {
    static let quiet = Logger(label: "capabilities", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The example config with `environment` overriding keys (ONTHEMAP_SECTION__KEY).
    static func exampleConfig(_ environment: [String: String]) throws -> BotConfiguration {
        let text = try String(
            contentsOf: ConfigTests.configFolder.appendingPathComponent("onthemap.example.yaml"), encoding: .utf8)
        return try ConfigLoader.parse(
            yaml: text, environment: ["ONTHEMAP_SASL_PASSWORD": "from-env"].merging(environment) { $1 })
    }

    /// On SQLite, the assembled stack has trips: a trip set through the stack's trips is on the pin
    /// the stack's directory reads, the class services hold the same trips, `!post … until` and
    /// `!unpost trip` work through the assembled plugins, and the capabilities found are those
    /// `check-config` declares for the backend.
    @Test func theSQLiteStackKeepsTripsThroughItsWrappers() async throws {
        let folder = try TemporaryDirectory(prefix: "capabilities")
        let config = try Self.exampleConfig(["ONTHEMAP_SERVICE__DATABASE": folder.file("class.sqlite")])
        let stack = try await ServiceStack.make(config: config, logger: Self.quiet)
        defer { Task { await stack.shutdown() } }
        #expect(stack.capabilities == .declared(for: .local))
        #expect(stack.capabilities.trips)
        try await Self.walkTrips(config: config, stack: stack)
    }

    /// The Udacity-compatible API keeps one pin per student: the stack finds no trips and no
    /// accounts, as `check-config` declares, and says so in words.
    @Test func theUdacityStackHasNoTripsAndSaysSo() async throws {
        let config = try Self.exampleConfig(["ONTHEMAP_SERVICE__BACKEND": "udacity"])
        let stack = try await ServiceStack.make(config: config, logger: Self.quiet, loadGeocoder: false)
        defer { Task { await stack.shutdown() } }
        #expect(stack.trips == nil)
        #expect(stack.capabilities == .declared(for: .udacity))
        #expect(
            stack.capabilities.sentence
                == "keeps pins only: no accounts of its own, no trips (one pin per student), no bot state across restarts; other instances' pins are read at each poll"
        )
        #expect(
            DirectoryCapabilities.declared(for: .local).sentence
                == "keeps pins, accounts of its own, trips and the bot's state across restarts; other instances' pins are read at each poll"
        )
        #expect(PluginAssembly.services(config: config, stack: stack).trips == nil)
    }

    /// `check-config` says what the backend keeps beyond pins.
    @Test func checkConfigSaysWhatTheDirectoryKeeps() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        let folder = try TemporaryDirectory(prefix: "capabilities-check")
        let path = folder.file("bot.yaml")
        try "irc:\n  server: irc.example.org\n  nick: GoodBot\n  channels: ['#a']\nservice:\n  backend: udacity\n"
            .write(
                toFile: path, atomically: true, encoding: .utf8)
        let (status, output) = try await runProcess(executable, ["check-config", "--config", path])
        #expect(status == 0, "\(output)")
        #expect(
            output.contains("the directory keeps pins only: no accounts of its own, no trips (one pin per student)"))
    }

    /// A student's trip through the plugins the config assembles on `stack`.
    static func walkTrips(config: BotConfiguration, stack: ServiceStack) async throws {
        let accounts = try #require(stack.accounts)
        let account = try await accounts.addAccount(
            email: "ada@class.test", password: "correct horse battery", firstName: "Ada", lastName: "Lovelace")
        let services = PluginAssembly.services(config: config, stack: stack)
        #expect(services.trips != nil)
        let bot = TestBot(
            plugins: PluginAssembly.plugins(config: config, services: services) + [CorePlugin()],
            gate: services.logins)
        func ask(_ text: String) async -> [String] { await bot.dm(text, as: "ada").map(\.text) }
        #expect(await ask("!login ada@class.test correct horse battery").first?.hasPrefix("Welcome") == true)
        _ = await ask("!post Seattle, WA | https://ada.example")
        #expect(try await stack.directory.location(ofAccount: account.accountKey) != nil)
        let trip = await ask("!post Lisbon until tomorrow")
        #expect(trip.first?.hasPrefix("You are in Lisbon") == true, "\(trip)")
        let kept = try await stack.directory.location(ofAccount: account.accountKey)
        #expect(kept?.trip?.mapString.hasPrefix("Lisbon") == true)
        #expect(await ask("!unpost trip").first?.hasPrefix("Your trip ended") == true)
        #expect(try await stack.directory.location(ofAccount: account.accountKey)?.trip == nil)
    }
}
