import BotTesting
import Foundation
import OnTheMapApp
import OnTheMapService
import Testing

/// The class map at city zoom in a real browser (headless Chromium driven by Selenium:
/// `Tests/Browser/map_layers.py`) against the served page with the bundled gazetteer. Needs
/// Debian's `chromium`, `chromium-driver` and `python3-selenium` (CI installs them).
@Suite(.tags(.runsAlone), .serialized) struct MapLayersBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Browser/map_layers.py").path

    /// The world view names no city and asks for none; zoomed into Portugal with "+", Lisbon and
    /// Porto are named, no two names overlap, and the finer coastlines of the cells in view (only
    /// those) are drawn; back to the world view, both go. The zoomed view is kept as
    /// `.build/test-artifacts/webmap-portugal.png`.
    @Test func zoomingIntoPortugalNamesLisbonAndPortoAndTheWorldViewNamesNone() async throws {
        let map = WebMap(
            feed: MapPinFeed(maxAge: .zero, load: { MapFixtures.pins }), geocoder: CommandExampleTests.geocoder,
            // The layers are checked over pins anyone may read (a class map's sign-in has its own tests).
            assets: try WebMap.Assets.bundled(), access: .anyone,
            placeLabels: MapPlaceLabels(CommandExampleTests.geocoder), logger: .init(label: "test.webmap"))
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let server = WebMapServer(
            host: "127.0.0.1", port: 0, webMap: map, onBound: { portContinuation.yield($0) },
            logger: BrowserTests.quietLogger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let shot = Chromium.artifactFolder().appendingPathComponent("webmap-portugal.png").path
            let (status, output) = try await runProcess(
                "/usr/bin/python3", [Self.script, "http://127.0.0.1:\(port)", shot], timeout: .seconds(180))
            #expect(status == 0, "\(output)")
            #expect(output.contains("layers passed"), "\(output)")
            group.cancelAll()
        }
    }
}
