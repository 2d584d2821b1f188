import BotTesting
import NIOCore
import NIOPosix
import IRCProtocol
import Testing

@testable import IRCClient

/// The client runs on one event loop, so a line read from the socket reaches it, and its answer
/// goes out, without a thread switch; several texts queued together leave in order, in one TLS
/// record.
@Suite("Event-loop affinity", .timeLimit(.minutes(1)))
struct EventLoopAffinityTests {
    static func registeringServer() async throws -> ScriptedIRCServer {
        try await ScriptedIRCServer.start { message, _ in
            if message.command == "CAP", message.parameters.first == "LS" { return [":srv CAP * LS :"] }
            if message.command == "CAP", message.parameters.first == "END" { return [":srv 001 bot :Welcome"] }
            return []
        }
    }

    @Test func theActorAndTasksPreferringItsExecutorRunOnTheClientsEventLoop() async throws {
        let server = try await Self.registeringServer()
        let recorder = await EventRecorder.start(
            testConfiguration(port: server.port, tls: ScriptedServerTests.plaintext, nick: "bot"))
        let client = recorder.client
        try await recorder.waitFor("registered") { if case .registered = $0 { true } else { false } }
        #expect(await client.isOnItsEventLoop())
        let loop = client.taskExecutor.eventLoop
        let onLoop = await Task(executorPreference: client.taskExecutor) { loop.inEventLoop }.value
        #expect(onLoop)
        let elsewhere = await Task { loop.inEventLoop }.value
        #expect(!elsewhere)
        await recorder.stop()
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
        var sent: [String] = []
        for _ in 0..<100 {
            sent = server.receivedLines().filter { $0.hasPrefix("PRIVMSG") || $0.hasPrefix("NOTICE") }
            if sent.count >= 5 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
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
        let certificate = try TestCertificate.make(in: folder.path)
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
        try await Task.sleep(for: .milliseconds(100))  // registration traffic has arrived
        let recordsBefore = server.tlsRecordCount()
        #expect(recordsBefore > 0)
        await client.send(texts: [
            OutgoingText(.privmsg, to: "#class", text: "Nearest to Lyon:"),
            OutgoingText(.privmsg, to: "#class", text: "Ada — 2 km"),
            OutgoingText(.privmsg, to: "#class", text: "Grace — 5 km"),
        ])
        var sent: [String] = []
        for _ in 0..<100 {
            sent = server.receivedLines().filter { $0.hasPrefix("PRIVMSG") }
            if sent.count >= 3 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(sent.count == 3)
        #expect(server.tlsRecordCount() == recordsBefore + 1)
        await recorder.stop()
        await server.stop()
    }

    /// A server that refuses a connection at once ("ERROR" as soon as it accepts): its reason is the
    /// one the client reports. (Such a line can be read before the client actor has taken up the
    /// connection; it is then kept until it has. This test does not force that ordering.)
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

    /// `shutdown` called from a task that does not prefer the client's executor (a test, the bot's
    /// service) switches even to re-enter the client, so `run()` can end between its check and its
    /// wait: it must return all the same. Each round stops the client just as a refused connection
    /// ends and the reconnect wait begins (a hang here ends at the suite's time limit).
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
