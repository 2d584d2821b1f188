import BotTesting
import ClassKit
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
import SQLiteDirectory
import Testing

@testable import OnTheMapApp
@testable import OnTheMapService

/// The map as a picture (`/map.png`): the PNG encoder, the basemap's path, the projection the
/// page uses, what is drawn where, who sees the class's pins, and the cache.
@Suite struct MapPictureTests {
    /// The page's colours the checks look for (app.css).
    static let sea: UInt32 = 0xCFE6F3
    static let land: UInt32 = 0xF3EFE4
    static let pinHead: UInt32 = 0xE2463C

    /// A cluster's disc over land: app.css's `#02739a` at opacity .92 over `#f3efe4`.
    static let clusterOverLand: UInt32 = {
        let mixed = MapPicture.Palette.cluster.mixed(over: MapPicture.Palette.land, amount: 0.92)
        return UInt32(mixed.red) << 16 | UInt32(mixed.green) << 8 | UInt32(mixed.blue)
    }()

    static func pixel(of coordinate: Coordinate) -> (x: Int, y: Int) {
        let spot = MapPicture.position(of: coordinate)
        return (Int(spot.x.rounded(.down)), Int(spot.y.rounded(.down)))
    }

    static func outline() throws -> BasemapOutline {
        try BasemapOutline(basemapJSON: try WebMap.Assets.bundled().basemap)
    }

    // MARK: PNG

    /// A picture with every byte value in it comes back pixel for pixel through an independent
    /// reader: the signature, IHDR, IDAT, IEND in that order, each chunk's CRC right, the size.
    @Test func aPNGReadsBackAsTheSamePixels() throws {
        let width = 37
        let height = 23
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for index in pixels.indices {
            // Flat runs, gradients and noise: every filter gets chosen somewhere.
            let row = index / (width * 3)
            pixels[index] = row < 8 ? 200 : row < 16 ? UInt8(index % 256) : UInt8((index * 7919) % 251)
        }
        let file = try #require(PNGEncoder.encode(rgb: pixels, width: width, height: height))
        #expect(Array(file.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let read = try PNGReader(Data(file))
        #expect(read.chunkTypes == ["IHDR", "IDAT", "IEND"])
        #expect(read.width == width && read.height == height)
        #expect(read.pixels == pixels)
        // A flipped bit is caught by the chunk's CRC.
        var damaged = file
        damaged[45] ^= 0x10
        #expect(throws: PNGReader.Failure.self) { try PNGReader(Data(damaged)) }
        // Sizes that do not match the pixels give no file.
        #expect(PNGEncoder.encode(rgb: pixels, width: width + 1, height: height) == nil)
        #expect(PNGEncoder.encode(rgb: [], width: 0, height: 0) == nil)
    }

    // MARK: The basemap

    /// The path reader follows moves, relative and absolute lines, H and V, and closes; it refuses
    /// what it cannot follow with the offset; the shipped basemap gives every country's rings.
    @Test func theBasemapsPathIsRead() throws {
        let rings = try BasemapOutline.rings(of: "M10 20l5 0 0 5-5 0zM100,100L110 100V110H100Z m1 1 l2 0 0 2z")
        #expect(rings.count == 3)
        #expect(rings[0].map { [$0.x, $0.y] } == [[10, 20], [15, 20], [15, 25], [10, 25]])
        #expect(rings[1].map { [$0.x, $0.y] } == [[100, 100], [110, 100], [110, 110], [100, 110]])
        // A relative move after a close starts from the closed ring's first point.
        #expect(rings[2].map { [$0.x, $0.y] } == [[101, 101], [103, 101], [103, 103]])
        #expect(throws: BasemapOutline.Malformed(offset: 3)) { try BasemapOutline.rings(of: "M10") }
        #expect(throws: BasemapOutline.Malformed(offset: 4)) { try BasemapOutline.rings(of: "M1 2C3 4 5 6 7 8") }
        #expect(throws: BasemapOutline.Malformed(offset: 0)) { try BasemapOutline.rings(of: "10 20") }
        let outline = try Self.outline()
        #expect(outline.width == 3600 && outline.height == 1800)
        // Natural Earth's 1:110m countries, islands included.
        #expect(outline.rings.count > 250)
        let points = outline.rings.joined()
        #expect(points.allSatisfy { (0...3600).contains($0.x) && (0...1800).contains($0.y) })
    }

    // MARK: The projection

    /// The picture is the page's first view of the offline map in a 1200 × 630 window: app.js's
    /// plate projection (`UNIT` 10), scaled by its `minScale` and centred by its `clampView`,
    /// clusters asked for at its `currentZoom`. Read from the shipped script, so that a change
    /// there fails here.
    @Test func thePictureProjectsAsThePageDoes() throws {
        let folder = try WebMap.Assets.bundledFolder()
        let script = try String(contentsOf: folder.appendingPathComponent("app.js"), encoding: .utf8)
        #expect(script.contains("var UNIT = 10;"))
        #expect(script.contains("name: 'plate', W: 3600, H: 1800,"))
        #expect(script.contains("return { x: (lon + 180) * UNIT, y: (90 - lat) * UNIT };"))
        #expect(script.contains("return Math.min(s.w / proj.W, s.h / proj.H);"))
        #expect(script.contains("view.ty = mh <= s.h ? (s.h - mh) / 2"))
        #expect(script.contains("Math.floor(Math.log(world / 256) / Math.LN2)"))
        let basemap = try String(contentsOf: folder.appendingPathComponent("basemap.json"), encoding: .utf8)
        #expect(basemap.contains("\"projection\":\"equirectangular; x = (lon + 180) * 10, y = (90 - lat) * 10\""))

        // The page's arithmetic, written out for a 1200 × 630 window.
        let k = min(1200.0 / 3600, 630.0 / 1800)
        let tx = (1200 - 3600 * k) / 2
        let ty = (630 - 1800 * k) / 2
        for (latitude, longitude) in [(0.0, 0.0), (38.72, -9.14), (-33.87, 151.21), (90, -180), (-90, 180)] {
            let spot = MapPicture.position(of: Coordinate(latitude: latitude, longitude: longitude))
            #expect(abs(spot.x - ((longitude + 180) * 10 * k + tx)) < 1e-9)
            #expect(abs(spot.y - ((90 - latitude) * 10 * k + ty)) < 1e-9)
        }
        #expect(MapPicture.zoom == Int((log2(3600 * k / 256)).rounded(.down)))
        #expect(MapPicture.zoom == 2)
    }

    // MARK: What is drawn

    static func index(of pins: [StudentLocation]) async throws -> (MapViewIndex, MapPinFeed.Pins) {
        let feed = MapPinFeed(maxAge: .zero, levels: MapViewTests.Levels(), now: { MapFixtures.base }, load: { pins })
        let (index, shown, _) = try await feed.view()
        return (index, shown)
    }

    /// Ocean is the page's sea, the middle of Australia its land, a cluster of 40 in Siberia a
    /// cluster's blue with its count, a lone pin in the Pacific's Hawaii a pin's red head; a
    /// country-level place is a count, not a pin on its centre.
    @Test func seaLandClustersAndPinsAreWhereThePageDrawsThem() async throws {
        var pins = MapViewTests.crowd("tura", count: 40, place: "Tura, Russia", 64.27, 100.22)
        pins.append(MapViewTests.pin("hawaii", "Lone", "Hilo, Hawaii", 19.72, -155.08, minutesAgo: 100))
        pins += MapViewTests.crowd("de", count: 12, place: "Germany", 51.0, 10.0)
        let (index, shown) = try await Self.index(of: pins)
        let canvas = MapPicture.draw(.clusters(index, shown), outline: try Self.outline())
        let file = try #require(PNGEncoder.encode(rgb: canvas.pixels, width: canvas.width, height: canvas.height))
        let picture = try PNGReader(Data(file))
        #expect(picture.width == 1200 && picture.height == 630)

        let pacific = Self.pixel(of: Coordinate(latitude: -20, longitude: -130))
        #expect(picture.colour(x: pacific.x, y: pacific.y) == Self.sea)
        let australia = Self.pixel(of: Coordinate(latitude: -25, longitude: 133))
        #expect(picture.colour(x: australia.x, y: australia.y) == Self.land)

        // The cluster's disc below its count (the digits are 14 pixels tall around the centre).
        let siberia = Self.pixel(of: Coordinate(latitude: 64.27, longitude: 100.22))
        #expect(picture.colour(x: siberia.x, y: siberia.y + 12) == Self.clusterOverLand)
        #expect(picture.colour(x: siberia.x - 12, y: siberia.y) == Self.clusterOverLand)
        // Its count, "40", in white: some of the digits' cells are white.
        var white = 0
        for dy in -7..<7 {
            for dx in -6..<6 where picture.colour(x: siberia.x + dx, y: siberia.y + dy) == 0xFFFFFF { white += 1 }
        }
        #expect(white > 20)

        // The lone pin: its head 14 pixels above the point.
        let hilo = Self.pixel(of: Coordinate(latitude: 19.72, longitude: -155.08))
        #expect(picture.colour(x: hilo.x, y: hilo.y - 14) == Self.pinHead)

        // Germany's twelve: a place's pill (app.css's #fff8e1 at opacity .95), and no pin or cluster
        // on the country's centre.
        let germany = Self.pixel(of: Coordinate(latitude: 51.0, longitude: 10.0))
        #expect(picture.count(near: Self.mix(0xFFF8E1, over: Self.land, 0.95), tolerance: 6) > 200)
        var marked = 0
        for dy in -30..<30 {
            for dx in -30..<30 {
                let colour = picture.colour(x: germany.x + dx, y: germany.y + dy)
                if colour == Self.pinHead || colour == Self.clusterOverLand { marked += 1 }
            }
        }
        #expect(marked == 0)
    }

    static func mix(_ top: UInt32, over bottom: UInt32, _ amount: Double) -> UInt32 {
        let mixed = RasterCanvas.Colour(top).mixed(over: RasterCanvas.Colour(bottom), amount: amount)
        return UInt32(mixed.red) << 16 | UInt32(mixed.green) << 8 | UInt32(mixed.blue)
    }

    /// Counts are written as the page would read them, never more than they are; a total is whole.
    @Test func countsAreAbbreviatedDownward() {
        let cases: [(Int, String)] = [
            (1, "1"), (999, "999"), (1_000, "1k"), (1_234, "1.2k"), (1_299, "1.2k"), (9_999, "9.9k"),
            (12_345, "12k"), (999_999, "999k"), (1_000_000, "1M"), (1_250_000, "1.2M"), (42_000_000, "42M"),
        ]
        for (count, text) in cases {
            #expect(PictureFont.abbreviated(count) == text, "\(count)")
            #expect(text.allSatisfy { PictureFont.glyph($0) != nil }, "\(text)")
        }
        #expect(PictureFont.grouped(1_234_567) == "1\u{2009}234\u{2009}567")
        #expect(PictureFont.grouped(999) == "999")
        #expect("ON THE MAP".allSatisfy { PictureFont.glyph($0) != nil })
    }

    // MARK: Who sees what, and the cache

    /// Pins that can change between requests.
    final class Pins: Sendable {
        private let box: NIOLockedValueBox<[StudentLocation]>
        init(_ pins: [StudentLocation]) { box = NIOLockedValueBox(pins) }
        var current: [StudentLocation] { box.withLockedValue { $0 } }
        func set(_ pins: [StudentLocation]) { box.withLockedValue { $0 = pins } }
    }

    static func map(_ pins: Pins, access: MapAccess = .anyone) throws -> WebMap {
        WebMap(
            feed: MapPinFeed(
                maxAge: .zero, levels: MapViewTests.Levels(), now: { MapFixtures.base }, load: { pins.current }),
            geocoder: FixedGeocoder(places: [:]), assets: try WebMap.Assets.bundled(), access: access,
            publicURL: "https://map.class.example/", logger: .init(label: "test"))
    }

    /// Through the listener's own router (HEAD comes with every GET there).
    static func withServer(_ map: WebMap, _ body: @Sendable (any TestClientProtocol) async throws -> Void)
        async throws
    {
        let server = WebMapServer(host: "127.0.0.1", port: 0, webMap: map, logger: .init(label: "test"))
        try await Application(router: server.makeRouter()).test(.router) { client in try await body(client) }
    }

    static func picture(
        _ client: any TestClientProtocol, headers: HTTPFields = [:]
    ) async throws -> (PNGReader, HTTPFields) {
        try await client.execute(uri: "/map.png", method: .get, headers: headers) { response in
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "image/png")
            return (try PNGReader(Data(buffer: response.body)), response.headers)
        }
    }

    /// On a class-only map a request without a live session gets the basemap and no trace of the
    /// class (no cluster's blue, no pin's red anywhere); with a session, the clusters. The two are
    /// different pictures with different tags, kept only by the browser that asked.
    @Test func aClassOnlyMapShowsItsPinsOnlyToTheSignedIn() async throws {
        let folder = try TemporaryDirectory(prefix: "map-picture-access")
        let accounts = try SQLiteStudentDirectory(path: folder.file("class.sqlite"))
        _ = try await accounts.addAccount(
            email: "jane@class.test", password: "jane-Secret-Pw-1", firstName: "Jane", lastName: "Doe")
        let session = try await accounts.logIn(email: "jane@class.test", password: "jane-Secret-Pw-1")
        let access = MapAccess(visibility: .class, accounts: accounts, signInLinks: nil)
        var crowd = MapViewTests.crowd("tura", count: 40, place: "Tura, Russia", 64.27, 100.22)
        crowd.append(MapViewTests.pin("hawaii", "Lone", "Hilo, Hawaii", 19.72, -155.08, minutesAgo: 100))
        let map = try Self.map(Pins(crowd), access: access)
        try await Self.withServer(map) { client in
            let siberia = Self.pixel(of: Coordinate(latitude: 64.27, longitude: 100.22))
            let hilo = Self.pixel(of: Coordinate(latitude: 19.72, longitude: -155.08))
            for headers: HTTPFields in [
                [:], [.authorization: "Bearer not-a-session"], [.cookie: "onthemap_session=not-a-session"],
            ] {
                let (signedOut, answer) = try await Self.picture(client, headers: headers)
                #expect(signedOut.count(near: Self.clusterOverLand, tolerance: 3) == 0)
                #expect(signedOut.count(near: Self.pinHead, tolerance: 3) == 0)
                #expect(signedOut.colour(x: hilo.x, y: hilo.y - 14) == Self.sea)
                #expect(signedOut.colour(x: siberia.x, y: siberia.y + 12) == Self.land)
                #expect(answer[.cacheControl] == "private, no-cache")
                #expect(answer[.vary] == "Cookie, Authorization")
            }
            for headers: HTTPFields in [
                [.authorization: "Bearer \(session.sessionId)"], [.cookie: "onthemap_session=\(session.sessionId)"],
            ] {
                let (signedIn, _) = try await Self.picture(client, headers: headers)
                #expect(signedIn.colour(x: siberia.x, y: siberia.y + 12) == Self.clusterOverLand)
                #expect(signedIn.colour(x: hilo.x, y: hilo.y - 14) == Self.pinHead)
            }
            let (_, answer) = try await Self.picture(client, headers: [.authorization: "Bearer \(session.sessionId)"])
            let (_, signedOutAnswer) = try await Self.picture(client)
            #expect(answer[.eTag] != nil && answer[.eTag] != signedOutAnswer[.eTag])
        }
        // Both pictures were drawn once each, whatever was asked in between.
        #expect(map.pictures.drawingsMade == 2)
    }

    /// Eight requests at once draw the class once; asking again draws nothing; a change of the
    /// pins draws it once more. `If-None-Match` with the current tag gets 304, an old tag the new
    /// picture; HEAD answers the headers alone; a query is refused with a sentence.
    @Test func thePictureIsDrawnOncePerChange() async throws {
        let pins = Pins(MapViewTests.crowd("tura", count: 40, place: "Tura, Russia", 64.27, 100.22))
        let map = try Self.map(pins)
        try await Self.withServer(map) { client in
            let tags = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<8 { group.addTask { try await Self.picture(client).1[.eTag] } }
                var tags: Set<String?> = []
                for try await tag in group { tags.insert(tag) }
                return tags
            }
            #expect(tags.count == 1)
            #expect(map.pictures.drawingsMade == 1)
            let (_, again) = try await Self.picture(client)
            #expect(map.pictures.drawingsMade == 1)
            #expect(again[.cacheControl] == "public, max-age=60")
            let first = try #require(again[.eTag])
            try await client.execute(uri: "/map.png", method: .get, headers: [.ifNoneMatch: first]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }

            pins.set(
                pins.current + [MapViewTests.pin("hawaii", "Lone", "Hilo, Hawaii", 19.72, -155.08, minutesAgo: 100)])
            let (changed, changedAnswer) = try await Self.picture(client, headers: [.ifNoneMatch: first])
            #expect(map.pictures.drawingsMade == 2)
            #expect(changedAnswer[.eTag] != first)
            let hilo = Self.pixel(of: Coordinate(latitude: 19.72, longitude: -155.08))
            #expect(changed.colour(x: hilo.x, y: hilo.y - 14) == Self.pinHead)

            try await client.execute(uri: "/map.png", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.body.readableBytes == 0)
            }
            for query in ["?x=1", "?bbox=-180,-90,180,90", "?v=2&zoom=3"] {
                try await client.execute(uri: "/map.png\(query)", method: .get) { response in
                    #expect(response.status == .badRequest, "\(query)")
                    let answer =
                        try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: String]
                    #expect(answer == ["error": "The map's picture takes no query: ask for /map.png as it is."])
                }
            }
            #expect(map.pictures.drawingsMade == 2)
        }
    }

    // MARK: The page's link preview

    /// The page names its picture for link previews (Open Graph and Twitter card tags) with
    /// absolute addresses from `web.public_url`, every value escaped; without an address of its
    /// own it names no picture; a class-only map says its pins are for the class.
    @Test func thePageCarriesLinkPreviewTags() throws {
        let page = try Self.map(Pins([])).renderPage(focus: nil)
        for tag in [
            "<meta property=\"og:type\" content=\"website\">",
            "<meta property=\"og:title\" content=\"On The Map — the class map\">",
            "<meta property=\"og:url\" content=\"https://map.class.example/\">",
            "<meta property=\"og:image\" content=\"https://map.class.example/map.png\">",
            "<meta property=\"og:image:type\" content=\"image/png\">",
            "<meta property=\"og:image:width\" content=\"1200\">",
            "<meta property=\"og:image:height\" content=\"630\">",
            "<meta property=\"og:image:alt\" content=\"A world map with the class&#39;s students as clusters with counts.\">",
            "<meta name=\"twitter:card\" content=\"summary_large_image\">",
        ] {
            #expect(page.contains(tag), "\(tag)")
        }
        #expect(page.contains("og:description\" content=\"Where everyone in the class is, on one map: clusters"))

        let hostile = WebMap(
            feed: MapPinFeed(maxAge: .zero, load: { [] }), geocoder: FixedGeocoder(places: [:]),
            assets: try WebMap.Assets.bundled(), access: MapAccess(visibility: .class, accounts: nil, signInLinks: nil),
            publicURL: "https://x.example/a\"><script>alert(1)</script>?q=1#f", logger: .init(label: "test"))
        let escaped = hostile.renderPage(focus: nil)
        #expect(!escaped.contains("<script>alert(1)"))
        #expect(
            escaped.contains("content=\"https://x.example/a&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;/map.png\""))
        #expect(escaped.contains("The pins are for the class: sign in to see them."))

        let nowhere = WebMap(
            feed: MapPinFeed(maxAge: .zero, load: { [] }), geocoder: FixedGeocoder(places: [:]),
            assets: try WebMap.Assets.bundled(), access: .anyone, logger: .init(label: "test"))
        let plain = nowhere.renderPage(focus: nil)
        #expect(plain.contains("og:title"))
        #expect(!plain.contains("og:image"))
        #expect(!plain.contains("{{PREVIEW_TAGS}}"))
    }
}
