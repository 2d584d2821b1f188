import Hummingbird
import NIOCore

/// The request context of the web listener: Hummingbird's basics and the address of the peer that
/// connected (what the API's login throttle counts against when no trusted proxy is in front).
public struct WebRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
