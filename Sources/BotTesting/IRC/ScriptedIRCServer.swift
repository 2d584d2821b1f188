import Foundation
import IRCProtocol
import NIOCore
import NIOPosix
import NIOSSL

/// A scripted IRC server on 127.0.0.1 (plaintext, or TLS with a given certificate) for protocol and fault
/// tests a real ircd cannot play (SASL without services, odd CAP replies, errors, hang-ups, garbage). For
/// every line a client sends, `respond` returns the lines to send back (without CRLF); a reply equal to
/// ``hangUp`` closes the connection after the lines before it. Every received line is recorded, per
/// connection, for assertions, and so are the first raw bytes of each connection (before TLS).
public final class ScriptedIRCServer: Sendable {
    /// A reply that makes the server close the connection (after sending the replies before it).
    public static let hangUp = "\u{0}hang up"

    /// Returns the reply lines for one received message; `connection` counts connections from 1.
    public typealias Responder = @Sendable (_ message: IRCMessage, _ connection: Int) -> [String]

    public let host = "127.0.0.1"
    public let port: Int
    private let serverChannel: any Channel
    private let state: ScriptedServerState

    /// Starts listening on `port` (a free one when 0), speaking TLS with `certificate` when given.
    public static func start(
        port: Int = 0,
        certificate: TestCertificate? = nil,
        respond: @escaping Responder
    ) async throws -> ScriptedIRCServer {
        let state = ScriptedServerState(respond: respond)
        var tlsContext: NIOSSLContext?
        if let certificate {
            let configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(certificate.certificatePath).map {
                    .certificate($0)
                },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: certificate.keyPath, format: .pem))
            )
            tlsContext = try NIOSSLContext(configuration: configuration)
        }
        let context = tlsContext
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let number = state.newConnection(channel)
                    if state.isDown {
                        channel.close(promise: nil)
                        return
                    }
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(FirstBytesRecorder(connection: number, state: state))
                    if let context { try pipeline.addHandler(NIOSSLServerHandler(context: context)) }
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(TestLineDecoder()))
                    try channel.pipeline.syncOperations.addHandler(
                        ScriptedConnectionHandler(connection: number, state: state)
                    )
                }
            }
            .bind(host: "127.0.0.1", port: port)
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

    /// When each line of ``receivedLines(connection:)`` was read, in the same order: the server's
    /// own clock of arrival, not when a test that waited for a line was woken.
    public func arrivalTimes(connection: Int = 1) -> [ContinuousClock.Instant] {
        state.arrivalTimes(connection: connection)
    }

    /// Number of connections accepted so far.
    public var connectionCount: Int { state.connectionCount }

    /// Waits until a line matching `predicate` arrived on any connection, and returns it: looked at
    /// as each line arrives; `timeout` only bounds a wait for a line that never comes.
    public func waitForLine(
        timeout: Duration = .seconds(30),
        where predicate: @escaping @Sendable (IRCMessage) -> Bool
    ) async throws -> IRCMessage {
        let state = self.state
        let find = { @Sendable () -> IRCMessage? in
            state.allLines().lazy.compactMap { try? IRCMessage(parsing: $0, maxLineBytes: 16_384) }.first(
                where: predicate)
        }
        guard await waitUntil(timeout: timeout, { find() != nil }), let message = find() else {
            throw IRCTestSupportError.timeout("scripted server waiting for a line; got:\n\(state.allLines())")
        }
        return message
    }

    /// Waits until `condition` holds (about the connections, lines or TLS records received so far),
    /// looked at again as each connection, line or record arrives; false when `timeout` passed first.
    @discardableResult
    public func waitUntil(timeout: Duration = .seconds(30), _ condition: @escaping @Sendable () -> Bool) async
        -> Bool
    {
        await state.arrivals.wait(timeout: timeout) { _ in condition() }
    }

    /// The first bytes (up to 16) received on `connection`, before any TLS decryption.
    public func firstBytes(connection: Int = 1) -> [UInt8] { state.firstBytes(connection: connection) }

    /// The number of TLS records of `contentType` the client has sent on a TLS connection so far
    /// (23: application data, which after the handshake is every record TLS 1.3 sends).
    public func tlsRecordCount(contentType: UInt8 = 23, connection: Int = 1) -> Int {
        state.tlsRecordCount(contentType: contentType, connection: connection)
    }

    /// Sends a raw line to every open connection.
    public func broadcast(_ line: String) {
        state.broadcast(line)
    }

    /// Sends raw bytes (no line end added) to every open connection, in one write.
    public func broadcast(bytes: [UInt8]) {
        state.broadcast(bytes: bytes)
    }

    /// Closes every client connection (the listener stays open).
    public func dropConnections() {
        state.closeAll()
    }

    /// Plays a crashed server: closes every connection and, until ``restart(respond:)``, closes each
    /// new one at once. (The port stays bound: a real restart could lose it to another socket.)
    public func kill() {
        state.setDown(true)
        state.closeAll()
    }

    /// Comes back after ``kill()``, answering with `respond` from now on when given. Returns the number
    /// of the next connection, so `receivedLines(fromConnection:)` shows what the new server got.
    @discardableResult
    public func restart(respond: Responder? = nil) -> Int {
        if let respond { state.setResponder(respond) }
        return state.setDown(false)
    }

    /// Lines received on connection `first` and every later one, in connection order.
    public func receivedLines(fromConnection first: Int) -> [String] {
        (first...max(first, connectionCount)).flatMap { receivedLines(connection: $0) }
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
    private var receivedAt: [Int: [ContinuousClock.Instant]] = [:]
    private var first: [Int: [UInt8]] = [:]
    private var tlsRecords: [Int: [UInt8: Int]] = [:]
    private var count = 0
    private var down = false
    private var respond: ScriptedIRCServer.Responder
    /// One entry per connection, line or TLS record received (after it is recorded): what waits
    /// wake on.
    let arrivals = WaitableLines()

    init(respond: @escaping ScriptedIRCServer.Responder) {
        self.respond = respond
    }

    var isDown: Bool { lock.withLock { down } }

    /// Returns the number the next connection will get.
    @discardableResult
    func setDown(_ value: Bool) -> Int {
        lock.withLock {
            down = value
            return count + 1
        }
    }

    func setResponder(_ responder: @escaping ScriptedIRCServer.Responder) {
        lock.withLock { respond = responder }
    }

    var responder: ScriptedIRCServer.Responder { lock.withLock { respond } }

    func newConnection(_ channel: any Channel) -> Int {
        let number = lock.withLock {
            count += 1
            channels[count] = channel
            return count
        }
        arrivals.append("\(number) connected")
        return number
    }

    var connectionCount: Int { lock.withLock { count } }

    func record(_ line: String, connection: Int) {
        lock.withLock {
            received[connection, default: []].append(line)
            receivedAt[connection, default: []].append(.now)
        }
    }

    /// Wakes the waits after `line` was recorded and answered.
    func arrived(_ line: String, connection: Int) {
        arrivals.append("\(connection) \(line)")
    }

    func lines(connection: Int) -> [String] { lock.withLock { received[connection] ?? [] } }

    func arrivalTimes(connection: Int) -> [ContinuousClock.Instant] { lock.withLock { receivedAt[connection] ?? [] } }

    func recordFirstBytes(_ bytes: some Collection<UInt8>, connection: Int) -> Bool {
        lock.withLock {
            let have = first[connection, default: []]
            guard have.count < 16 else { return false }
            first[connection] = have + bytes.prefix(16 - have.count)
            return first[connection, default: []].count < 16
        }
    }

    func firstBytes(connection: Int) -> [UInt8] { lock.withLock { first[connection] ?? [] } }

    func recordTLSRecord(contentType: UInt8, connection: Int) {
        lock.withLock { tlsRecords[connection, default: [:]][contentType, default: 0] += 1 }
        arrivals.append("\(connection) a TLS record of type \(contentType)")
    }

    func tlsRecordCount(contentType: UInt8, connection: Int) -> Int {
        lock.withLock { tlsRecords[connection]?[contentType] ?? 0 }
    }

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

    func broadcast(bytes: [UInt8]) {
        for channel in lock.withLock({ Array(channels.values) }) {
            var buffer = channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
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
    init(connection: Int, state: ScriptedServerState) {
        self.connection = connection
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        state.record(line, connection: connection)
        let message = try? IRCMessage(parsing: line, maxLineBytes: 16_384)
        let replies = message.map { state.responder($0, connection) } ?? []
        // Waits wake once the responder has seen the line (it may keep state they look at) and
        // its replies are written (a line the test sends next goes after them).
        defer { state.arrived(line, connection: connection) }
        guard !replies.isEmpty else { return }
        var buffer = context.channel.allocator.buffer(capacity: 256)
        var hangUp = false
        for reply in replies {
            if reply == ScriptedIRCServer.hangUp {
                hangUp = true
                break
            }
            buffer.writeString(reply + "\r\n")
        }
        let channel = context.channel
        let closeAfterwards = hangUp
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in
            if closeAfterwards { channel.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Records the first bytes of a connection as they arrive on the socket and, on TLS connections,
/// counts the client's TLS records by content type; then passes everything on.
final class FirstBytesRecorder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let connection: Int
    let state: ScriptedServerState
    private var recording = true
    private var records = TLSRecordCounter()

    init(connection: Int, state: ScriptedServerState) {
        self.connection = connection
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if recording {
            recording = state.recordFirstBytes(buffer.readableBytesView, connection: connection)
        }
        for contentType in records.consume(buffer.readableBytesView) {
            state.recordTLSRecord(contentType: contentType, connection: connection)
        }
        context.fireChannelRead(data)
    }
}

/// Splits a raw TLS byte stream into records (5-byte header: content type, version, length) and
/// reports the content type of each record whose header it has read.
struct TLSRecordCounter {
    private var header: [UInt8] = []
    private var bodyLeft = 0

    mutating func consume(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var types: [UInt8] = []
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if bodyLeft > 0 {
                let skip = min(bodyLeft, bytes.distance(from: index, to: bytes.endIndex))
                index = bytes.index(index, offsetBy: skip)
                bodyLeft -= skip
                continue
            }
            header.append(bytes[index])
            index = bytes.index(after: index)
            if header.count == 5 {
                types.append(header[0])
                bodyLeft = Int(header[3]) << 8 | Int(header[4])
                header.removeAll(keepingCapacity: true)
            }
        }
        return types
    }
}
