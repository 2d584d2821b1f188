#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// How long a client of an HTTP listener may keep a connection without using it, and how many
/// connections the listener holds at once. The same for the web map and the operator listener.
enum HTTPConnectionLimits {
    /// A new connection that has not sent a whole request head by then is closed (a client that
    /// connects and sends nothing, or a few bytes a minute, holds a descriptor for nothing).
    static let requestHeadTimeout = TimeAmount.seconds(5)
    /// A keep-alive connection with no request for this long is closed (it also bounds a later
    /// request's head on the same connection).
    static let keepAliveIdleTimeout = TimeAmount.seconds(60)
    /// Connections one client address may hold at once; more are closed as soon as accepted.
    static let connectionsPerAddress = 64
    /// Connections the listener holds at once, from every address; more are closed as soon as
    /// accepted.
    static let connections = 1_000
    /// How long a listener stops accepting when the process is out of file descriptors.
    static let acceptPause = TimeAmount.milliseconds(250)
}

/// The connections a listener holds, in all and per client address, under its caps.
final class HTTPConnectionCounter: Sendable {
    struct Counts {
        var total = 0
        var perAddress: [String: Int] = [:]
    }

    /// Why a connection is refused.
    enum Refusal: Equatable, CustomStringConvertible {
        case tooManyFromAddress
        case tooMany

        var description: String {
            switch self {
            case .tooManyFromAddress: "too many connections from this address"
            case .tooMany: "too many connections"
            }
        }
    }

    let total: Int
    /// nil when the listener cannot tell its clients apart (behind a reverse proxy).
    let perAddress: Int?
    private let counts = NIOLockedValueBox(Counts())

    init(total: Int, perAddress: Int?) {
        self.total = total
        self.perAddress = perAddress
    }

    /// Counts a connection from `address` if the caps allow it; else says why not (and counts
    /// nothing).
    func open(from address: String) -> Refusal? {
        counts.withLockedValue { counts in
            if counts.total >= total { return .tooMany }
            if let perAddress, counts.perAddress[address, default: 0] >= perAddress { return .tooManyFromAddress }
            counts.total += 1
            counts.perAddress[address, default: 0] += 1
            return nil
        }
    }

    /// Uncounts a connection that ``open(from:)`` counted.
    func close(from address: String) {
        counts.withLockedValue { counts in
            counts.total -= 1
            let left = counts.perAddress[address, default: 1] - 1
            counts.perAddress[address] = left > 0 ? left : nil
        }
    }

    var current: Counts { counts.withLockedValue { $0 } }
}

/// On a listening channel, in front of what accepts: closes an accepted connection at once when it
/// is over the caps (before any handler or TLS state is made for it), and stops accepting for a
/// moment when the process is out of file descriptors.
///
/// Without the pause, accept(2) failing with EMFILE leaves the listening socket readable and NIO
/// still waiting to read (its `AcceptBackoffHandler` only delays the next `read()`, which is not
/// asked for while a read is pending), so the event loop calls accept again at once, for ever: a
/// core spins. Turning `autoRead` off takes the socket out of the poller; turning it on again
/// after ``HTTPConnectionLimits/acceptPause`` accepts again.
final class AcceptGuardHandler: ChannelDuplexHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel
    typealias OutboundIn = Never
    typealias OutboundOut = Never

    private let counter: HTTPConnectionCounter
    private let pause: TimeAmount
    private let logger: Logger
    private let name: String
    private var resume: Scheduled<Void>?
    private var refusedSinceLog = 0
    private var lastRefusalLog: NIODeadline?

    init(
        counter: HTTPConnectionCounter, pause: TimeAmount = HTTPConnectionLimits.acceptPause, name: String,
        logger: Logger
    ) {
        self.counter = counter
        self.pause = pause
        self.name = name
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let child = unwrapInboundIn(data)
        let address = child.remoteAddress?.ipAddress ?? "unknown"
        if let refusal = counter.open(from: address) {
            child.close(promise: nil)
            noteRefusal(refusal, address: address)
            return
        }
        let counter = self.counter
        child.closeFuture.whenComplete { _ in counter.close(from: address) }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let ioError = error as? IOError, Self.isOutOfResources(ioError.errnoCode) else {
            context.fireErrorCaught(error)
            return
        }
        guard resume == nil else { return }
        logger.warning(
            "\(name): cannot accept a connection (\(ioError.description)); not accepting for \(pause.nanoseconds / 1_000_000) ms"
        )
        let channel = context.channel
        try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
        resume = context.eventLoop.assumeIsolated().scheduleTask(in: pause) { [self] in
            self.resume = nil
            try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
    }

    /// Out of descriptors or buffers: accept(2) fails until something is closed.
    static func isOutOfResources(_ code: CInt) -> Bool {
        code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM
    }

    /// Logs refusals at most once every 10 s, with how many there were.
    private func noteRefusal(_ refusal: HTTPConnectionCounter.Refusal, address: String) {
        refusedSinceLog += 1
        let now = NIODeadline.now()
        if let last = lastRefusalLog, now - last < .seconds(10) { return }
        logger.warning(
            "\(name): refused \(refusedSinceLog) connection(s) at once: \(refusal)",
            metadata: ["address": "\(address)"])
        refusedSinceLog = 0
        lastRefusalLog = now
    }
}

/// Closes a connection that has not sent a whole request head within `timeout` of opening (TLS
/// handshake included). Once the first head is read it has nothing more to do: the keep-alive idle
/// timeout bounds the rest of the connection.
final class RequestHeadTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    private var headSeen = false

    init(timeout: TimeAmount = HTTPConnectionLimits.requestHeadTimeout) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !headSeen, case .head = unwrapInboundIn(data) {
            headSeen = true
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    private func start(_ context: ChannelHandlerContext) {
        guard deadline == nil, !headSeen else { return }
        let loopContext = context.loopBound
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            self.deadline = nil
            loopContext.value.close(promise: nil)
        }
    }
}

/// HTTP/1.1 on an accepted connection, as Hummingbird's `HTTP1Channel`, with the request-head
/// timeout and the keep-alive idle timeout of ``HTTPConnectionLimits``.
///
/// The difference that matters at shutdown: `HTTP1Channel` wraps the connection in its
/// `NIOAsyncChannel` while the connection is being accepted, and the listener hands it to a
/// handling task later. A connection accepted while the listener closes is then dropped between
/// the two (the listener's stream has finished), and a `NIOAsyncChannel` released without its
/// writer finished is a `preconditionFailure` in NIO: the process traps (SIGILL). Here accepting
/// only builds the pipeline, with reads off; the `NIOAsyncChannel` is made by the handling task
/// itself, which then turns reads on. A connection dropped before that has no async wrapper to
/// trap on: the listener's quiescing closes it (or the head timeout does).
struct GuardedHTTP1Channel: ServerChildChannel {
    struct PendingConnection: ServerChildChannelValue {
        let channel: any Channel
    }

    typealias Value = PendingConnection

    let http1: HTTP1Channel
    let headTimeout: TimeAmount

    init(
        responder: @escaping HTTPChannelHandler.Responder,
        idleTimeout: TimeAmount = HTTPConnectionLimits.keepAliveIdleTimeout,
        headTimeout: TimeAmount = HTTPConnectionLimits.requestHeadTimeout
    ) {
        self.http1 = HTTP1Channel(responder: responder, configuration: .init(idleTimeout: idleTimeout))
        self.headTimeout = headTimeout
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<PendingConnection> {
        let decoder = http1.configuration.httpDecoder
        let idleTimeout = http1.configuration.idleTimeout
        let headTimeout = self.headTimeout
        return channel.eventLoop.makeCompletedFuture {
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = decoder.maxHeaderFieldSize
            limits.maxHeaderListSize = decoder.maxHeaderListSize
            limits.maxHeaderFieldCount = decoder.maxHeaderFieldCount
            let pipeline = channel.pipeline.syncOperations
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(RequestHeadTimeoutHandler(timeout: headTimeout))
            try pipeline.addHandler(
                HTTPConnectionStateHandler(idleTimeout: idleTimeout.map { Duration($0) }, logger: logger))
            // Nothing is read until the handling task has its NIOAsyncChannel in place.
            try channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
            return PendingConnection(channel: channel)
        }
    }

    func handle(value: PendingConnection, logger: Logger) async {
        let channel = value.channel
        let asyncChannel: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>
        do {
            asyncChannel = try await channel.eventLoop.submit {
                let wrapped = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                    wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                // A wrapper made here must reach the handling below (one released unused traps), so
                // nothing after it may throw.
                try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
                return wrapped
            }.get()
        } catch {
            // Closed before it could be handled (the listener is stopping, or the client left).
            channel.close(promise: nil)
            return
        }
        await http1.handle(value: asyncChannel, logger: logger)
    }
}
