import BotTesting
import Foundation
import OnTheMapApp
import OnTheMapService
import Testing

/// The class map of a crowd in a real browser (headless Chromium driven by Selenium:
/// `Tests/Browser/map_clusters.py`): clusters with counts, a count on a country instead of a pin
/// on its centre, a city's names listed a page at a time, the Table tab paged. Needs Debian's
/// `chromium`, `chromium-driver` and `python3-selenium` (CI installs them).
@Suite(.tags(.runsAlone), .serialized) struct MapClustersBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Browser/map_clusters.py").path

    /// 150 students in Lisbon, 3 in Berlin, 12 kept at country level in Germany and one in
    /// Sydney: the world view accounts for all 166 (Lisbon a cluster of 150, "12 classmates in
    /// Germany", Sydney a pin); Lisbon's cluster, tapped until close, lists its names 50 a page
    /// with their links; Germany's count lists its 12; the table shows 100 rows, then the other 66.
    /// The open list is kept as `.build/test-artifacts/webmap-clusters.png`.
    @Test func aCrowdShowsAsClustersAndCountsAndItsNamesComePaged() async throws {
        let pins =
            (0..<150).map {
                MapFixtures.pin(
                    "lis\($0)", "Lis\($0)", "Boa", "Lisbon, Portugal", 38.72, -9.14, link: "https://lis\($0).example/",
                    minutesAgo: Double($0))
            }
            + (0..<3).map {
                MapFixtures.pin(
                    "ber\($0)", "Ber\($0)", "Lin", "Berlin, Germany", 52.52, 13.40, link: "https://ber\($0).example/",
                    minutesAgo: Double(200 + $0))
            }
            + (0..<12).map {
                MapFixtures.pin(
                    "de\($0)", "De\($0)", "Land", "Germany", 51.0, 10.0, link: "https://de\($0).example/",
                    minutesAgo: Double(300 + $0))
            }
            + [
                MapFixtures.pin(
                    "syd", "Syd", "Ney", "Sydney, Australia", -33.87, 151.21, link: "https://syd.example/",
                    minutesAgo: 400)
            ]
        let map = WebMap(
            feed: MapPinFeed(maxAge: .zero, levels: MapViewTests.Levels(), load: { pins }),
            geocoder: FixedGeocoder(places: [:]),
            // Clustering is checked over pins anyone may read (a class map's sign-in has its own tests).
            assets: try WebMap.Assets.bundled(), access: .anyone, logger: .init(label: "test.webmap"))
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let server = WebMapServer(
            host: "127.0.0.1", port: 0, webMap: map, onBound: { portContinuation.yield($0) },
            logger: BrowserTests.quietLogger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let shot = Chromium.artifactFolder().appendingPathComponent("webmap-clusters.png").path
            let (status, output) = try await runProcess(
                "/usr/bin/python3", [Self.script, "http://127.0.0.1:\(port)", "\(pins.count)", "150", "12", shot],
                timeout: .seconds(180))
            #expect(status == 0, "\(output)")
            #expect(output.contains("clusters passed"), "\(output)")
            group.cancelAll()
        }
    }
}
