import BotTesting
import IRCProtocol
import Testing

@testable import IRCClient

/// The client on a network that plays Solanum's 2026 bot rules and the newer IRCv3 drafts
/// (``SolanumLikeNetwork``): bot mode set before the first JOIN and kept, a bot-only channel joined
/// as soon as the bot is invited, metadata published within the server's limits, and members known
/// from WHO where `no-implicit-names` leaves out the NAMES burst.
@Suite("Network rules of 2026", .timeLimit(.minutes(1)))
struct NetworkRulesTests {
    static let members: [String: [SolanumLikeNetwork.Member]] = [
        "#class": [.init(nick: "ada", user: "ada", host: "uni.example")],
        "#staff": [
            .init(nick: "ada", user: "ada", host: "uni.example"),
            .init(nick: "teacher", user: "t", host: "teacher.example"),
        ],
    ]

    /// The client in `channels` on `network`, with the metadata a bot publishes.
    static func start(
        _ network: SolanumLikeNetwork, channels: [String], log: LogRecord = LogRecord()
    ) async throws -> (ScriptedIRCServer, EventRecorder) {
        let server = try await ScriptedIRCServer.start(respond: network.responder)
        var configuration = testConfiguration(
            port: server.port, tls: FaultInjectionTests.plaintext, nick: "bot", channels: channels)
        configuration.metadata = [
            .init(key: "bot", value: "OnTheMapBot 1.0, Swift"), .init(key: "homepage", value: "https://map.example"),
        ]
        return (server, await EventRecorder.start(configuration, logger: log.logger()))
    }

    /// Solanum keeps `+B` only while the client is in no channel: the client sets it at the end of
    /// the welcome burst, before its first JOIN, reads it back, and the server kept it.
    @Test func botModeIsSetBeforeTheFirstJoinAndKept() async throws {
        let network = SolanumLikeNetwork(botNick: "bot", members: Self.members)
        let (server, recorder) = try await Self.start(network, channels: ["#class"])
        try await recorder.waitFor("join", timeout: FaultInjectionTests.patience) { $0.joinedChannel == "#class" }
        let client = recorder.client
        try await recorder.waitUntil("the bot mode read back") { await client.botMode?.answered == true }
        let lines = server.receivedLines()
        let modeIndex = try #require(lines.firstIndex(of: "MODE bot +B"), "\(lines)")
        let joinIndex = try #require(lines.firstIndex(of: "JOIN #class"), "\(lines)")
        #expect(modeIndex < joinIndex)
        #expect(network.botModeIsSet)
        #expect(await recorder.client.botMode == BotMode(mode: "B", isSet: true, answered: true))
        await recorder.stop()
        await server.stop()
    }

    /// A channel with `+B` refuses a bot that was not invited (473); the invitation of a channel
    /// operator lets it in at once, long before the two-minute retry. An invitation to a channel the
    /// bot was not configured for is not followed.
    @Test func aBotOnlyChannelIsJoinedAsSoonAsTheBotIsInvited() async throws {
        let network = SolanumLikeNetwork(botNick: "bot", botOnlyChannels: ["#class"], members: Self.members)
        let (server, recorder) = try await Self.start(network, channels: ["#class", "#staff"])
        let refusal = try await recorder.waitFor("the refusal", timeout: FaultInjectionTests.patience) {
            if case .joinRefused("#class", "473", _) = $0 { true } else { false }
        }
        guard case .joinRefused(_, _, let reason) = refusal else { return }
        #expect(reason.contains("bots must be invited"))
        server.broadcast(network.invite("bot", to: "#elsewhere"))
        server.broadcast(network.invite("bot", to: "#class"))
        try await recorder.waitFor("join after the invitation", timeout: .seconds(10)) { $0.joinedChannel == "#class" }
        #expect(!server.receivedLines().contains("JOIN #elsewhere"))
        #expect(network.joinedChannels == ["#class", "#staff"])
        await recorder.stop()
        await server.stop()
    }

    /// With `draft/metadata-2` (and `batch`, which it needs) the client publishes `bot` and, where
    /// the server's `max-keys` allows a second key, `homepage`; a value over `max-value-bytes` is left
    /// out, and a key the server refuses is logged as information, never as a fault.
    @Test func metadataIsPublishedWithinTheServersLimits() async throws {
        let roomy = SolanumLikeNetwork(
            botNick: "bot", capabilities: "batch draft/metadata-2=max-keys=5,max-value-bytes=100",
            refusedMetadataKeys: ["homepage"])
        let log = LogRecord()
        let (server, recorder) = try await Self.start(roomy, channels: ["#class"], log: log)
        _ = try await server.waitForLine(timeout: .seconds(20)) {
            $0.command == "METADATA" && $0.parameters.dropFirst(2).first == "homepage"
        }
        #expect(await log.waitFor("KEY_NO_PERMISSION"), "\(log.messages)")
        #expect(roomy.enabledCapabilities.isSuperset(of: ["batch", "draft/metadata-2"]))
        #expect(roomy.metadata == ["bot": "OnTheMapBot 1.0, Swift"])
        #expect(log.messages.filter { $0.hasPrefix("warning") && $0.contains("METADATA") }.isEmpty)
        #expect(log.messages.contains { $0.hasPrefix("info") && $0.contains("KEY_NO_PERMISSION") })
        await recorder.stop()
        await server.stop()

        let tight = SolanumLikeNetwork(botNick: "bot", capabilities: "batch draft/metadata-2=max-keys=1")
        let (tightServer, tightRecorder) = try await Self.start(tight, channels: ["#class"])
        _ = try await tightServer.waitForLine(timeout: .seconds(20)) { $0.command == "METADATA" }
        try await tightRecorder.waitFor("join") { $0.joinedChannel == "#class" }
        await tightRecorder.stop()
        await tightServer.stop()
        #expect(
            tightServer.receivedLines().filter { $0.hasPrefix("METADATA") } == [
                "METADATA * SET bot :OnTheMapBot 1.0, Swift"
            ])

        // Without batch the draft must not be asked for.
        let batchless = SolanumLikeNetwork(botNick: "bot", capabilities: "draft/metadata-2")
        let (batchlessServer, batchlessRecorder) = try await Self.start(batchless, channels: ["#class"])
        try await batchlessRecorder.waitFor("join") { $0.joinedChannel == "#class" }
        await batchlessRecorder.stop()
        await batchlessServer.stop()
        #expect(batchless.enabledCapabilities.isEmpty)
        #expect(!batchlessServer.receivedLines().contains { $0.hasPrefix("METADATA") })
    }

    /// With `no-implicit-names` a JOIN brings no NAMES: the members, with their user and host, come
    /// from the WHO the client sends after its JOIN.
    @Test func withoutImplicitNamesTheMembersComeFromWho() async throws {
        let network = SolanumLikeNetwork(
            botNick: "bot", capabilities: "no-implicit-names multi-prefix", members: Self.members)
        let (server, recorder) = try await Self.start(network, channels: ["#staff"])
        try await recorder.waitFor("join", timeout: FaultInjectionTests.patience) { $0.joinedChannel == "#staff" }
        let client = recorder.client
        try await recorder.waitUntil("the members from WHO") { await client.members(ofChannel: "#staff")?.count == 3 }
        #expect(network.enabledCapabilities.contains("no-implicit-names"))
        #expect(!server.receivedLines().contains { $0.hasPrefix("NAMES") })
        let teacher = await recorder.client.identity(ofNick: "teacher")
        #expect(teacher?.user == "t" && teacher?.host == "teacher.example")
        await recorder.stop()
        await server.stop()
    }
}
