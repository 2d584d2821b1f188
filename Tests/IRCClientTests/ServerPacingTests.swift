import BotTesting
import Foundation
import IRCProtocol
import Testing

@testable import IRCClient

/// A server that advertises `SAFERATE` promises to slow a fast client rather than disconnect it:
/// the flood gate steps aside (lines go out at once where the gate alone would take half a minute),
/// the log says so once, and the client reports who paces. Without the token the gate paces as
/// configured. Both measure the lines' arrival times at the server, so a loaded machine that wakes
/// the test late changes nothing.
@Suite("Server pacing (SAFERATE)", .timeLimit(.minutes(3)))
struct ServerPacingTests {
    /// A server that registers the client with the ISUPPORT `tokens`, echoes its JOINs and answers
    /// its keepalive PINGs (a slow gate may leave the client waiting for its own lines longer than
    /// its keepalive's silence).
    static func registering(tokens: String) -> ScriptedIRCServer.Responder {
        { message, _ in
            switch (message.command, message.parameters.first ?? "") {
            case ("CAP", "LS"): return [":srv CAP * LS :"]
            case ("CAP", "END"):
                return [
                    ":srv 001 bot :Welcome", ":srv 005 bot \(tokens) :are supported by this server",
                    ":srv 376 bot :End of MOTD",
                ]
            case ("JOIN", let channel): return [":bot!otm@127.0.0.1 JOIN \(channel)"]
            case ("PING", let token): return [":srv PONG srv :\(token)"]
            default: return []
            }
        }
    }

    /// One line at once, then one every 2 seconds.
    static let slowGate = IRCClientConfiguration.Flood(burst: 1, linesPerSecond: 0.5)

    @Test func aServerThatPromisesSafeRatePacesTheLinesItself() async throws {
        let log = LogRecord()
        let server = try await ScriptedIRCServer.start(respond: Self.registering(tokens: "SAFERATE NETWORK=Test"))
        var configuration = testConfiguration(
            port: server.port, tls: FaultInjectionTests.plaintext, nick: "bot", channels: ["#room"])
        configuration.flood = Self.slowGate
        let recorder = await EventRecorder.start(configuration, logger: log.logger())
        try await recorder.waitFor("join", timeout: FaultInjectionTests.patience) { $0.joinedChannel == "#room" }
        #expect(await recorder.client.pacing == .byServer)
        for index in 1...20 { await recorder.client.sendPrivmsg(to: "#room", text: "line \(index)") }
        _ = try await server.waitForLine(timeout: .seconds(90)) {
            $0.command == "PRIVMSG" && $0.parameters.last == "line 20"
        }
        // The gate alone would hold the twentieth line 38 s after the first.
        let lines = server.receivedLines()
        let times = server.arrivalTimes()
        let first = try #require(lines.firstIndex(of: "PRIVMSG #room :line 1"), "\(lines)")
        let last = try #require(lines.firstIndex(of: "PRIVMSG #room :line 20"), "\(lines)")
        #expect(times[last] - times[first] < .seconds(19))
        #expect(log.messages.filter { $0.contains("promises SAFERATE") }.count == 1)
        await recorder.stop()
        await server.stop()
    }

    @Test func withoutSafeRateTheFloodGatePaces() async throws {
        let server = try await ScriptedIRCServer.start(respond: Self.registering(tokens: "NETWORK=Test"))
        var configuration = testConfiguration(
            port: server.port, tls: FaultInjectionTests.plaintext, nick: "bot", channels: ["#room"])
        configuration.flood = Self.slowGate
        let recorder = await EventRecorder.start(configuration, logger: LogRecord().logger())
        try await recorder.waitFor("join", timeout: FaultInjectionTests.patience) { $0.joinedChannel == "#room" }
        #expect(await recorder.client.pacing == .byFloodGate(burst: 1, linesPerSecond: 0.5))
        for index in 1...2 { await recorder.client.sendPrivmsg(to: "#room", text: "line \(index)") }
        _ = try await server.waitForLine(timeout: .seconds(90)) {
            $0.command == "PRIVMSG" && $0.parameters.last == "line 2"
        }
        // The gate holds the second line back about 2 s (a loaded machine only makes it later): the
        // two lines' arrival times at the server, not when this test was woken for each.
        let lines = server.receivedLines()
        let times = server.arrivalTimes()
        let first = try #require(lines.firstIndex(of: "PRIVMSG #room :line 1"), "\(lines)")
        let second = try #require(lines.firstIndex(of: "PRIVMSG #room :line 2"), "\(lines)")
        #expect(times[second] - times[first] > .seconds(1.5))
        await recorder.stop()
        await server.stop()
    }
}
