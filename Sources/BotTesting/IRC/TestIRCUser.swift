import Foundation
import IRCProtocol
import NIOCore
import NIOPosix
import NIOSSL

/// A tiny scripted IRC client for live tests: connects (TLS trusting a given CA file, or plaintext),
/// registers with a nick, joins channels, sends raw lines and waits for lines matching a predicate.
/// It answers PINGs by itself. Every received line is kept until a wait consumes it.
public actor TestIRCUser {
    public let nick: String
    private let channel: any Channel
    private var unconsumed: [IRCMessage] = []
    private var allLines: [String] = []
    private var closed = false
    private var readerTask: Task<Void, Never>?
    /// Lines received (and the close) so far: a wait sleeps until this changes.
    private var arrivals = 0
    /// The waits sleeping until the next arrival.
    private var arrivalWaiters: [UUID: CheckedContinuation<Void, Never>] = [:]

    /// Connects and registers (NICK/USER, waits for 001). `caFile` enables TLS trusting that PEM file;
    /// `username` (the `USER` name, so the user@host others see) defaults to the nick. `localAddress`
    /// binds the client's end before connecting (e.g. `127.0.0.2`, so that the server sees another host).
    /// `clientCertificate` is presented over TLS (a server that asks for one then knows its fingerprint).
    /// `sasl` logs in to that services account with SASL PLAIN before registration ends.
    public static func connect(
        host: String = "127.0.0.1",
        port: Int,
        caFile: String? = nil,
        nick: String,
        username: String? = nil,
        localAddress: String? = nil,
        capabilities: [String] = [],
        clientCertificate: TestCertificate? = nil,
        sasl: (account: String, password: String)? = nil,
        timeout: Duration = .seconds(10)
    ) async throws -> TestIRCUser {
        let (lines, sink) = AsyncStream.makeStream(of: String.self)
        var sslContext: NIOSSLContext?
        if let caFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
            if let clientCertificate {
                tls.certificateChain = try NIOSSLCertificate.fromPEMFile(clientCertificate.certificatePath).map {
                    .certificate($0)
                }
                tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: clientCertificate.keyPath, format: .pem))
            }
            sslContext = try NIOSSLContext(configuration: tls)
        }
        let context = sslContext
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        if let localAddress {
            bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: localAddress, port: 0))
        }
        let channel =
            try await bootstrap
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let context {
                        try pipeline.addHandler(
                            try NIOSSLClientHandler(context: context, serverHostname: nil)
                        )
                    }
                    try pipeline.addHandler(ByteToMessageHandler(TestLineDecoder()))
                    try pipeline.addHandler(TestLineCollector(sink: sink))
                }
            }
            .connect(host: host, port: port)
            .get()
        let user = TestIRCUser(nick: nick, channel: channel)
        await user.startReading(lines)
        let requested = capabilities + (sasl == nil || capabilities.contains("sasl") ? [] : ["sasl"])
        if !requested.isEmpty { try await user.send("CAP REQ :\(requested.joined(separator: " "))") }
        try await user.send("NICK \(nick)")
        try await user.send("USER \(username ?? nick) 0 * :Test user \(nick)")
        if let sasl {
            // SASL PLAIN, as a student's client does it: logged in to the account before 001.
            _ = try await user.waitForMessage(timeout: timeout, "CAP ACK sasl") {
                $0.command == "CAP" && $0.parameters.count >= 2 && $0.parameters[1] == "ACK"
            }
            try await user.send("AUTHENTICATE PLAIN")
            _ = try await user.waitForMessage(timeout: timeout, "AUTHENTICATE +") { $0.command == "AUTHENTICATE" }
            let plain = Data(("\0" + sasl.account + "\0" + sasl.password).utf8).base64EncodedString()
            try await user.send("AUTHENTICATE \(plain)")
            let outcome = try await user.waitForMessage(timeout: timeout, "903 for \(nick)") {
                $0.command == "903" || $0.command == "904"
            }
            guard outcome.command == "903" else {
                throw IRCTestSupportError.commandFailed(
                    "SASL PLAIN as \(sasl.account)", status: 904, output: "\(outcome)")
            }
        }
        if !requested.isEmpty { try await user.send("CAP END") }
        _ = try await user.waitForMessage(timeout: timeout, "001 for \(nick)") { $0.command == "001" }
        return user
    }

    private init(nick: String, channel: any Channel) {
        self.nick = nick
        self.channel = channel
    }

    private func startReading(_ lines: AsyncStream<String>) {
        readerTask = Task { [weak self] in
            for await line in lines {
                guard let self else { return }
                await self.received(line)
            }
            await self?.markClosed()
        }
    }

    private func received(_ line: String) {
        allLines.append(line)
        guard let message = try? IRCMessage(parsing: line, maxLineBytes: 16_384) else { return }
        if message.command == "PING" {
            let token = message.parameters.first ?? ""
            channel.writeAndFlush(Self.buffer("PONG :\(token)", allocator: channel.allocator), promise: nil)
        }
        unconsumed.append(message)
        signalArrival()
    }

    private func markClosed() {
        closed = true
        signalArrival()
    }

    private func signalArrival() {
        arrivals += 1
        let waiters = arrivalWaiters.values
        arrivalWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once something arrived after the `seen`th arrival, or at `deadline` (the guard
    /// against a line that never comes), whichever is first.
    private func nextArrival(after seen: Int, until deadline: ContinuousClock.Instant) async {
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            group.addTask {
                await withTaskCancellationHandler {
                    await self.arrival(after: seen, id: id)
                } onCancel: {
                    Task { await self.cancelArrivalWait(id) }
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    private func arrival(after seen: Int, id: UUID) async {
        // Arrived meanwhile, or cancelled before waiting: nothing to wait for. (Cancellation after
        // this check is handled by `cancelArrivalWait`, which runs on this actor after the wait is
        // registered.)
        guard arrivals == seen, !Task.isCancelled else { return }
        await withCheckedContinuation { arrivalWaiters[id] = $0 }
    }

    private func cancelArrivalWait(_ id: UUID) {
        arrivalWaiters.removeValue(forKey: id)?.resume()
    }

    /// Whether the server closed the connection.
    public var isClosed: Bool { closed }

    /// Every raw line received so far.
    public var receivedLines: [String] { allLines }

    /// Sends one raw line (CRLF is added).
    public func send(_ line: String) async throws {
        try await channel.writeAndFlush(Self.buffer(line, allocator: channel.allocator))
    }

    /// Sends one line given as bytes (CRLF is added), e.g. a line that is not valid UTF-8.
    public func send(bytes: [UInt8]) async throws {
        var buffer = channel.allocator.buffer(capacity: bytes.count + 2)
        buffer.writeBytes(bytes)
        buffer.writeString("\r\n")
        try await channel.writeAndFlush(buffer)
    }

    /// Sends several raw lines at once, in one write.
    public func sendBurst(_ lines: [String]) async throws {
        var buffer = channel.allocator.buffer(capacity: lines.reduce(0) { $0 + $1.utf8.count + 2 })
        for line in lines {
            buffer.writeString(line)
            buffer.writeString("\r\n")
        }
        try await channel.writeAndFlush(buffer)
    }

    /// Joins `channel` and waits for the end of its NAMES list.
    public func join(_ channelName: String, timeout: Duration = .seconds(10)) async throws {
        try await send("JOIN \(channelName)")
        _ = try await waitForMessage(timeout: timeout, "366 for \(channelName)") {
            $0.command == "366" && $0.parameters.count >= 2
                && CaseMapping.rfc1459.equals($0.parameters[1], channelName)
        }
    }

    /// Sends the server a PING and waits for its PONG: the server answers after relaying to this
    /// user every line it had received for them before, so once this returns those lines are here
    /// (a positive sign that nothing more is on its way, instead of waiting a while).
    public func syncWithServer(timeout: Duration = .seconds(30)) async throws {
        let token = "sync-\(UUID().uuidString.prefix(8))"
        try await send("PING :\(token)")
        _ = try await waitForMessage(timeout: timeout, "the server's PONG") {
            $0.command == "PONG" && $0.parameters.last == token
        }
    }

    /// `PRIVMSG target :text`.
    public func privmsg(_ target: String, _ text: String) async throws {
        try await send("PRIVMSG \(target) :\(text)")
    }

    /// Waits for (and consumes) the first received message matching `predicate`: each line that
    /// arrives is looked at as it comes; `timeout` only bounds a wait for a line that never comes.
    public func waitForMessage(
        timeout: Duration = .seconds(10),
        _ what: String = "a matching line",
        where predicate: @Sendable (IRCMessage) -> Bool
    ) async throws -> IRCMessage {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let index = unconsumed.firstIndex(where: predicate) {
                return unconsumed.remove(at: index)
            }
            if ContinuousClock.now >= deadline {
                let recent = allLines.suffix(15).joined(separator: "\n  ")
                throw IRCTestSupportError.timeout("\(nick) waiting for \(what); last lines:\n  \(recent)")
            }
            await nextArrival(after: arrivals, until: deadline)
            try Task.checkCancellation()
        }
    }

    /// Waits until the raw lines received so far satisfy `condition` (looked at again as each line
    /// arrives, without consuming any) and returns them; `timeout` only bounds a wait for lines
    /// that never come.
    @discardableResult
    public func waitForLines(
        timeout: Duration = .seconds(30), _ what: String = "the expected lines",
        until condition: @Sendable ([String]) -> Bool
    ) async throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        while !condition(allLines) {
            if ContinuousClock.now >= deadline || closed {
                let recent = allLines.suffix(15).joined(separator: "\n  ")
                throw IRCTestSupportError.timeout("\(nick) waiting for \(what); last lines:\n  \(recent)")
            }
            await nextArrival(after: arrivals, until: deadline)
            try Task.checkCancellation()
        }
        return allLines
    }

    /// Waits for `count` messages matching `predicate` and returns them in arrival order.
    public func waitForMessages(
        count: Int,
        timeout: Duration = .seconds(10),
        _ what: String = "matching lines",
        where predicate: @Sendable (IRCMessage) -> Bool
    ) async throws -> [IRCMessage] {
        var found: [IRCMessage] = []
        let deadline = ContinuousClock.now + timeout
        while found.count < count {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                throw IRCTestSupportError.timeout("\(nick) got \(found.count) of \(count) \(what)")
            }
            do {
                found.append(try await waitForMessage(timeout: remaining, what, where: predicate))
            } catch IRCTestSupportError.timeout {
                throw IRCTestSupportError.timeout("\(nick) got \(found.count) of \(count) \(what)")
            }
        }
        return found
    }

    /// Sends QUIT and closes the connection.
    public func quit(_ message: String = "bye") async {
        try? await send("QUIT :\(message)")
        try? await channel.close()
        readerTask?.cancel()
    }

    private static func buffer(_ line: String, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: line.utf8.count + 2)
        buffer.writeString(line)
        buffer.writeString("\r\n")
        return buffer
    }
}

/// Splits on LF, dropping CR.
struct TestLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = String

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        var line = buffer.readString(length: length) ?? ""
        buffer.moveReaderIndex(forwardBy: 1)
        if line.hasSuffix("\r") { line.removeLast() }
        if !line.isEmpty { context.fireChannelRead(wrapInboundOut(line)) }
        return .continue
    }
}

final class TestLineCollector: ChannelInboundHandler {
    typealias InboundIn = String
    let sink: AsyncStream<String>.Continuation

    init(sink: AsyncStream<String>.Continuation) { self.sink = sink }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        sink.yield(unwrapInboundIn(data))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        sink.finish()
        context.fireChannelInactive()
    }
}
