import BotKit
import BotTesting
import ClassKit
import Foundation
import IRCProtocol
import OnTheMapApp
import Testing

/// Two bot instances (each its own service stack, plugins and announcer, from its own config)
/// share a PostgreSQL cluster that the test stops and starts again. Posts made before the restart
/// go through; a post made while the server is down gets a clear answer (nothing saved, the
/// place and link kept for a retry — no silent automatic retry); after the restart both instances
/// recover by themselves (connections and LISTEN/NOTIFY), a post made through one instance is
/// announced in the other's channel, no post is lost and none is announced twice.
@Suite(.tags(.startsProcesses), .serialized) struct PostgresRestartTests {
    /// One bot instance without IRC: its config's service stack and plugins on a real router.
    struct Instance {
        let channel: String
        let stack: ServiceStack
        let router: CommandRouter
        /// Keeps every line the bot sends (announcements arrive between commands).
        let transport: RecordingTransport
        let background: Task<Void, Never>
        /// What the instance logs (from info up), for the test to wait on.
        let log: WaitableLines

        static func start(nick: String, channel: String, postgresURL: String) async throws -> Instance {
            let config = try ConfigLoader.parse(
                yaml: """
                    irc:
                      server: 127.0.0.1
                      nick: \(nick)
                      channels: ["\(channel)"]
                      announce_to: ["\(channel)"]
                    service:
                      backend: postgres
                      postgres_url: "\(postgresURL)"
                    plugins:
                      announce: {poll_seconds: 3600}
                    """)
            let log = WaitableLines()
            let logger = WaitableLogHandler.logger(log, label: "postgres-restart", level: .info)
            let stack = try await ServiceStack.make(config: config, logger: logger)
            let transport = RecordingTransport(nick: nick)
            let services = PluginAssembly.services(config: config, stack: stack)
            let router = CommandRouter(
                plugins: PluginAssembly.plugins(config: config, services: services),
                settings: CommandRouter.Settings(floodGuard: CommandFloodGuard(maxCommands: 10_000)),
                transport: transport, gate: services.logins, logger: logger)
            let background = Task { await router.runBackgroundPlugins() }
            return Instance(
                channel: channel, stack: stack, router: router, transport: transport, background: background,
                log: log)
        }

        func stop() async {
            background.cancel()
            await background.value
            await stack.shutdown()
        }

        /// Says `text` privately as `nick`; returns the answer and how long it took.
        func dm(_ text: String, as nick: String) async -> (text: String, took: Duration) {
            let start = transport.sent.count
            let started = ContinuousClock.now
            let sender = UserIdentity(nick: nick, user: "~" + nick, host: nick + ".example")
            await router.handle(IRCUserMessage(sender: sender, origin: .privateMessage, text: text))
            await router.waitUntilIdle()
            let took = ContinuousClock.now - started
            let answer = transport.sent.dropFirst(start).filter { $0.target == nick }.map(\.text)
            return (answer.joined(separator: "\n"), took)
        }

        /// The links of the pins announced in the channel, in order.
        var announcedLinks: [String] {
            transport.sent.filter { $0.target == channel }.compactMap { line in
                guard line.text.hasPrefix("New pin: ") || line.text.hasPrefix("Moved pin: ") else { return nil }
                return line.text.components(separatedBy: " — ").last
            }
        }

        /// Waits until `link` has been announced in the channel.
        func waitForAnnouncement(of link: String, timeout: Duration = .seconds(20)) async throws {
            let channel = self.channel
            await transport.waitForSent(timeout: timeout) { sent in
                sent.contains { $0.target == channel && $0.text.hasSuffix(" — \(link)") }
            }
            #expect(
                announcedLinks.contains(link),
                "\(channel): \(transport.sent.map(\.text))\nits log:\n  \(log.lines.suffix(20).joined(separator: "\n  "))"
            )
        }
    }

    /// Waits until each instance has started listening for pin notifications `times` times (once
    /// at start, once more after each lost connection): each says so in its log.
    static func waitForListeners(_ instances: [Instance], times: Int, timeout: Duration = .seconds(30))
        async throws
    {
        for instance in instances {
            let listening = await instance.log.wait(timeout: timeout) { lines in
                lines.reduce(0) { $0 + ($1.contains("Listening to PostgreSQL notifications") ? 1 : 0) } >= times
            }
            #expect(listening, "\(instance.channel) did not listen \(times) times: \(instance.log.lines.suffix(10))")
        }
    }

    @Test(.timeLimit(.minutes(2)), .enabled(if: PostgresCluster.isAvailable))
    func twoInstancesRecoverFromARestartAndLoseNothing() async throws {
        try await PostgresCluster.withRunning { cluster in
            let first = try await Instance.start(nick: "BotA", channel: "#a", postgresURL: cluster.url)
            let second = try await Instance.start(nick: "BotB", channel: "#b", postgresURL: cluster.url)
            do {
                try await Self.scenario(cluster: cluster, first: first, second: second)
            } catch {
                await first.stop()
                await second.stop()
                throw error
            }
            await first.stop()
            await second.stop()
        }
    }

    static func scenario(cluster: PostgresCluster, first: Instance, second: Instance) async throws {
        let accounts = try #require(first.stack.accounts)
        _ = try await accounts.addAccount(
            email: "alice@class.test", password: "alice-pw-123", firstName: "Alice", lastName: "Liddell")
        _ = try await accounts.addAccount(
            email: "bob@class.test", password: "bob-pw-4567", firstName: "Bob", lastName: "Builder")
        try await waitForListeners([first, second], times: 1)
        #expect(await first.dm("!login alice@class.test alice-pw-123", as: "alice").text.hasPrefix("Welcome, Alice"))
        #expect(await second.dm("!login bob@class.test bob-pw-4567", as: "bob").text.hasPrefix("Welcome, Bob"))

        // Before: a post through the first instance is announced by both.
        let posted = await first.dm("!post Paris, France | https://alice.example/1", as: "alice")
        #expect(
            posted.text.hasPrefix("You are on the map: Alice Liddell — Paris, Île-de-France, France"), "\(posted.text)")
        try await first.waitForAnnouncement(of: "https://alice.example/1")
        try await second.waitForAnnouncement(of: "https://alice.example/1")
        #expect(await first.dm("!post Lima, Peru", as: "alice").text.hasPrefix("Found Lima"))

        // During: the server is down. A save gets a clear answer in time and keeps the post for a
        // retry; a lookup says the directory cannot be reached. Nothing hangs.
        try await cluster.stop(.fast)
        let during = await first.dm("!link https://alice.example/2", as: "alice")
        #expect(
            during.text
                == "I could not reach the class directory, so your pin was not saved. Your place and link are kept: send !link <link> to try again, or !cancel."
        )
        #expect(during.took < .seconds(15), "took \(during.took)")
        let lookup = await second.dm("!near", as: "bob")
        #expect(lookup.text == "I could not reach the class directory just now; please try again in a minute.")
        #expect(lookup.took < .seconds(15), "took \(lookup.took)")

        // After: both instances come back by themselves (their listeners too).
        try await cluster.start()
        try await waitForListeners([first, second], times: 2)
        let retried = await first.dm("!link https://alice.example/2", as: "alice")
        #expect(
            retried.text.hasPrefix("Your pin is updated: Alice Liddell — Lima, Lima Province, Peru"), "\(retried.text)")
        try await second.waitForAnnouncement(of: "https://alice.example/2")
        let bobPosted = await second.dm("!post Tokyo, Japan | https://bob.example/1", as: "bob")
        #expect(bobPosted.text.hasPrefix("You are on the map: Bob Builder — Tokyo"), "\(bobPosted.text)")
        try await first.waitForAnnouncement(of: "https://bob.example/1")
        try await first.waitForAnnouncement(of: "https://alice.example/2")
        try await second.waitForAnnouncement(of: "https://bob.example/1")

        // No post lost, none announced twice in either channel.
        let pins = try await cluster.psql(
            "SELECT a.email || ' ' || s.media_url FROM student_locations s JOIN accounts a ON a.account_key = s.unique_key ORDER BY 1"
        )
        #expect(pins == "alice@class.test https://alice.example/2\nbob@class.test https://bob.example/1")
        // One more post, announced by each instance in a round that begins after it, so after every
        // round that could still have repeated one (its own line is left out).
        let marker = "https://bob.example/2"
        #expect(await second.dm("!post Tokyo, Japan | \(marker)", as: "bob").text.hasPrefix("Your pin is updated"))
        try await first.waitForAnnouncement(of: marker)
        try await second.waitForAnnouncement(of: marker)
        let expected = ["https://alice.example/1", "https://alice.example/2", "https://bob.example/1"]
        let firstLinks = first.announcedLinks.filter { $0 != marker }
        let secondLinks = second.announcedLinks.filter { $0 != marker }
        #expect(firstLinks.sorted() == expected, "#a: \(first.announcedLinks)")
        #expect(secondLinks.sorted() == expected, "#b: \(second.announcedLinks)")
    }
}
