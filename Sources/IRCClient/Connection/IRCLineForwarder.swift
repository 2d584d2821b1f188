import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// What the channel pipeline reports to the client actor.
enum ConnectionSignal: Sendable {
    case line(String)
    case closed(String?)
}

/// The lines handed to the client actor and not handled yet. While ``limit`` are waiting, the pipeline
/// stops reading from the socket (TCP then slows the server down); it reads again once the actor has
/// caught up to half of that. So a server that floods faster than the client can follow costs at most
/// `limit` lines plus one read of memory, never an unbounded queue.
///
/// The state sits behind NIO's pthread lock rather than `Synchronization.Mutex`: ThreadSanitizer sees
/// a pthread lock's ordering, but not that of the standard library's uninstrumented `Mutex`, and
/// reported the event loop's and the actor's accesses as a race.
final class InboundBacklog: Sendable {
    let limit: Int
    private let state = NIOLockedValueBox<State>(State())

    private struct State {
        var pending = 0
        var readHeld = false
        var resume: (@Sendable () -> Void)?
    }

    init(limit: Int) {
        self.limit = max(2, limit)
    }

    /// Lines forwarded and not yet handled.
    var pendingCount: Int { state.withLockedValue { $0.pending } }

    func lineForwarded() {
        state.withLockedValue { $0.pending += 1 }
    }

    /// Whether the pipeline may read from the socket now; when not, the read is held until
    /// ``lineHandled()`` releases it.
    func mayRead() -> Bool {
        state.withLockedValue { state in
            if state.pending >= limit {
                state.readHeld = true
                return false
            }
            return true
        }
    }

    func lineHandled() {
        let resume: (@Sendable () -> Void)? = state.withLockedValue { state in
            state.pending -= 1
            guard state.readHeld, state.pending <= limit / 2 else { return nil }
            state.readHeld = false
            return state.resume
        }
        resume?()
    }

    /// What resumes a held read (set by the pipeline; `nil` when the connection is gone).
    func setResume(_ resume: (@Sendable () -> Void)?) {
        state.withLockedValue { $0.resume = resume }
    }
}

/// The last inbound handler: forwards decoded lines, TLS completion and the close (with the first error
/// seen) into an `AsyncStream` consumed by the ``IRCClient`` actor, holding socket reads while the
/// actor is behind (see ``InboundBacklog``).
final class IRCLineForwarder: ChannelDuplexHandler {
    typealias InboundIn = String
    typealias OutboundIn = ByteBuffer

    private let continuation: AsyncStream<ConnectionSignal>.Continuation
    private let backlog: InboundBacklog
    private var firstError: String?

    init(continuation: AsyncStream<ConnectionSignal>.Continuation, backlog: InboundBacklog) {
        self.continuation = continuation
        self.backlog = backlog
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let eventLoop = context.eventLoop
        let boundContext = NIOLoopBound(context, eventLoop: eventLoop)
        backlog.setResume {
            eventLoop.execute { boundContext.value.read() }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        backlog.setResume(nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        backlog.lineForwarded()
        continuation.yield(.line(unwrapInboundIn(data)))
    }

    func read(context: ChannelHandlerContext) {
        if backlog.mayRead() { context.read() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if firstError == nil { firstError = Self.describe(error) }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        backlog.setResume(nil)
        continuation.yield(.closed(firstError))
        continuation.finish()
        context.fireChannelInactive()
    }

    /// How ``describe(_:)`` starts the reason of a refused server certificate.
    static let certificateRefused = "TLS certificate verification failed"

    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "\(certificateRefused) (untrusted or mismatched certificate): \(text)"
        }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "\(certificateRefused) (the certificate is not valid for the host name): \(text)"
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return "TLS error: \(text)"
        }
        return text
    }
}
