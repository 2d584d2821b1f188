import NIOCore
import NIOSSL

/// What the channel pipeline reports to the client actor.
enum ConnectionSignal: Sendable {
    case line(String)
    case closed(String?)
}

/// The last inbound handler: forwards decoded lines, TLS completion and the close (with the first error
/// seen) into an `AsyncStream` consumed by the ``IRCClient`` actor.
final class IRCLineForwarder: ChannelInboundHandler {
    typealias InboundIn = String

    private let continuation: AsyncStream<ConnectionSignal>.Continuation
    private var firstError: String?

    init(continuation: AsyncStream<ConnectionSignal>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(.line(unwrapInboundIn(data)))
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

    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "TLS certificate verification failed (untrusted or mismatched certificate): \(text)"
        }
        if error is NIOSSLError || error is BoringSSLError {
            return "TLS error: \(text)"
        }
        return text
    }
}
