import BotTesting
import ClassKit
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SQLiteDirectory
import Testing

@testable import OnTheMapApp
@testable import OnTheMapService

/// The viewport index and `/api/map/view.json`, `/api/map/names.json`, `/api/map/table.json`.
@Suite struct MapViewTests {
    struct Area: Decodable, Equatable {
        var count: Int
        var latitude: Double
        var level: String
        var longitude: Double
        var place: String
    }

    struct Cluster: Decodable, Equatable {
        var cell: String
        var count: Int
        var latitude: Double
        var longitude: Double
    }

    struct ViewAnswer: Decodable {
        var areas: [Area]
        var clusters: [Cluster]
        var cursor: String
        var pins: [MapLocationsDocument.Pin]
        var total: Int
        var zoom: Int

        /// Pins the answer accounts for: one by one, in clusters and on places.
        var accounted: Int {
            pins.count + clusters.reduce(0) { $0 + $1.count } + areas.reduce(0) { $0 + $1.count }
        }
    }

    struct Page: Decodable {
        var count: Int
        var page: Int
        var pages: Int
        var pins: [MapLocationsDocument.Pin]
    }

    struct Unchanged: Decodable {
        var cursor: String
        var unchanged: Bool
    }

    /// A gazetteer stand-in: "Germany" is a country's own point and name, "Bavaria, Germany" a
    /// region's; anything else is a city.
    struct Levels: PlaceLevelFinder {
        func levels(near coordinate: Coordinate, minimumPopulation: Int) async -> PlaceLevels? { nil }
        func precision(of coordinate: Coordinate, named name: String) async -> PinPrecision {
            switch name {
            case "Germany": .country
            case "Bavaria, Germany": .region
            default: .city
            }
        }
    }

    static let world = "-180,-90,180,90"

    static func pin(_ id: String, _ name: String, _ place: String, _ lat: Double, _ lon: Double, minutesAgo: Double)
        -> StudentLocation
    {
        MapFixtures.pin(id, name, "Student", place, lat, lon, link: "https://\(id).example/", minutesAgo: minutesAgo)
    }

    /// `count` pins at one city's point, newest first by their number.
    static func crowd(_ prefix: String, count: Int, place: String, _ lat: Double, _ lon: Double) -> [StudentLocation] {
        (0..<count).map { pin("\(prefix)\($0)", "\(prefix.capitalized)\($0)", place, lat, lon, minutesAgo: Double($0)) }
    }

    static func map(
        _ pins: @escaping @Sendable () async -> [StudentLocation], access: MapAccess = .anyone
    ) throws -> WebMap {
        WebMap(
            feed: MapPinFeed(maxAge: .zero, levels: Levels(), now: { MapFixtures.base }, load: { await pins() }),
            geocoder: FixedGeocoder(places: [:]), assets: try WebMap.Assets.bundled(), access: access,
            logger: .init(label: "test"))
    }

    static func get<T: Decodable>(
        _ client: any TestClientProtocol, _ uri: String, as type: T.Type, headers: HTTPFields = [:]
    ) async throws -> T {
        try await client.execute(uri: uri, method: .get, headers: headers) { response in
            #expect(response.status == .ok, "\(uri): \(String(buffer: response.body))")
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(T.self, from: Data(buffer: response.body))
        }
    }

    // MARK: The index

    /// A cell's run of the Morton order holds exactly the pins whose grid position falls in that
    /// cell, at every level a zoom uses.
    @Test func aCellsRunHoldsExactlyItsPins() {
        var generator = SystemRandomNumberGenerator()
        let pins = (0..<2_000).map { number in
            Self.pin(
                "p\(number)", "P\(number)", "Somewhere", Double.random(in: -84...84, using: &generator),
                Double.random(in: -180...179.99, using: &generator), minutesAgo: Double(number))
        }
        let store = PinStore(pins)
        let index = MapViewIndex(
            pins: .init(store: store, slots: store.newestFirst(store.liveSlots), now: MapFixtures.base),
            levels: MapPinLevels())
        #expect(index.pointCount == pins.count)
        for level in [2, 5, 9, 14, 20] {
            var expected: [Int: Int] = [:]
            for slot in store.liveSlots {
                let (column, row) = MapViewIndex.gridPosition(store.coordinate(at: Int(slot)))
                let cell = Int(column >> UInt32(26 - level)) << 32 | Int(row >> UInt32(26 - level))
                expected[cell, default: 0] += 1
            }
            for (cell, count) in expected.prefix(200) {
                let range = index.range(level: level, column: cell >> 32, row: cell & 0xFFFF_FFFF)
                #expect(range.count == count, "level \(level)")
            }
        }
    }

    /// Whatever the zoom, the world's view accounts for every pin exactly once; at the closest
    /// zooms a pin standing alone comes one by one, a crowd at one point stays a count.
    @Test func everyZoomAccountsForEveryPin() async throws {
        let pins =
            Self.crowd("lisbon", count: 40, place: "Lisbon, Portugal", 38.72, -9.14)
            + Self.crowd("berlin", count: 3, place: "Berlin, Germany", 52.52, 13.40)
            + Self.crowd("de", count: 7, place: "Germany", 51.0, 10.0)
            + Self.crowd("by", count: 2, place: "Bavaria, Germany", 48.9, 11.4)
            + [Self.pin("sydney", "Sydney", "Sydney, Australia", -33.87, 151.21, minutesAgo: 99)]
        try await MapFixtures.withMap(try Self.map({ pins })) { client in
            for zoom in [0, 1, 4, 6] {
                let bbox = zoom <= 4 ? Self.world : "-10,35,15,55"
                let view = try await Self.get(
                    client, "/api/map/view.json?bbox=\(bbox)&zoom=\(zoom)", as: ViewAnswer.self)
                #expect(view.total == pins.count)
                #expect(view.zoom == zoom)
                let inside = zoom <= 4 ? pins.count : pins.count - 1
                #expect(view.accounted == inside, "zoom \(zoom)")
                // Region- and country-level pins are counted on their place, never sent as points.
                #expect(!view.pins.contains { $0.place == "Germany" || $0.place == "Bavaria, Germany" })
                #expect(
                    view.areas.sorted { $0.place < $1.place }
                        == [
                            Area(count: 2, latitude: 48.9, level: "region", longitude: 11.4, place: "Bavaria, Germany"),
                            Area(count: 7, latitude: 51, level: "country", longitude: 10, place: "Germany"),
                        ])
            }
            let far = try await Self.get(client, "/api/map/view.json?bbox=\(Self.world)&zoom=0", as: ViewAnswer.self)
            #expect(far.pins.map(\.id) == ["sydney"])
            let close = try await Self.get(
                client, "/api/map/view.json?bbox=-9.2,38.7,-9.1,38.75&zoom=14", as: ViewAnswer.self)
            #expect(close.pins.isEmpty)
            #expect(close.clusters.map(\.count) == [40])
            let berlin = try await Self.get(
                client, "/api/map/view.json?bbox=13.3,52.4,13.5,52.6&zoom=13", as: ViewAnswer.self)
            #expect(Set(berlin.pins.map(\.id)) == ["berlin0", "berlin1", "berlin2"])
            #expect(berlin.clusters.isEmpty)
        }
    }

    /// A viewport across the antimeridian (west greater than east) covers both sides.
    @Test func aViewportMayCrossTheAntimeridian() async throws {
        let pins = [
            Self.pin("fiji", "Fiji", "Suva, Fiji", -18.14, 178.44, minutesAgo: 1),
            Self.pin("samoa", "Samoa", "Apia, Samoa", -13.83, -171.76, minutesAgo: 2),
            Self.pin("lima", "Lima", "Lima, Peru", -12.05, -77.04, minutesAgo: 3),
        ]
        try await MapFixtures.withMap(try Self.map({ pins })) { client in
            let view = try await Self.get(
                client, "/api/map/view.json?bbox=170,-30,-160,0&zoom=3", as: ViewAnswer.self)
            #expect(Set(view.pins.map(\.id)) == ["fiji", "samoa"])
        }
    }

    // MARK: Names and table pages

    /// A city's cluster lists its names a page at a time, newest first, each page different, and
    /// together every pin of the cell; a place's list does the same.
    @Test func aClustersNamesComePaged() async throws {
        let pins =
            Self.crowd("lisbon", count: 120, place: "Lisbon, Portugal", 38.72, -9.14)
            + Self.crowd("de", count: 3, place: "Germany", 51.0, 10.0)
        try await MapFixtures.withMap(try Self.map({ pins })) { client in
            let view = try await Self.get(
                client, "/api/map/view.json?bbox=-9.2,38.7,-9.1,38.75&zoom=14", as: ViewAnswer.self)
            let cell = try #require(view.clusters.first?.cell)
            var seen: [String] = []
            for page in 0..<3 {
                let names = try await Self.get(
                    client, "/api/map/names.json?cell=\(cell)&page=\(page)", as: Page.self)
                #expect(names.count == 120 && names.pages == 3 && names.page == page)
                #expect(names.pins.count == (page < 2 ? 50 : 20))
                seen += names.pins.map(\.id)
            }
            #expect(seen == (0..<120).map { "lisbon\($0)" })
            let past = try await Self.get(client, "/api/map/names.json?cell=\(cell)&page=3", as: Page.self)
            #expect(past.pins.isEmpty)
            let germany = try await Self.get(client, "/api/map/names.json?place=Germany", as: Page.self)
            #expect(germany.pins.map(\.id) == ["de0", "de1", "de2"])
            #expect(germany.pins.first?.link == "https://de0.example/")
        }
    }

    /// The Table tab's pages: 100 rows each, newest first across pages.
    @Test func theTablePagesThroughTheClass() async throws {
        let pins = (0..<250).map {
            Self.pin("t\($0)", "T\($0)", "Porto", 41.15 + Double($0) / 1000, -8.61, minutesAgo: Double($0))
        }
        try await MapFixtures.withMap(try Self.map({ pins.shuffled() })) { client in
            var ids: [String] = []
            for page in 0..<3 {
                let rows = try await Self.get(client, "/api/map/table.json?page=\(page)", as: Page.self)
                #expect(rows.count == 250 && rows.pages == 3)
                ids += rows.pins.map(\.id)
            }
            #expect(ids == (0..<250).map { "t\($0)" })
        }
    }

    /// A `#pin=` link's pin is found by its id; an id the class does not have is a 404 with a
    /// sentence.
    @Test func aPinIsFoundByItsId() async throws {
        try await MapFixtures.withMap(try Self.map({ MapFixtures.pins })) { client in
            struct One: Decodable { var pin: MapLocationsDocument.Pin }
            let ada = try await Self.get(client, "/api/map/pin.json?id=a", as: One.self)
            #expect(ada.pin.name == "Ada Lovelace" && ada.pin.latitude == 51.5)
            for uri in ["/api/map/pin.json?id=nobody", "/api/map/pin.json"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .notFound, "\(uri)")
                    #expect(String(buffer: response.body).contains("There is no pin with that id"))
                }
            }
        }
    }

    // MARK: Updates

    /// A poll with the view's cursor gets a few bytes while nothing changed, and the whole view
    /// again once a pin moved.
    @Test func aPollWhileNothingChangedIsSmall() async throws {
        let source = MapSinceTests.Pins(MapFixtures.pins)
        try await MapFixtures.withMap(try Self.map({ await source.pins })) { client in
            let uri = "/api/map/view.json?bbox=\(Self.world)&zoom=2"
            let first = try await Self.get(client, uri, as: ViewAnswer.self)
            try await client.execute(uri: uri + "&since=\(first.cursor)", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.body.readableBytes < 100)
                let idle = try JSONDecoder().decode(Unchanged.self, from: Data(buffer: response.body))
                #expect(idle.unchanged && idle.cursor == first.cursor)
            }
            var moved = MapFixtures.pins[0]
            moved.coordinate = Coordinate(latitude: -33.87, longitude: 151.21)
            moved.updatedAt = moved.updatedAt.addingTimeInterval(60)
            await source.set([moved] + MapFixtures.pins.dropFirst())
            let after = try await Self.get(client, uri + "&since=\(first.cursor)", as: ViewAnswer.self)
            #expect(after.cursor != first.cursor)
            #expect(after.pins.contains { $0.id == moved.objectId && $0.latitude == -33.87 })
        }
    }

    // MARK: Bad input

    /// Every malformed or oversized request is a 400 with a sentence, and the view after it is
    /// what it was before.
    @Test func badInputIsRefusedPlainly() async throws {
        try await MapFixtures.withMap(try Self.map({ MapFixtures.pins })) { client in
            let good = "/api/map/view.json?bbox=\(Self.world)&zoom=2"
            let before = try await Self.get(client, good, as: ViewAnswer.self)
            let cases: [(String, String)] = [
                ("/api/map/view.json?zoom=2", "bbox must be four numbers"),
                ("/api/map/view.json?bbox=1,2,3&zoom=2", "bbox must be four numbers"),
                ("/api/map/view.json?bbox=-200,-10,10,10&zoom=2", "bbox must be four numbers"),
                ("/api/map/view.json?bbox=-10,10,10,-10&zoom=2", "bbox must be four numbers"),
                ("/api/map/view.json?bbox=-10,-95,10,10&zoom=2", "bbox must be four numbers"),
                ("/api/map/view.json?bbox=nan,1,2,3&zoom=2", "bbox must be four numbers"),
                ("/api/map/view.json?bbox=a,b,c,d&zoom=2", "bbox must be four numbers"),
                ("/api/map/view.json?bbox=\(Self.world)", "zoom must be a whole number from 0 to 18"),
                ("/api/map/view.json?bbox=\(Self.world)&zoom=19", "zoom must be a whole number from 0 to 18"),
                ("/api/map/view.json?bbox=\(Self.world)&zoom=-1", "zoom must be a whole number from 0 to 18"),
                ("/api/map/view.json?bbox=\(Self.world)&zoom=2.5", "zoom must be a whole number from 0 to 18"),
                ("/api/map/view.json?bbox=\(Self.world)&zoom=10", "more than 4,096 cells"),
                ("/api/map/view.json?bbox=\(Self.world)&zoom=2&since=yesterday", "not a cursor this map gave out"),
                ("/api/map/view.json?bbox=\(Self.world)&zoom=2&since=0badcafe-x", "not a cursor this map gave out"),
                (
                    "/api/map/view.json?bbox=\(Self.world)&zoom=2&pad=" + String(repeating: "x", count: 1_100),
                    "at most 1,024 bytes"
                ),
                ("/api/map/names.json", "cell=level-column-row"),
                ("/api/map/names.json?cell=1-0-0", "cell=level-column-row"),
                ("/api/map/names.json?cell=4-16-0", "cell=level-column-row"),
                ("/api/map/names.json?cell=x", "cell=level-column-row"),
                ("/api/map/names.json?cell=4-1-1&page=-1", "page must be a whole number"),
                ("/api/map/table.json?page=two", "page must be a whole number"),
            ]
            for (uri, sentence) in cases {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .badRequest, "\(uri)")
                    let body = String(buffer: response.body)
                    #expect(body.contains(sentence), "\(uri): \(body)")
                    #expect(!body.contains("Lovelace"))
                }
            }
            // A cursor from the future of this map is no cursor it gave out.
            let parts = before.cursor.split(separator: "-")
            try await client.execute(
                uri: good + "&since=\(parts[0])-\(Int(parts[1])! + 5)-\(parts[2])", method: .get
            ) { response in
                #expect(response.status == .badRequest)
            }
            let after = try await Self.get(client, good, as: ViewAnswer.self)
            #expect(after.cursor == before.cursor && after.accounted == before.accounted)
        }
    }

    // MARK: Who may read

    /// On a class map every viewport, names, table and pin answer needs a signed-in browser: without
    /// a session it is 401 with no name in it; with one, the pins.
    @Test func aClassMapsViewNeedsASession() async throws {
        let folder = try TemporaryDirectory(prefix: "map-view-access")
        let accounts = try SQLiteStudentDirectory(path: folder.file("class.sqlite"))
        _ = try await accounts.addAccount(
            email: "jane@class.test", password: "jane-Secret-Pw-1", firstName: "Jane", lastName: "Doe")
        let session = try await accounts.logIn(email: "jane@class.test", password: "jane-Secret-Pw-1")
        let access = MapAccess(visibility: .class, accounts: accounts, signInLinks: nil)
        let pins = Self.crowd("lisbon", count: 30, place: "Lisbon, Portugal", 38.72, -9.14)
        try await MapFixtures.withMap(try Self.map({ pins }, access: access)) { client in
            let uris = [
                "/api/map/view.json?bbox=\(Self.world)&zoom=0", "/api/map/names.json?cell=2-1-1",
                "/api/map/table.json", "/api/map/pin.json?id=lisbon0",
            ]
            for uri in uris {
                for headers: HTTPFields in [[:], [.authorization: "Bearer not-a-session"]] {
                    try await client.execute(uri: uri, method: .get, headers: headers) { response in
                        #expect(response.status == .unauthorized, "\(uri)")
                        #expect(!String(buffer: response.body).contains("Lisbon"))
                    }
                }
            }
            let signedIn: HTTPFields = [.authorization: "Bearer \(session.sessionId)"]
            let view = try await Self.get(client, uris[0], as: ViewAnswer.self, headers: signedIn)
            #expect(view.accounted == 30)
            let table = try await Self.get(client, uris[2], as: Page.self, headers: signedIn)
            #expect(table.count == 30)
        }
    }

    // MARK: Compression

    /// With `Accept-Encoding: gzip` a large answer and the page's scripts, style and basemap come
    /// gzip-compressed and read back as the same bytes; without it, plain.
    @Test func answersAreGzippedWhenTheBrowserAcceptsIt() async throws {
        let pins = (0..<300).map {
            Self.pin("t\($0)", "T\($0)", "Porto", 41.15 + Double($0) / 1000, -8.61, minutesAgo: Double($0))
        }
        try await MapFixtures.withMap(try Self.map({ pins })) { client in
            let uri = "/api/map/table.json"
            let plain = try await client.execute(uri: uri, method: .get) { response in
                #expect(response.headers[.contentEncoding] == nil)
                return Data(buffer: response.body)
            }
            let compressed = try await client.execute(
                uri: uri, method: .get, headers: [.acceptEncoding: "gzip, deflate, br"]
            ) { response in
                #expect(response.headers[.contentEncoding] == "gzip")
                #expect(response.headers[.vary] == "Accept-Encoding")
                return Data(buffer: response.body)
            }
            #expect(compressed.count < plain.count / 3)
            #expect(try Self.gunzip(compressed) == plain)
            // The page's own files too.
            for file in ["/map/app.js", "/map/basemap.json", "/map/app.css"] {
                let raw = try await client.execute(uri: file, method: .get) { Data(buffer: $0.body) }
                let zipped = try await client.execute(
                    uri: file, method: .get, headers: [.acceptEncoding: "gzip"]
                ) { response in
                    #expect(response.headers[.contentEncoding] == "gzip", "\(file)")
                    return Data(buffer: response.body)
                }
                #expect(try Self.gunzip(zipped) == raw, "\(file)")
            }
        }
        #expect(HTTPCompression.acceptsGzip("gzip"))
        #expect(HTTPCompression.acceptsGzip("br;q=1.0, gzip;q=0.8, *;q=0.1"))
        #expect(HTTPCompression.acceptsGzip("*"))
        #expect(!HTTPCompression.acceptsGzip("gzip;q=0"))
        #expect(!HTTPCompression.acceptsGzip("identity"))
        #expect(!HTTPCompression.acceptsGzip("*, gzip;q=0"))
    }

    /// `data` decompressed by the system's gzip (an implementation other than the one tested).
    static func gunzip(_ data: Data) throws -> Data {
        let folder = try TemporaryDirectory(prefix: "map-gzip")
        let file = folder.file("answer.gz")
        try data.write(to: URL(fileURLWithPath: file))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-dc", file]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return text
    }
}
