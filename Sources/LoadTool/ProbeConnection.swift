import IRCProtocol
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

#if canImport(Glibc)
    import Glibc
#endif

/// A monotonic clock reading in nanoseconds (the same clock NIO's deadlines use).
func monotonicNanoseconds() -> UInt64 { NIODeadline.now().uptimeNanoseconds }

/// What a sent line brought back: when it went out (taken on the event loop just before the write)
/// and when the first and last expected lines came in (taken on the event loop as they were read).
struct Arrival: Sendable {
    var sentAt: UInt64
    var firstAt: UInt64
    var lastAt: UInt64
    var lines: [IRCMessage]

    /// Send → first expected line, in nanoseconds.
    var roundTrip: UInt64 { firstAt &- sentAt }
}

/// Why a probe gave up.
struct ProbeError: Error, CustomStringConvertible {
    var description: String
}

/// Where an expectation's outcome waits for the async driver. The event loop fills it and resumes
/// the waiting task directly: no future callback or timer is registered from another thread, so
/// nothing crosses threads between a timed write and its answer (each such hop wakes the event
/// loop through its eventfd, and on two cores that work lands inside the figure).
final class ArrivalMailbox: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Arrival, any Error>)
        case delivered(Result<Arrival, any Error>)
    }

    private let state = NIOLockedValueBox(State.empty)

    /// Hands over the outcome; the first one counts.
    func deliver(_ result: Result<Arrival, any Error>) {
        let waiter: CheckedContinuation<Arrival, any Error>? = state.withLockedValue { state in
            switch state {
            case .empty:
                state = .delivered(result)
                return nil
            case .waiting(let continuation):
                state = .delivered(result)
                return continuation
            case .delivered:
                return nil
            }
        }
        waiter?.resume(with: result)
    }

    /// Whether a waiter is suspended in ``value()`` for an outcome not yet delivered.
    var hasWaiter: Bool {
        state.withLockedValue { if case .waiting = $0 { true } else { false } }
    }

    /// Waits for the outcome (one waiter only).
    func value() async throws -> Arrival {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Arrival, any Error>? = state.withLockedValue { state in
                switch state {
                case .empty:
                    state = .waiting(continuation)
                    return nil
                case .delivered(let result):
                    return result
                case .waiting:
                    return .failure(ProbeError(description: "an arrival has one waiter"))
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}

/// The connection's inbound end: splits lines, answers PING, and hands lines that match the
/// current expectation to its mailbox. Runs only on the channel's event loop; timestamps are taken
/// there, so the Swift-concurrency hops of the driver never enter a measurement.
final class ProbeHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    struct Expectation {
        var match: @Sendable (IRCMessage) -> Bool
        var remaining: Int
        var sentAt: UInt64
        var deadline: UInt64
        var firstAt: UInt64?
        var lastAt: UInt64?
        var lines: [IRCMessage] = []
        var mailbox: ArrivalMailbox
    }

    private var partial: [UInt8] = []
    private var expectation: Expectation?
    private var closed = false
    /// Ends overdue expectations, once a second: one timer for the connection's life rather than one
    /// scheduled (and re-armed in the kernel) for every command while it is being timed.
    private var watchdog: RepeatedTask?
    /// A channel line that this connection answers at once with "pong", on the event loop: the
    /// trivial responder whose round trip is the floor the server allows.
    var instantAnswerTrigger: String?
    /// Acknowledge every read at once (TCP_QUICKACK) instead of after the kernel's 40 ms delay.
    /// Without it, a server that uses Nagle's algorithm holds the 2nd and later lines of a
    /// multi-line answer until the delayed ACK: every such command then takes ≈ 44 ms, and the
    /// machine idles in between (see BENCHMARKS.md).
    var quickAck = false

    /// Expects `count` lines matching `match` within `timeout` nanoseconds from now (the send time).
    func expect(
        _ count: Int, within timeout: UInt64, mailbox: ArrivalMailbox, match: @escaping @Sendable (IRCMessage) -> Bool
    ) {
        expectation?.mailbox.deliver(.failure(ProbeError(description: "replaced by a newer expectation")))
        expectation = nil
        if closed {
            mailbox.deliver(.failure(ProbeError(description: "the server closed the connection")))
            return
        }
        let now = monotonicNanoseconds()
        expectation = Expectation(
            match: match, remaining: max(1, count), sentAt: now, deadline: now &+ timeout, mailbox: mailbox)
    }

    /// Ends the current expectation if its time is up: with the lines that did arrive, if any.
    private func expireIfOverdue(now: UInt64) {
        guard let current = expectation, now >= current.deadline else { return }
        expectation = nil
        if let firstAt = current.firstAt {
            current.mailbox.deliver(
                .success(
                    Arrival(
                        sentAt: current.sentAt, firstAt: firstAt, lastAt: current.lastAt ?? firstAt,
                        lines: current.lines)))
        } else {
            current.mailbox.deliver(.failure(ProbeError(description: "timed out")))
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        watchdog = context.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
            handler.value.expireIfOverdue(now: monotonicNanoseconds())
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        watchdog?.cancel()
        watchdog = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = monotonicNanoseconds()
        if quickAck {
            try? context.channel.syncOptions?.setOption(
                ChannelOptions.socket(SocketOptionLevel(IPPROTO_TCP), SocketOptionName(TCP_QUICKACK)), value: 1)
        }
        let buffer = unwrapInboundIn(data)
        buffer.withUnsafeReadableBytes { bytes in
            var start = 0
            for index in 0..<bytes.count where bytes[index] == 0x0A {
                partial.append(contentsOf: bytes[start..<index])
                handleLine(context: context, now: now)
                partial.removeAll(keepingCapacity: true)
                start = index + 1
            }
            partial.append(contentsOf: bytes[start..<bytes.count])
        }
    }

    private func handleLine(context: ChannelHandlerContext, now: UInt64) {
        if partial.last == 0x0D { partial.removeLast() }
        guard !partial.isEmpty,
            let message = try? IRCMessage(parsing: String(decoding: partial, as: UTF8.self), maxLineBytes: 16_384)
        else { return }
        if message.command == "PING" {
            var reply = context.channel.allocator.buffer(capacity: 64)
            reply.writeString(IRCMessage(command: "PONG", parameters: message.parameters).serialized() + "\r\n")
            context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
            return
        }
        if let trigger = instantAnswerTrigger, message.command == "PRIVMSG", message.parameters.count == 2,
            message.parameters[1] == trigger
        {
            var reply = context.channel.allocator.buffer(capacity: 64)
            reply.writeString("PRIVMSG \(message.parameters[0]) :pong\r\n")
            context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
            return
        }
        guard var current = expectation, current.match(message) else { return }
        if current.firstAt == nil { current.firstAt = now }
        current.lastAt = now
        current.lines.append(message)
        current.remaining -= 1
        if current.remaining == 0 {
            expectation = nil
            current.mailbox.deliver(
                .success(
                    Arrival(sentAt: current.sentAt, firstAt: current.firstAt ?? now, lastAt: now, lines: current.lines))
            )
        } else {
            expectation = current
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        expectation?.mailbox.deliver(.failure(ProbeError(description: "the server closed the connection")))
        expectation = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// One IRC client connection of the load tool (TLS or plaintext), driven from async code.
struct ProbeConnection: Sendable {
    let channel: any Channel
    let handler: NIOLoopBound<ProbeHandler>
    let nick: String
    /// TCP connect started → 001 received, in nanoseconds.
    let connectToWelcome: UInt64

    /// Connects, registers as `nick` and returns once the server has sent 001.
    static func connect(
        host: String, port: Int, tls: NIOSSLContext?, nick: String, group: any EventLoopGroup,
        timeout: Duration = .seconds(30)
    ) async throws -> ProbeConnection {
        let started = monotonicNanoseconds()
        let bootstrap = ClientBootstrap(group: group)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(context: tls, serverHostname: nil))
                    }
                    try channel.pipeline.syncOperations.addHandler(ProbeHandler())
                }
            }
        let channel = try await bootstrap.connect(host: host, port: port).get()
        let handler = try await channel.eventLoop.submit {
            NIOLoopBound(
                try channel.pipeline.syncOperations.handler(type: ProbeHandler.self), eventLoop: channel.eventLoop)
        }.get()
        var connection = ProbeConnection(channel: channel, handler: handler, nick: nick, connectToWelcome: 0)
        let welcome = try await connection.send(
            ["NICK \(nick)", "USER \(nick) 0 * :onthemap-load"], timeout: timeout
        ) { $0.command == "001" || $0.command == "433" || $0.command == "ERROR" }
        guard welcome.lines.first?.command == "001" else {
            try? await channel.close()
            throw ProbeError(description: "registration as \(nick) refused: \(welcome.lines.first?.serialized() ?? "")")
        }
        connection = ProbeConnection(
            channel: channel, handler: handler, nick: nick, connectToWelcome: welcome.firstAt &- started)
        return connection
    }

    /// Writes `lines` in one flush and waits for `count` lines matching `match`.
    func send(
        _ lines: [String], expecting count: Int = 1, timeout: Duration = .seconds(10),
        match: @escaping @Sendable (IRCMessage) -> Bool
    ) async throws -> Arrival {
        try await arm(sending: lines, expecting: count, timeout: timeout, match: match).value()
    }

    /// Sets up the expectation and writes `lines` (in one event-loop turn); the answer is awaited
    /// with ``PendingArrival/value()``, so something may happen in between (e.g. starting the bot).
    /// With nothing to send, this returns once the expectation is in place.
    func arm(
        sending lines: [String] = [], expecting count: Int = 1, timeout: Duration = .seconds(10),
        match: @escaping @Sendable (IRCMessage) -> Bool
    ) async throws -> PendingArrival {
        let channel = self.channel
        let handler = self.handler
        let mailbox = ArrivalMailbox()
        let timeoutNanoseconds = UInt64(Self.nanoseconds(timeout))
        if lines.isEmpty {
            try await channel.eventLoop.submit {
                handler.value.expect(count, within: timeoutNanoseconds, mailbox: mailbox, match: match)
            }.get()
        } else {
            var buffer = channel.allocator.buffer(capacity: lines.reduce(0) { $0 + $1.utf8.count + 2 })
            for line in lines {
                buffer.writeString(line)
                buffer.writeStaticString("\r\n")
            }
            let bytes = buffer
            // Not awaited: the expectation and the write happen in one turn of the loop, and the
            // driver next hears from the loop when the answer is in.
            channel.eventLoop.execute {
                handler.value.expect(count, within: timeoutNanoseconds, mailbox: mailbox, match: match)
                channel.writeAndFlush(bytes, promise: nil)
            }
        }
        return PendingArrival(mailbox: mailbox, what: "\(nick): \(lines.first ?? "wait")")
    }

    /// Acknowledges every read at once from now on (see ``ProbeHandler/quickAck``).
    func acknowledgeAtOnce() async throws {
        let handler = self.handler
        try await channel.eventLoop.submit { handler.value.quickAck = true }.get()
    }

    /// From now on, answers the channel line `trigger` at once (see ``ProbeHandler/instantAnswerTrigger``).
    func answerAtOnce(to trigger: String) async throws {
        let handler = self.handler
        try await channel.eventLoop.submit { handler.value.instantAnswerTrigger = trigger }.get()
    }

    /// Waits for `count` lines matching `match` without sending anything.
    func wait(
        for count: Int = 1, timeout: Duration = .seconds(10), match: @escaping @Sendable (IRCMessage) -> Bool
    ) async throws -> Arrival {
        try await send([], expecting: count, timeout: timeout, match: match)
    }

    /// Writes lines without waiting for anything.
    func write(_ lines: [String]) async throws {
        var buffer = channel.allocator.buffer(capacity: lines.reduce(0) { $0 + $1.utf8.count + 2 })
        for line in lines {
            buffer.writeString(line)
            buffer.writeStaticString("\r\n")
        }
        try await channel.writeAndFlush(buffer)
    }

    /// Says QUIT and closes.
    func close() async {
        try? await write(["QUIT :done"])
        try? await channel.close()
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}

/// An expectation set up by ``ProbeConnection/arm(sending:expecting:timeout:match:)``.
struct PendingArrival: Sendable {
    let mailbox: ArrivalMailbox
    let what: String

    func value() async throws -> Arrival {
        do {
            return try await mailbox.value()
        } catch {
            throw ProbeError(description: "\(what): no answer (\(error))")
        }
    }
}

extension IRCMessage {
    /// Whether this is a PRIVMSG or NOTICE from `nick` to `target` (case-insensitive).
    func isMessage(from nick: String, to target: String) -> Bool {
        (command == "PRIVMSG" || command == "NOTICE")
            && CaseMapping.rfc1459.equals(sourceNick ?? "", nick)
            && CaseMapping.rfc1459.equals(parameters.first ?? "", target)
    }
}
