import BotKit
import BotTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Metrics
import OnTheMapApp
import Prometheus
import Testing

/// The process-wide metrics backend for these tests (swift-metrics can be bootstrapped once).
enum TestMetrics {
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()
}

@Suite struct OperatorHTTPServerTests {
    static func report(registered: Bool, reachable: Bool) -> HealthReport {
        HealthReport(
            irc: .init(registered: registered, nick: "MapBot", channels: registered ? ["#class"] : []),
            backend: .init(name: "sqlite", reachable: reachable, error: reachable ? nil : "database is locked"))
    }

    func withServer(
        health: HealthReport, beforeScrape: @escaping @Sendable () async -> Void = {},
        _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let server = OperatorHTTPServer(
            host: "127.0.0.1", port: 0, health: { health }, registry: TestMetrics.registry,
            beforeScrape: beforeScrape, logger: .init(label: "test"))
        let app = Application(router: server.makeRouter())
        try await app.test(.router) { client in try await body(client) }
    }

    @Test func healthzIs200WhenRegisteredAndBackendReachable() async throws {
        try await withServer(health: Self.report(registered: true, reachable: true)) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                let report = try JSONDecoder().decode(HealthReport.self, from: Data(buffer: response.body))
                #expect(report.status == "ok")
                #expect(report.irc.channels == ["#class"])
            }
        }
    }

    @Test func healthzIs503WithTheReasonWhenSomethingIsDown() async throws {
        try await withServer(health: Self.report(registered: true, reachable: false)) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                let report = try JSONDecoder().decode(HealthReport.self, from: Data(buffer: response.body))
                #expect(report.status == "degraded")
                #expect(report.backend.error == "database is locked")
            }
        }
        try await withServer(health: Self.report(registered: false, reachable: true)) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
            }
        }
    }

    @Test func metricsShowCommandsRunThroughTheRouter() async throws {
        _ = TestMetrics.registry
        let bot = TestBot(plugins: [CorePlugin()])
        _ = await bot.say("!ping", in: "#class", as: "alice")
        _ = await bot.dm("!ping", as: "bob")
        try await withServer(
            health: Self.report(registered: true, reachable: true),
            beforeScrape: { Gauge(label: "onthemap_send_queue_lines").record(7) }
        ) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                let text = String(buffer: response.body)
                // The test bot's router counts without a network label; assembled bots in other
                // tests of this process count in series labelled with their network.
                let pings = text.split(separator: "\n").first {
                    $0.hasPrefix("onthemap_commands_total{") && $0.contains("command=\"ping\"")
                        && $0.contains("outcome=\"ok\"") && !$0.contains("network=")
                }
                let count = pings.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
                #expect(count >= 2, "\(text)")
                #expect(text.contains("onthemap_command_duration_seconds"))
                #expect(text.contains("onthemap_send_queue_lines 7"))
            }
        }
    }

    @Test func headIsAnsweredLikeGetWithoutABody() async throws {
        let server = OperatorHTTPServer(
            host: "127.0.0.1", port: 0, health: { Self.report(registered: true, reachable: true) },
            registry: TestMetrics.registry, logger: .init(label: "test"))
        let map = WebMapServer(
            host: "127.0.0.1", port: 0, webMap: try MapFixtures.webMap(), logger: .init(label: "test"))
        try await Self.checkHead(Application(router: server.makeRouter()), ["/healthz", "/metrics"])
        try await Self.checkHead(Application(router: map.makeRouter()), ["/", "/api/locations.json"])
    }

    static func checkHead(_ app: some ApplicationProtocol, _ paths: [String]) async throws {
        try await app.test(.router) { client in
            for path in paths {
                let (getStatus, getType) = try await client.execute(uri: path, method: .get) { response in
                    // (`/metrics` is empty until something has been counted.)
                    #expect(path == "/metrics" || response.body.readableBytes > 0, "GET \(path)")
                    return (response.status, response.headers[.contentType])
                }
                try await client.execute(uri: path, method: .head) { response in
                    #expect(getStatus == .ok, "GET \(path)")
                    #expect(response.status == getStatus, "HEAD \(path)")
                    #expect(response.headers[.contentType] == getType, "HEAD \(path)")
                    #expect(response.body.readableBytes == 0, "HEAD \(path)")
                }
            }
        }
    }

    @Test func unknownPathsAre404() async throws {
        try await withServer(health: Self.report(registered: true, reachable: true)) { client in
            try await client.execute(uri: "/nope", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}
