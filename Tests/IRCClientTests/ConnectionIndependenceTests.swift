import BotTesting
import NIOCore
import NIOPosix
import IRCProtocol
import Testing

@testable import IRCClient

/// The connection does not wait for whoever consumes its events: while the consumer computes, or
/// takes no events at all, the client goes on reading and answers the server's PINGs. Texts queued
/// together leave in order, in one TLS record; refusals and shutdowns end cleanly.
@Suite("Connection independence", .timeLimit(.minutes(1)))
struct ConnectionIndependenceTests {
    static func registeringServer() async throws -> ScriptedIRCServer {
        try await ScriptedIRCServer.start { message, _ in
            if message.command == "CAP", message.parameters.first == "LS" { return [":srv CAP * LS :"] }
            if message.command == "CAP", message.parameters.first == "END" { return [":srv 001 bot :Welcome"] }
            return []
        }
    }

    @Test(.tags(.runsAlone)) func aConsumerBusyComputingDoesNotStopTheClientAnsweringPings() async throws {
        let server = try await Self.registeringServer()
        let client = IRCClient(
            configuration: testConfiguration(port: server.port, tls: ScriptedServerTests.plaintext, nick: "bot"))
        let runner = Task { await client.run() }
        // On "compute" the consumer keeps its thread busy (as a slow command handler would), has the
        // server send a PING, and stays busy until the server has the PONG, or for at most 10 s.
        let consumer = Task { () -> Bool in
            for await event in client.events {
                if case .registered = event { server.broadcast(":ada!a@h PRIVMSG bot :compute") }
                guard case .privmsg(let message) = event, message.text == "compute" else { continue }
                server.broadcast("PING :while-busy")
                let deadline = ContinuousClock.now + .seconds(10)
                while ContinuousClock.now < deadline {
                    if server.receivedLines().contains("PONG while-busy") { return true }
                }
                return false
            }
            return false
        }
        #expect(await consumer.value, "the PING was answered while the consumer computed")
        await client.shutdown()
        await runner.value
        await server.stop()
    }

    @Test func aConsumerThatTakesNoEventsDoesNotHoldTheConnectionBack() async throws {
        let server = try await Self.registeringServer()
        var configuration = testConfiguration(port: server.port, tls: ScriptedServerTests.plaintext, nick: "bot")
        configuration.eventBufferSize = 16
        let client = IRCClient(configuration: configuration)
        let runner = Task { await client.run() }
        _ = try await server.waitForLine(timeout: .seconds(10)) { $0.command == "CAP" && $0.parameters.first == "END" }
        for index in 1...500 { server.broadcast(":ada!a@h PRIVMSG bot :line \(index)") }
        server.broadcast("PING :after-the-lines")
        _ = try await server.waitForLine(timeout: .seconds(10)) {
            $0.command == "PONG" && $0.parameters.last == "after-the-lines"
        }
        // Only the newest events waited, in order.
        await client.shutdown()
        await runner.value
        var texts: [String] = []
        for await event in client.events {
            if case .privmsg(let message) = event { texts.append(message.text) }
        }
        #expect(texts.count < 16)
        #expect(texts.last == "line 500")
        let numbers = texts.compactMap { Int($0.dropFirst(5)) }
        #expect(numbers == numbers.sorted())
        await server.stop()
    }

    @Test func textsQueuedTogetherLeaveInOrderAndSplit() async throws {
        let server = try await Self.registeringServer()
        var configuration = testConfiguration(port: server.port, tls: ScriptedServerTests.plaintext, nick: "bot")
        configuration.flood = .init(burst: 4, linesPerSecond: 0)  // all five at once
        let recorder = await EventRecorder.start(configuration)
        let client = recorder.client
        try await recorder.waitFor("registered") { if case .registered = $0 { true } else { false } }
        let long = String(repeating: "word ", count: 120)
        await client.send(texts: [
            OutgoingText(.privmsg, to: "#class", text: "first\r\nsecond", fairnessKey: "ada"),
            OutgoingText(.notice, to: "ada", text: "third"),
            OutgoingText(.privmsg, to: "#class", text: long, maxLines: 2),
        ])
        let said = { @Sendable in server.receivedLines().filter { $0.hasPrefix("PRIVMSG") || $0.hasPrefix("NOTICE") } }
        await server.waitUntil { said().count >= 5 }
        let sent = said()
        #expect(sent.count == 5)
        // In order per asker; the send queue takes turns between askers ("ada" and "#class").
        #expect(
            sent.filter { !$0.contains("word") } == [
                "PRIVMSG #class first", "PRIVMSG #class second", "NOTICE ada third",
            ])
        let words = sent.filter { $0.contains("word") }
        #expect(words.count == 2)
        #expect(words.allSatisfy { $0.hasPrefix("PRIVMSG #class :word") && $0.utf8.count <= 512 })
        #expect(await client.waitUntilQueuedLinesAreWritten())
        await recorder.stop()
        await server.stop()
    }

    @Test func linesTheFloodGateLetsThroughTogetherLeaveInOneTLSRecord() async throws {
        // One record per reply, not one per line: a server reading record by record (InspIRCd)
        // would otherwise relay the lines in separate segments, and Nagle would hold the later ones
        // until the client acknowledges the first (≈ 40 ms with delayed ACK).
        let folder = try TemporaryDirectory(prefix: "one-record")
        let certificate = try await TestCertificate.make(in: folder.path)
        let server = try await ScriptedIRCServer.start(certificate: certificate) { message, _ in
            if message.command == "CAP", message.parameters.first == "LS" { return [":srv CAP * LS :"] }
            if message.command == "CAP", message.parameters.first == "END" { return [":srv 001 bot :Welcome"] }
            return []
        }
        var configuration = testConfiguration(
            port: server.port, tls: .init(caFile: certificate.certificatePath, trustSystemRoots: false), nick: "bot")
        configuration.flood = .init(burst: 4, linesPerSecond: 0)
        let recorder = await EventRecorder.start(configuration)
        let client = recorder.client
        try await recorder.waitFor("registered") { if case .registered = $0 { true } else { false } }
        #expect(await client.waitUntilQueuedLinesAreWritten())
        // The client answers a PING after everything it wrote before: once the PONG is here, the
        // registration traffic has arrived.
        server.broadcast("PING :registration-over")
        _ = try await server.waitForLine { $0.command == "PONG" && $0.parameters.last == "registration-over" }
        let recordsBefore = server.tlsRecordCount()
        #expect(recordsBefore > 0)
        await client.send(texts: [
            OutgoingText(.privmsg, to: "#class", text: "Nearest to Lyon:"),
            OutgoingText(.privmsg, to: "#class", text: "Ada — 2 km"),
            OutgoingText(.privmsg, to: "#class", text: "Grace — 5 km"),
        ])
        await server.waitUntil { server.receivedLines().filter { $0.hasPrefix("PRIVMSG") }.count >= 3 }
        let sent = server.receivedLines().filter { $0.hasPrefix("PRIVMSG") }
        #expect(sent.count == 3)
        #expect(server.tlsRecordCount() == recordsBefore + 1)
        await recorder.stop()
        await server.stop()
    }

    /// A server that refuses a connection at once ("ERROR" as soon as it accepts): its reason is the
    /// one the client reports (the line can arrive before the client has started reading).
    @Test func aServerThatRefusesAtOnceIsReportedWithItsReason() async throws {
        let server = try await RefuseAtOnce.startServer()
        let configuration = testConfiguration(
            port: server.localAddress?.port ?? 0, tls: ScriptedServerTests.plaintext, nick: "bot")
        let recorder = await EventRecorder.start(configuration)
        let failure = try await recorder.waitFor("the refusal") { $0.connectionFailureReason != nil }
        #expect(failure.connectionFailureReason?.contains("too many connections from your host") == true)
        await recorder.stop()
        try await server.close()
    }

    /// `shutdown` called from another task must return even when `run()` ends between its check and
    /// its wait. Each round stops the client just as a refused connection
    /// ends and the reconnect wait begins (a hang here ends at the suite's time limit).
    /// A shutdown gives the lines still queued behind the flood gate the drain time to go out and
    /// sends QUIT once the last of them is written; with a drain too short it sends QUIT when the
    /// time is up, the rest unsent.
    @Test func aShutdownSendsQuitOnceTheQueuedLinesAreWrittenOrTheDrainTimeIsUp() async throws {
        let server = try await Self.registeringServer()
        for (connection, drain) in [(1, Duration.seconds(20)), (2, .milliseconds(300))] {
            var configuration = testConfiguration(port: server.port, tls: ScriptedServerTests.plaintext, nick: "bot")
            configuration.flood = .init(burst: 1, linesPerSecond: 4)
            configuration.shutdownDrainTimeout = drain
            let recorder = await EventRecorder.start(configuration)
            try await recorder.waitFor("registered") { if case .registered = $0 { true } else { false } }
            for index in 1...6 { await recorder.client.sendPrivmsg(to: "#class", text: "line \(index)") }
            let started = ContinuousClock.now
            await recorder.stop()
            let took = started.duration(to: .now)
            let lines = server.receivedLines(connection: connection)
            let sent = lines.filter { $0.hasPrefix("PRIVMSG") }
            let quit = try #require(lines.firstIndex { $0.hasPrefix("QUIT") })
            #expect(lines.lastIndex { $0.hasPrefix("PRIVMSG") }.map { $0 < quit } ?? true)
            if connection == 1 {
                #expect(sent.count == 6, "every queued line went out before QUIT")
                // About 1.5 s of flood pacing and the 1 s wait for the server to close: the drain ended
                // with the last line's write receipt, not at its 20 s limit.
                #expect(took < .seconds(15))
            } else {
                #expect(sent.count < 6, "the drain ended before the queue did")
            }
        }
        await server.stop()
    }

    @Test func shutdownReturnsWhenRunEndsAtTheSameMoment() async throws {
        let server = try await RefuseAtOnce.startServer()
        let configuration = testConfiguration(
            port: server.localAddress?.port ?? 0, tls: ScriptedServerTests.plaintext, nick: "bot")
        for _ in 1...30 {
            let recorder = await EventRecorder.start(configuration)
            try await recorder.waitFor("the refusal") { $0.connectionFailureReason != nil }
            await recorder.stop()
            #expect(await recorder.runReturned)
        }
        try await server.close()
    }
}

/// Sends ERROR and closes as soon as a client connects.
private final class RefuseAtOnce: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    /// A server on 127.0.0.1 (any free port) that refuses every connection this way.
    static func startServer() async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RefuseAtOnce())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    func channelActive(context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: 64)
        buffer.writeString("ERROR :Closing link: too many connections from your host\r\n")
        context.writeAndFlush(NIOAny(buffer), promise: nil)
        context.close(promise: nil)
    }
}
