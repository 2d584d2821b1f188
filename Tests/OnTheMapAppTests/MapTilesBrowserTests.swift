import BotTesting
import Foundation
import Hummingbird
import Logging
import OnTheMapApp
import OnTheMapService
import Testing

/// The class map with an XYZ tile service configured, in a real browser (headless Chromium driven
/// by Selenium: `Tests/Browser/map_tiles.py`), against a tile server of the test's own on
/// 127.0.0.1, never the internet. Needs Debian's `chromium`, `chromium-driver` and
/// `python3-selenium` (CI installs them).
@Suite(.tags(.runsAlone), .serialized) struct MapTilesBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Browser/map_tiles.py").path
    static let attribution = "Test tiles © \"Tile & Co\" contributors"

    /// With the tile server up, the page draws its tiles (only those of the view) and not the
    /// offline outlines, shows the attribution as written, and puts the pin, the focus marker, the
    /// name of Lisbon and a place shown by the posting scene where Lisbon is inside Lisbon's tile
    /// (Web Mercator). The zoomed view is kept as `.build/test-artifacts/webmap-tiles.png`.
    @Test func tilesAreDrawnAndThePinOfLisbonLandsInLisbonsTile() async throws {
        let tileServer = TestTileServer()
        try await withThrowingTaskGroup(of: Void.self) { group in
            let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
            group.addTask { try await tileServer.run(onBound: { continuation.yield($0) }) }
            var iterator = ports.makeAsyncIterator()
            let tilePort = try #require(await iterator.next())
            let (status, output) = try await Self.runPage(tilePort: tilePort, mode: "up", shot: "webmap-tiles.png")
            #expect(status == 0, "\(output)")
            #expect(output.contains("tiles passed"), "\(output)")
            #expect(await tileServer.served.count > 0)
            group.cancelAll()
        }
    }

    /// With nothing answering at the tile URL, the page falls back to the offline map (outlines,
    /// finer cells at city zoom, names), says so where the attribution was, and places the pin of
    /// Lisbon in Lisbon's offline cell. Kept as `.build/test-artifacts/webmap-tiles-down.png`.
    @Test func withTheTileServerDownThePageFallsBackToTheOfflineMap() async throws {
        // A port a tile server was bound to and has let go of: connections to it are refused.
        let tilePort = try await withThrowingTaskGroup(of: Void.self) { group in
            let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
            group.addTask { try await TestTileServer().run(onBound: { continuation.yield($0) }) }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            group.cancelAll()
            try? await group.waitForAll()
            return port
        }
        let (status, output) = try await Self.runPage(tilePort: tilePort, mode: "down", shot: "webmap-tiles-down.png")
        #expect(status == 0, "\(output)")
        #expect(output.contains("tiles passed"), "\(output)")
    }

    /// With a tile server that takes the requests and never answers (packets lost on the way), the
    /// page gives the tiles up after a few seconds without any and falls back to the offline map.
    @Test func withTilesThatNeverArriveThePageFallsBackToTheOfflineMap() async throws {
        let tileServer = TestTileServer(stalls: true)
        try await withThrowingTaskGroup(of: Void.self) { group in
            let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
            group.addTask { try await tileServer.run(onBound: { continuation.yield($0) }) }
            var iterator = ports.makeAsyncIterator()
            let tilePort = try #require(await iterator.next())
            let (status, output) = try await Self.runPage(tilePort: tilePort, mode: "stall", shot: nil)
            #expect(status == 0, "\(output)")
            #expect(output.contains("tiles passed"), "\(output)")
            #expect(await tileServer.served.count == 0)
            group.cancelAll()
        }
    }

    /// Serves the map with tiles from `127.0.0.1:<tilePort>` and runs the browser script on it.
    static func runPage(tilePort: Int, mode: String, shot: String?) async throws -> (Int32, String) {
        let origin = "http://127.0.0.1:\(tilePort)"
        let tiles = try MapTileLayer(template: origin + "/{z}/{x}/{y}.png", attribution: attribution)
        let map = WebMap(
            feed: MapPinFeed(maxAge: .zero, load: { MapFixtures.pins }), geocoder: CommandExampleTests.geocoder,
            // The tiles are checked over pins anyone may read (a class map's sign-in has its own tests).
            assets: try WebMap.Assets.bundled(), access: .anyone,
            placeLabels: MapPlaceLabels(CommandExampleTests.geocoder), tiles: tiles, logger: .init(label: "test.webmap")
        )
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let server = WebMapServer(
            host: "127.0.0.1", port: 0, webMap: map, onBound: { portContinuation.yield($0) },
            logger: BrowserTests.quietLogger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let path = shot.map { [Chromium.artifactFolder().appendingPathComponent($0).path] } ?? []
            let result = try await runProcess(
                "/usr/bin/python3", [script, "http://127.0.0.1:\(port)", mode, origin, attribution] + path,
                timeout: .seconds(180))
            group.cancelAll()
            return result
        }
    }
}

/// An XYZ tile server for tests: one small PNG (a pale square with a darker top and left edge, so
/// the grid shows) for every `/<z>/<x>/<y>.png` inside the world at that zoom, 404 otherwise; it
/// counts the tiles served. One that `stalls` holds every request for 15 seconds and answers none.
final class TestTileServer: Sendable {
    let served = TileCount()
    let stalls: Bool

    init(stalls: Bool = false) {
        self.stalls = stalls
    }

    actor TileCount {
        private(set) var count = 0
        func add() { count += 1 }
    }

    static let png = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAQAAAAEACAIAAADTED8xAAACDklEQVR42u3TQQ0AIAwEwcquCEQgDAF9IKIIwEEnmTNwyUauDWPF260DMwkAATgCAYAAQAAgABAACAAEAAIAAYAAQAAgABAACAAEAAIAAYAAQAAgABAACAAEAAIAAYAAQAAgABAACAAEAAIAAYAAQAAgABAACAAEAAIAAYAAQAAgABAACAAEAAIAAYAAEIAAEAAIAAQAAgABgABAACAAEAAIAAQAAgABgABAACAAEAAIAAQAAgABgABAACAAEAAIAAQAAgABgABAACAAEAAIAAQAAgABgABAACAAEAAIAAQAAgABgABAACAAEAAIAASAALyAAEAAIAAQAAgABAACAAGAAEAAIAAQAAgABAACAAGAAEAAIAAQAAgABAACAAGAAEAAIAAQAAgABAACAAGAAEAAIAAQAAgABAACAAGAAEAAIAAQAAgABAACAAGAAEAACEAACMARCAAEAAIAAYAAQAAgABAACAAEAAIAAYAAQAAgABAACAAEAAIAAYAAQAAgABAACAAEAAIAAYAAQAAgABAACAAEAAIAAYAAQAAgABAACAAEAAIAAYAAQAAgABAACAAEgAAEgABAACAAEAAIAAQAAgABgABAACAAEAAIAAQAAgABgABAACAAEAAIAAQAAgABgABAACAAEAAIAAQAAgABgABAACAAEAAIAAQAAgABgABAACAAEAAIAAQAPw3SMBE/QM40mwAAAABJRU5ErkJggg=="
    )!

    /// Runs on 127.0.0.1 at a free port (given to `onBound`) until cancelled.
    func run(onBound: @escaping @Sendable (Int) -> Void) async throws {
        let router = Router()
        let log = served
        let stalls = stalls
        router.get(":z/:x/:y") { _, context -> Response in
            if stalls {
                try? await Task.sleep(for: .seconds(15))
                return Response(status: .serviceUnavailable)
            }
            guard let z = context.parameters.get("z", as: Int.self), (0...19).contains(z),
                let x = context.parameters.get("x", as: Int.self),
                let file = context.parameters.get("y"), file.hasSuffix(".png"), let y = Int(file.dropLast(4)),
                (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(y)
            else { return Response(status: .notFound) }
            await log.add()
            return Response(
                status: .ok, headers: [.contentType: "image/png", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: Self.png)))
        }
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { onBound($0.localAddress?.port ?? 0) }, logger: BrowserTests.quietLogger)
        try await application.runService(gracefulShutdownSignals: [])
    }
}
