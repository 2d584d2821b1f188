import BotTesting
import Foundation
import IRCProtocol
import Testing

/// The built `onthemap-bot`, started with a config as an instructor writes it, on a network that
/// plays Solanum's 2026 rules (``SolanumLikeNetwork``): it sets bot mode before its first JOIN and
/// the server keeps it; the class channel admits bots only when invited, and the owner the bot sees
/// in the staff channel hears one sentence saying so (not one per retry), which `!status` repeats
/// until the invitation lets the bot in; the bot publishes what it is with `draft/metadata-2`.
@Suite(.tags(.startsProcesses), .timeLimit(.minutes(2)))
struct BotOnlyChannelTests {
    @Test func theOwnerIsToldToInviteTheBotAndTheInvitationLetsItIn() async throws {
        let network = SolanumLikeNetwork(
            botNick: "MapBot",
            capabilities: "message-tags batch userhost-in-names draft/metadata-2=max-keys=4",
            botOnlyChannels: ["#study"],
            members: ["#staff": [.init(nick: "teacher", user: "t", host: "teacher.example")]])
        let server = try await ScriptedIRCServer.start(respond: network.responder)
        let folder = try TemporaryDirectory(prefix: "bot-only-channel")
        let bot = try BotFaultLiveTests.startBot(
            config: """
                irc:
                  server: 127.0.0.1
                  port: \(server.port)
                  tls: false
                  nick: MapBot
                  contact: teacher@uni.example
                  channels: ["#staff", "#study"]
                  announce_to: ["#study"]
                  owners: ["teacher!t@teacher.example"]
                  flood: {enabled: false}
                service:
                  database: \(folder.file("class.sqlite"))
                """, in: folder)
        do {
            let alert = try await server.waitForLine(timeout: .seconds(30)) {
                $0.command == "NOTICE" && $0.parameters.first == "teacher"
            }
            #expect(
                alert.parameters.last
                    == "#study admits bots only when invited (+B): a channel operator there can let me in with /invite MapBot #study (I join as soon as I am invited)."
            )
            let lines = server.receivedLines()
            let modeIndex = try #require(lines.firstIndex(of: "MODE MapBot +B"), "\(lines)")
            let joinIndex = try #require(lines.firstIndex { $0.hasPrefix("JOIN") }, "\(lines)")
            #expect(modeIndex < joinIndex)
            #expect(network.botModeIsSet)
            #expect(network.metadata["bot"]?.hasPrefix("OnTheMapBot ") == true)
            #expect(network.metadata["homepage"] == "teacher@uni.example")

            // `!status` says the bot mode was kept and repeats the standing sentence.
            let status = try await statusLines(from: server)
            #expect(status.contains { $0.contains("as MapBot (bot mode +B, kept by the server)") }, "\(status)")
            #expect(status.contains { $0.contains("#study admits bots only when invited") }, "\(status)")

            server.broadcast(network.invite("MapBot", to: "#study"))
            try await waitUntil(on: server) { network.joinedChannels.contains("#study") }
            let later = try await statusLines(from: server)
            #expect(!later.contains { $0.contains("admits bots only") }, "\(later)")
            #expect(later.contains { $0.contains("channels: #staff, #study") }, "\(later)")
            // One sentence for the owner, whatever the retries.
            #expect(server.receivedLines().filter { $0.hasPrefix("NOTICE teacher :#study") }.count == 1)
        } catch {
            try await bot.stop()
            await server.stop()
            throw error
        }
        try await bot.stop()
        await server.stop()
    }

    /// The teacher's `!status`: the bot's lines to them, up to the counts line that ends it.
    private func statusLines(from server: ScriptedIRCServer) async throws -> [String] {
        let before = server.receivedLines().count
        server.broadcast(":teacher!t@teacher.example PRIVMSG MapBot :!status")
        let isLast: @Sendable (String) -> Bool = { $0.contains(" :") && $0.contains("logged in;") }
        try await waitUntil(on: server) { server.receivedLines().dropFirst(before).contains(where: isLast) }
        return server.receivedLines().dropFirst(before).filter {
            $0.hasPrefix("NOTICE teacher") || $0.hasPrefix("PRIVMSG teacher")
        }
    }

    /// Waits until `condition` (about what `server` received) holds, looked at as each line arrives.
    private func waitUntil(on server: ScriptedIRCServer, _ condition: @escaping @Sendable () -> Bool) async throws {
        guard await server.waitUntil(timeout: .seconds(30), condition) else {
            throw IRCTestSupportError.timeout("condition")
        }
    }
}
