import BotKit
import BotTesting
@testable import ClassKit
import Foundation
import IRCProtocol
import Logging
@testable import OnTheMapApp
import OnTheMapService
import SQLiteDirectory
import Testing

/// Two networks wired as the running bot wires them (one class directory, a router each), each
/// replying into a recording transport: identities, sessions and owners stay on their own network;
/// a post on one is announced once on each.
@Suite(.serialized) struct NetworkRoutingTests {
    static let yaml = """
        networks:
          - {name: a, server: a.example, nick: MapBot, channels: ["#a"], announce_to: ["#a"], owners: ["account:boss"]}
          - {name: b, server: b.example, nick: MapBot, channels: ["#b"], announce_to: ["#b"], command_prefix: "?"}
        plugins:
          announce: {poll_seconds: 3600}
        """

    /// One network of the test bot.
    struct Network {
        let router: CommandRouter
        let control: BotControl
        let transport: RecordingTransport
        /// What the network's bot logs (every level), for the test to wait on.
        let log: WaitableLines

        /// Sends `text` from `sender` (privately, or in `channel`) and returns what the bot answered.
        func say(_ text: String, from sender: UserIdentity, in channel: String? = nil) async -> [String] {
            let before = transport.sent.count
            await router.handle(
                IRCUserMessage(
                    sender: sender, origin: channel.map { .channel($0) } ?? .privateMessage, text: text))
            await router.waitUntilIdle()
            return transport.sent.dropFirst(before).filter { $0.target == sender.nick }.map(\.text)
        }

        /// Waits until the announcer has finished `number` rounds since it started (each logs it).
        func waitForAnnouncerRound(_ number: Int) async throws {
            let done = await log.wait(timeout: .seconds(60)) { lines in
                lines.reduce(0) { $0 + ($1.contains("announcer round finished") ? 1 : 0) } >= number
            }
            try #require(done, "the announcer did not finish its round \(number)")
        }

        /// What the bot said in `channel` so far.
        func said(in channel: String) -> [String] {
            transport.sent.filter { $0.target == channel }.map(\.text)
        }
    }

    static func jane(account: String? = nil) -> UserIdentity {
        UserIdentity(nick: "jane", user: "~jane", host: "dorm.example", account: account)
    }

    /// Runs `body` with both networks over a fresh class that has Jane's account.
    static func withTwoNetworks(_ body: (Network, Network, ServiceStack) async throws -> Void) async throws {
        let folder = try TemporaryDirectory(prefix: "networks")
        var config = try ConfigLoader.parse(yaml: yaml)
        config.service.database = folder.file("class.sqlite")
        let logger = Logger(label: "networks", factory: { _ in SwiftLogNoOpLogHandler() })
        let stack = try await ServiceStack.make(config: config, logger: logger)
        _ = try await stack.accounts?.addAccount(
            email: "jane@class.test", password: "jane-secret-pw1", firstName: "Jane", lastName: "Doe")
        let group = BotControlGroup()
        var first: ClassServices?
        var networks: [Network] = []
        for network in config.networks {
            let transport = RecordingTransport()
            let log = WaitableLines()
            let (control, router) = BotAssembly.makeNetwork(
                network.name, config: config, configPath: nil, stack: stack, sharing: first, group: group,
                transport: transport, logger: WaitableLogHandler.logger(log, label: "networks"))
            first = first ?? control.services
            networks.append(Network(router: router, control: control, transport: transport, log: log))
        }
        try await body(networks[0], networks[1], stack)
        await stack.shutdown()
    }

    @Test func aLoginOnOneNetworkIsNobodyOnTheOther() async throws {
        try await Self.withTwoNetworks { a, b, _ in
            let welcome = await a.say("!login jane@class.test jane-secret-pw1", from: Self.jane())
            #expect(welcome.first?.hasPrefix("Welcome, Jane Doe!") == true, "\(welcome)")
            // The same nick, user and host on the other network: not logged in there.
            let other = await b.say("?whoami", from: Self.jane())
            #expect(other == ["You are not logged in. Log in privately: /msg MapBot ?login <email> <password>"])
            #expect(await a.say("!whoami", from: Self.jane()).first?.hasPrefix("You are logged in as Jane Doe") == true)
            #expect(await a.router.sessions.count == 1)
            #expect(await b.router.sessions.count == 0)
            // Each network has its own prefix: b takes no "!" command, and points to its own.
            let unprefixed = await b.say("!whoami", from: Self.jane())
            #expect(unprefixed == ["Hi! I am a class map bot. Try ?help for what I can do."])
        }
    }

    @Test func ownersAreOwnersOnTheirOwnNetworkOnly() async throws {
        try await Self.withTwoNetworks { a, b, _ in
            let boss = UserIdentity(nick: "boss", user: "~boss", host: "staff.example", account: "boss")
            #expect(await a.say("!ignores", from: boss) == ["Nobody is ignored."])
            #expect(await b.say("?ignores", from: boss) == ["?ignores is for the bot's owners only."])
            // An ignore on one network ignores nobody on the other.
            #expect(await a.say("!ignore jane 5", from: boss) == ["Ignoring jane!*@* for 5 minutes."])
            #expect(await a.say("!ping", from: Self.jane()).isEmpty)
            #expect(await b.say("?ping", from: Self.jane()) == ["pong"])
        }
    }

    @Test func statusListsEveryNetwork() async throws {
        try await Self.withTwoNetworks { a, _, _ in
            let boss = UserIdentity(nick: "boss", user: "~boss", host: "staff.example", account: "boss")
            let status = await a.say("!status", from: boss)
            #expect(status.first?.hasSuffix("on 2 networks.") == true, "\(status)")
            #expect(status.contains { $0.hasPrefix("a: not connected") }, "\(status)")
            #expect(status.contains { $0.hasPrefix("b: not connected") }, "\(status)")
        }
    }

    /// A post on network a is announced by a itself at once, and by b's announcer (woken by the
    /// post) in b's channel; neither announces it twice.
    @Test(.timeLimit(.minutes(1))) func aPostIsAnnouncedOnceOnEachNetwork() async throws {
        try await Self.withTwoNetworks { a, b, stack in
            let announcers = [a, b].map { network in Task { await network.router.runBackgroundPlugins() } }
            // Each announcer's first round marks what is there as known (its ledger is saved).
            for network in [a, b] {
                try await network.waitForAnnouncerRound(1)
                let key = AnnouncementLedger.stateKey(instance: network.control.services.keptStateInstance)
                try #require(try await stack.state?.state(key) != nil)
            }
            _ = await a.say("!login jane@class.test jane-secret-pw1", from: Self.jane())
            let saved = await a.say("!post Seattle, WA | https://jane.example", from: Self.jane())
            #expect(saved.first?.hasPrefix("You are on the map") == true, "\(saved)")
            let line = "New pin: Jane Doe — Seattle, Washington, United States — https://jane.example"
            await b.transport.waitForSent(timeout: .seconds(30)) { $0.contains { $0.target == "#b" } }
            // The round that announced it is over (its end is logged after what it announced).
            await b.log.wait(timeout: .seconds(30)) { lines in
                guard let said = lines.lastIndex(where: { $0.contains("announced new pins") }) else { return false }
                return lines[said...].contains { $0.contains("announcer round finished") }
            }
            // Another wake-up (a pin saved through the API) finds nothing new: the round it starts
            // is over once its end is logged.
            let pin = try #require(try await a.control.services.classMap.pins(named: "Jane Doe").first)
            let roundsSoFar = b.log.count(containing: "announcer round finished")
            await b.control.services.pinSavedOutsideIRC(pin)
            try await b.waitForAnnouncerRound(roundsSoFar + 1)
            #expect(a.said(in: "#a") == [line])
            #expect(b.said(in: "#b") == [line])
            #expect(a.said(in: "#b").isEmpty && b.said(in: "#a").isEmpty)
            for announcer in announcers { announcer.cancel() }
            for announcer in announcers { await announcer.value }
        }
    }
}
