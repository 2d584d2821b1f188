import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOSSL
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// What `/healthz` reports: is the bot registered on IRC, can it reach its backend.
public struct HealthReport: Sendable, Codable, Equatable {
    /// One network's connection.
    public struct IRC: Sendable, Codable, Equatable {
        /// The network's name in the config (`default` for an `irc:` section).
        public var name: String
        public var registered: Bool
        public var nick: String
        public var channels: [String]
        /// Why the last attempt to connect failed, while no connection is up (e.g. out of file
        /// descriptors, retrying); absent from the JSON otherwise.
        public var lastError: String?

        public init(
            name: String = BotConfiguration.defaultNetworkName, registered: Bool, nick: String, channels: [String],
            lastError: String? = nil
        ) {
            self.name = name
            self.registered = registered
            self.nick = nick
            self.channels = channels
            self.lastError = lastError
        }
    }

    public struct Backend: Sendable, Codable, Equatable {
        public var name: String
        public var reachable: Bool
        public var error: String?

        public init(name: String, reachable: Bool, error: String? = nil) {
            self.name = name
            self.reachable = reachable
            self.error = error
        }
    }

    /// "ok" when the backend answers and at least one network is registered, else "degraded".
    public var status: String
    /// The first network (the only one of a bot configured with `irc:`).
    public var irc: IRC
    /// Every network, in the config's order.
    public var networks: [IRC]
    public var backend: Backend

    public init(irc: IRC, backend: Backend) {
        self.init(networks: [irc], backend: backend)
    }

    /// The report of a bot on `networks` (at least one).
    public init(networks: [IRC], backend: Backend) {
        self.irc = networks.first ?? IRC(registered: false, nick: "", channels: [])
        self.networks = networks
        self.backend = backend
        self.status = networks.contains(where: \.registered) && backend.reachable ? "ok" : "degraded"
    }

    public var isHealthy: Bool { status == "ok" }
}

/// The operator's HTTP listener (`operator.listen`, 127.0.0.1:9090 by default): `/healthz` (200 or
/// 503 with a JSON body naming what fails) and `/metrics` (Prometheus text format). It is for the
/// operator's monitoring only; the class map has a listener of its own (``WebMapServer``), so
/// publishing the map publishes neither the metrics nor the backend's error texts.
public struct OperatorHTTPServer: Service {
    public typealias HealthCheck = @Sendable () async -> HealthReport

    let host: String
    let port: Int
    let health: HealthCheck
    let registry: PrometheusCollectorRegistry
    /// Called just before `/metrics` is rendered, to sample gauges (queue depth, sessions).
    let beforeScrape: @Sendable () async -> Void
    let onBound: @Sendable (Int) -> Void
    let logger: Logger

    public init(
        host: String, port: Int, health: @escaping HealthCheck, registry: PrometheusCollectorRegistry,
        beforeScrape: @escaping @Sendable () async -> Void = {}, onBound: @escaping @Sendable (Int) -> Void = { _ in },
        logger: Logger
    ) {
        self.host = host
        self.port = port
        self.health = health
        self.registry = registry
        self.beforeScrape = beforeScrape
        self.onBound = onBound
        self.logger = logger
    }

    /// The routes, without a socket (for tests). HEAD is answered for every GET route, like GET
    /// without the body.
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(options: .autoGenerateHeadEndpoints)
        let health = self.health
        let registry = self.registry
        let beforeScrape = self.beforeScrape
        router.get("healthz") { _, _ -> Response in
            let report = await health()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let body = (try? encoder.encode(report)) ?? Data("{\"status\":\"degraded\"}".utf8)
            return Response(
                status: report.isHealthy ? .ok : .serviceUnavailable,
                headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.get("metrics") { _, _ -> Response in
            await beforeScrape()
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        return router
    }

    public func run() async throws {
        try await HTTPListener.run(
            router: makeRouter(), host: host, port: port, name: "operator HTTP listener", tls: nil,
            onBound: onBound, logger: logger)
    }
}

/// Serves a router on host:port (over TLS when a configuration is given) until the service group
/// stops it, under ``HTTPConnectionLimits``: a connection must send its request head within 5 s
/// and is closed after 60 s without a request; connections over the caps (in all, and per client
/// address unless `connectionsPerAddress` is nil) are closed as soon as they are accepted; and
/// running out of file descriptors pauses accepting instead of retrying accept(2) in a loop.
enum HTTPListener {
    static func run<Context: RequestContext>(
        router: Router<Context>, host: String, port: Int, name: String, tls: TLSConfiguration?,
        connectionsPerAddress: Int? = HTTPConnectionLimits.connectionsPerAddress,
        connections: Int = HTTPConnectionLimits.connections,
        onBound: @escaping @Sendable (Int) -> Void, logger: Logger
    ) async throws where Context.Source == ApplicationRequestContextSource {
        let counter = HTTPConnectionCounter(total: connections, perAddress: connectionsPerAddress)
        let server: HTTPServerBuilder
        if let tls {
            server = HTTPServerBuilder { responder in
                try TLSChannel(GuardedHTTP1Channel(responder: responder), tlsConfiguration: tls)
            }
        } else {
            server = HTTPServerBuilder { responder in GuardedHTTP1Channel(responder: responder) }
        }
        let application = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: "onthemap-bot"),
            onServerRunning: { channel in
                // First in the listening channel's pipeline: it sees each accepted connection, and
                // each accept error, before Hummingbird's and NIO's handlers do.
                try? await channel.eventLoop.submit {
                    try channel.pipeline.syncOperations.addHandler(
                        AcceptGuardHandler(counter: counter, name: name, logger: logger), position: .first)
                }.get()
                let bound = channel.localAddress?.port ?? 0
                logger.info("\(name) up", metadata: ["address": "\(host):\(bound)"])
                onBound(bound)
            },
            logger: logger)
        // The bot's service group stops it on SIGTERM/SIGINT, after the bot's QUIT: a listener that
        // caught the signal itself would end first and cancel the bot before its QUIT.
        try await application.runService(gracefulShutdownSignals: [])
    }
}
