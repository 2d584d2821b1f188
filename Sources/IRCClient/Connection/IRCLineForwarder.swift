import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// What the channel pipeline reports to the client actor.
enum ConnectionSignal: Sendable {
    case closed(String?)
}

/// The last inbound handler: hands each decoded line straight to the client actor, on the event loop
/// that is the actor's executor (see ``IRCClient``), and reports the close (with the first error seen)
/// through an `AsyncStream` the actor consumes.
///
/// A line read from the socket is handled before the next read, inside the read event: no task is
/// woken and no queue grows, so a server that floods faster than the client can follow is slowed down
/// by TCP. A line decoded while the actor itself is running on this thread (the decoder flushes its
/// last partial line when the actor closes the connection) cannot enter the actor there; it waits in
/// ``deferred`` and is handed over right after, in order.
final class IRCLineForwarder: ChannelInboundHandler {
    typealias InboundIn = String

    private let continuation: AsyncStream<ConnectionSignal>.Continuation
    /// Handles one line inside the client actor (only called on the event loop).
    private let deliver: @Sendable (String) -> Void
    private var firstError: String?
    /// Lines waiting for the actor to be free (see the type's note).
    private var deferred: [String] = []
    /// True while ``deliver`` runs (a line it handles may close the connection, which decodes more).
    private var delivering = false

    init(continuation: AsyncStream<ConnectionSignal>.Continuation, deliver: @escaping @Sendable (String) -> Void) {
        self.continuation = continuation
        self.deliver = deliver
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        // Inside a task, the actor may be the one running: defer. Outside (a socket read), it is not.
        if deferred.isEmpty, !delivering, withUnsafeCurrentTask(body: { $0 == nil }) {
            delivering = true
            deliver(line)
            delivering = false
            return
        }
        deferred.append(line)
        if deferred.count == 1 {
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            context.eventLoop.execute { loopBound.value.deliverDeferred() }
        }
    }

    private func deliverDeferred() {
        let lines = deferred
        deferred = []
        delivering = true
        for line in lines { deliver(line) }
        delivering = false
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if firstError == nil { firstError = Self.describe(error) }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
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
