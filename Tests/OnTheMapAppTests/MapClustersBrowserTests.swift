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
        var pins: [StudentLocation] = []
        func add(
            _ count: Int, _ prefix: String, _ first: String, _ last: String, _ place: String,
            _ latitude: Double, _ longitude: Double, from minutes: Double
        ) {
            for number in 0..<count {
                pins.append(
                    MapFixtures.pin(
                        "\(prefix)\(number)", "\(first)\(number)", last, place, latitude, longitude,
                        link: "https://\(prefix)\(number).example/", minutesAgo: minutes + Double(number)))
            }
        }
        add(150, "lis", "Lis", "Boa", "Lisbon, Portugal", 38.72, -9.14, from: 0)
        add(3, "ber", "Ber", "Lin", "Berlin, Germany", 52.52, 13.40, from: 200)
        add(12, "de", "De", "Land", "Germany", 51.0, 10.0, from: 300)
        add(1, "syd", "Syd", "Ney", "Sydney, Australia", -33.87, 151.21, from: 400)
        let crowd = pins
        let map = WebMap(
            feed: MapPinFeed(maxAge: .zero, levels: MapViewTests.Levels(), load: { crowd }),
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
                "/usr/bin/python3", [Self.script, "http://127.0.0.1:\(port)", "\(crowd.count)", "150", "12", shot],
                timeout: .seconds(180))
            #expect(status == 0, "\(output)")
            #expect(output.contains("clusters passed"), "\(output)")
            group.cancelAll()
        }
    }
}
