import Hummingbird
import Logging
import NIOSSL
import ServiceLifecycle

/// The class map's listener (`web.listen`): the page, its files and `/api/locations.json`, and the
/// v1 API under `/v1` when it is enabled (the operator's `/healthz` and `/metrics` are on
/// ``OperatorHTTPServer``). With a TLS configuration it speaks HTTPS only.
public struct WebMapServer: Service {
    let host: String
    let port: Int
    let webMap: WebMap
    let api: ClassAPI?
    let tls: TLSConfiguration?
    /// A reverse proxy forwards every client (`web.behind_proxy`): the listener sees one address.
    let behindProxy: Bool
    let onBound: @Sendable (Int) -> Void
    let logger: Logger

    public init(
        host: String, port: Int, webMap: WebMap, api: ClassAPI? = nil, tls: TLSConfiguration? = nil,
        behindProxy: Bool = false, onBound: @escaping @Sendable (Int) -> Void = { _ in }, logger: Logger
    ) {
        self.host = host
        self.port = port
        self.webMap = webMap
        self.api = api
        self.tls = tls
        self.behindProxy = behindProxy
        self.onBound = onBound
        self.logger = logger
    }

    /// The routes, without a socket (for tests). HEAD is answered for every GET route.
    public func makeRouter() -> Router<WebRequestContext> {
        let router = Router(context: WebRequestContext.self, options: .autoGenerateHeadEndpoints)
        webMap.addRoutes(to: router)
        api?.addRoutes(to: router)
        return router
    }

    /// Behind a reverse proxy every connection comes from the proxy's address, so a cap per address
    /// would cap the whole class at once: only the total cap applies then (the proxy is the place to
    /// limit each client; it also buffers slow clients before they reach the bot).
    ///
    /// The map's viewport index is built beside the listener's start (``WebMap/prepare()``).
    public func run() async throws {
        let preparing = Task(priority: .utility) { [webMap] in await webMap.prepare() }
        defer { preparing.cancel() }
        try await HTTPListener.run(
            router: makeRouter(), host: host, port: port, name: "web map listener", tls: tls,
            connectionsPerAddress: behindProxy ? nil : HTTPConnectionLimits.connectionsPerAddress, onBound: onBound,
            logger: logger)
    }

    /// The server side of HTTPS from PEM files: the certificate chain and its private key. Throws
    /// with the file named when one cannot be read.
    public static func tlsConfiguration(certificateFile: String, keyFile: String) throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
        } catch {
            throw WebTLSError(file: certificateFile, problem: "is not a readable PEM certificate (\(error))")
        }
        guard !chain.isEmpty else { throw WebTLSError(file: certificateFile, problem: "holds no certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        } catch {
            throw WebTLSError(file: keyFile, problem: "is not a readable PEM private key (\(error))")
        }
        return TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }
}

/// A web TLS file that cannot be used.
public struct WebTLSError: Error, CustomStringConvertible {
    public var file: String
    public var problem: String
    public var description: String { "web TLS: \(file) \(problem)" }
}
