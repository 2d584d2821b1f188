import Foundation
import IRCProtocol
import NIOCore
import NIOPosix

/// A scripted plaintext IRC server on 127.0.0.1 for protocol tests a real ircd cannot play (SASL without
/// services, odd CAP replies, errors). For every line a client sends, `respond` returns the lines to send
/// back (without CRLF). Every received line is recorded, per connection, for assertions.
public final class ScriptedIRCServer: Sendable {
    /// Returns the reply lines for one received message; `connection` counts connections from 1.
    public typealias Responder = @Sendable (_ message: IRCMessage, _ connection: Int) -> [String]

    public let host = "127.0.0.1"
    public let port: Int
    private let serverChannel: any Channel
    private let state: ScriptedServerState

    /// Starts listening on a free port.
    public static func start(respond: @escaping Responder) async throws -> ScriptedIRCServer {
        let state = ScriptedServerState()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let number = state.newConnection(channel)
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(TestLineDecoder()))
                    try channel.pipeline.syncOperations.addHandler(
                        ScriptedConnectionHandler(connection: number, state: state, respond: respond)
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return ScriptedIRCServer(port: channel.localAddress?.port ?? 0, serverChannel: channel, state: state)
    }

    private init(port: Int, serverChannel: any Channel, state: ScriptedServerState) {
        self.port = port
        self.serverChannel = serverChannel
        self.state = state
    }

    /// Lines received on `connection` (1-based), in order.
    public func receivedLines(connection: Int = 1) -> [String] { state.lines(connection: connection) }

    /// Number of connections accepted so far.
    public var connectionCount: Int { state.connectionCount }

    /// Waits until a line matching `predicate` arrived on any connection, and returns it.
    public func waitForLine(
        timeout: Duration = .seconds(5),
        where predicate: @Sendable (IRCMessage) -> Bool
    ) async throws -> IRCMessage {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            for line in state.allLines() {
                if let message = try? IRCMessage(parsing: line, maxLineBytes: 16_384), predicate(message) {
                    return message
                }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw IRCTestSupportError.timeout("scripted server waiting for a line; got:\n\(state.allLines())")
    }

    /// Sends a raw line to every open connection.
    public func broadcast(_ line: String) {
        state.broadcast(line)
    }

    /// Closes every client connection (the listener stays open).
    public func dropConnections() {
        state.closeAll()
    }

    /// Stops listening and closes every connection.
    public func stop() async {
        state.closeAll()
        try? await serverChannel.close()
    }
}

final class ScriptedServerState: @unchecked Sendable {
    private let lock = NSLock()
    private var channels: [Int: any Channel] = [:]
    private var received: [Int: [String]] = [:]
    private var count = 0

    func newConnection(_ channel: any Channel) -> Int {
        lock.withLock {
            count += 1
            channels[count] = channel
            return count
        }
    }

    var connectionCount: Int { lock.withLock { count } }

    func record(_ line: String, connection: Int) {
        lock.withLock { received[connection, default: []].append(line) }
    }

    func lines(connection: Int) -> [String] { lock.withLock { received[connection] ?? [] } }

    func allLines() -> [String] {
        lock.withLock { received.keys.sorted().flatMap { received[$0] ?? [] } }
    }

    func broadcast(_ line: String) {
        for channel in lock.withLock({ Array(channels.values) }) {
            var buffer = channel.allocator.buffer(capacity: line.utf8.count + 2)
            buffer.writeString(line + "\r\n")
            channel.writeAndFlush(buffer, promise: nil)
        }
    }

    func closeAll() {
        for channel in lock.withLock({ Array(channels.values) }) { channel.close(promise: nil) }
    }
}

final class ScriptedConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = String
    typealias OutboundOut = ByteBuffer

    let connection: Int
    let state: ScriptedServerState
    let respond: ScriptedIRCServer.Responder

    init(connection: Int, state: ScriptedServerState, respond: @escaping ScriptedIRCServer.Responder) {
        self.connection = connection
        self.state = state
        self.respond = respond
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        state.record(line, connection: connection)
        guard let message = try? IRCMessage(parsing: line, maxLineBytes: 16_384) else { return }
        let replies = respond(message, connection)
        guard !replies.isEmpty else { return }
        var buffer = context.channel.allocator.buffer(capacity: 256)
        for reply in replies { buffer.writeString(reply + "\r\n") }
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
