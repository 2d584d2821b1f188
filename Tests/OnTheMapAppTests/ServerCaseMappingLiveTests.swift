import BotTesting
import Foundation
import IRCProtocol
import Testing

/// The built `onthemap-bot` follows the casemapping the server names in its ISUPPORT: on a server
/// that says `CASEMAPPING=ascii`, `[` and `{` are different letters, so the owner `Boss[1]` is not
/// `boss{1}` (under the RFC 1459 default they would be the same nick) while `BOSS[1]` still is.
@Suite(.tags(.startsProcesses), .timeLimit(.minutes(2)))
struct ServerCaseMappingLiveTests {
    @Test func ownersAreMatchedTheWayTheServerComparesNicks() async throws {
        let network = SolanumLikeNetwork(botNick: "MapBot", capabilities: "multi-prefix", caseMapping: "ascii")
        let server = try await ScriptedIRCServer.start(respond: network.responder)
        let folder = try TemporaryDirectory(prefix: "server-casemapping")
        let bot = try BotFaultLiveTests.startBot(
            config: """
                irc:
                  server: 127.0.0.1
                  port: \(server.port)
                  tls: false
                  nick: MapBot
                  channels: ["#class"]
                  owners: ["Boss[1]!b@boss.example"]
                  flood: {enabled: false}
                service:
                  database: \(folder.file("class.sqlite"))
                """, in: folder)
        do {
            // The JOIN follows the end of the welcome burst, after the 005.
            _ = try await server.waitForLine { $0.command == "JOIN" }
            let stranger = try await answer(
                to: ":boss{1}!b@boss.example PRIVMSG MapBot :!status", for: "boss{1}", from: server)
            #expect(stranger.contains("!status is for the bot's owners only."), "\(stranger)")
            let owner = try await answer(
                to: ":BOSS[1]!b@boss.example PRIVMSG MapBot :!status", for: "BOSS[1]", from: server)
            #expect(owner.contains { $0.contains("logged in;") }, "\(owner)")
            #expect(!owner.contains { $0.contains("owners only") }, "\(owner)")
        } catch {
            try await bot.stop()
            await server.stop()
            throw error
        }
        try await bot.stop()
        await server.stop()
    }

    /// Sends `line` and returns the texts the bot sends `nick` after it, once one of them ends
    /// `!status` (its counts line) or refuses it.
    private func answer(to line: String, for nick: String, from server: ScriptedIRCServer) async throws -> [String] {
        let before = server.receivedLines().count
        server.broadcast(line)
        let texts: @Sendable () -> [String] = {
            server.receivedLines().dropFirst(before).compactMap { sent in
                guard let message = try? IRCMessage(parsing: sent, maxLineBytes: 16_384),
                    message.command == "NOTICE" || message.command == "PRIVMSG", message.parameters.first == nick
                else { return nil }
                return message.parameters.last
            }
        }
        let answered = await server.waitUntil(timeout: .seconds(20)) {
            texts().contains { $0.contains("logged in;") || $0.contains("owners only") }
        }
        guard answered else { throw IRCTestSupportError.timeout("an answer to \(nick)") }
        return texts()
    }
}
