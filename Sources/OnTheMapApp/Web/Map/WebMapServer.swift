import Hummingbird
import Logging
import ServiceLifecycle

/// The class map's listener (`web.listen`): the page, its files and `/api/locations.json`, nothing
/// else (the operator's `/healthz` and `/metrics` are on ``OperatorHTTPServer``).
public struct WebMapServer: Service {
    let host: String
    let port: Int
    let webMap: WebMap
    let onBound: @Sendable (Int) -> Void
    let logger: Logger

    public init(
        host: String, port: Int, webMap: WebMap, onBound: @escaping @Sendable (Int) -> Void = { _ in },
        logger: Logger
    ) {
        self.host = host
        self.port = port
        self.webMap = webMap
        self.onBound = onBound
        self.logger = logger
    }

    /// The routes, without a socket (for tests). HEAD is answered for every GET route.
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(options: .autoGenerateHeadEndpoints)
        webMap.addRoutes(to: router)
        return router
    }

    public func run() async throws {
        try await HTTPListener.run(
            router: makeRouter(), host: host, port: port, name: "web map listener", onBound: onBound, logger: logger)
    }
}
