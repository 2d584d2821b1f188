import BotKit
import BotTesting
import ClassKit
import Foundation
import Hummingbird
import HummingbirdTesting
import OnTheMapApp
import OnTheMapPlugins
import OnTheMapService
import SQLiteDirectory
import Testing

/// Finds one fixed place, and counts how often it was asked.
struct FixedGeocoder: Geocoder {
    var places: [String: PlaceCandidate]

    func geocode(_ query: String, limit: Int) async throws -> [PlaceCandidate] {
        places[query.lowercased()].map { [$0] } ?? []
    }

    static func place(
        _ name: String, _ latitude: Double, _ longitude: Double, match: PlaceMatch = .exact
    ) -> PlaceCandidate {
        PlaceCandidate(
            displayName: name, adminArea: nil, country: nil, countryCode: nil,
            coordinate: Coordinate(latitude: latitude, longitude: longitude), kind: .city, population: 1000,
            match: match)
    }
}

/// Counts loads, for the cache test.
actor LoadCounter {
    private(set) var count = 0
    func hit() { count += 1 }
}

enum MapFixtures {
    static let base = Date(timeIntervalSince1970: 1_780_000_000)

    static func pin(
        _ id: String, _ first: String, _ last: String, _ place: String, _ lat: Double, _ lon: Double,
        link: String, minutesAgo: Double
    ) -> StudentLocation {
        let when = base.addingTimeInterval(-minutesAgo * 60)
        return StudentLocation(
            objectId: id, uniqueKey: "key-\(id)", firstName: first, lastName: last, mapString: place,
            mediaURL: link, coordinate: Coordinate(latitude: lat, longitude: lon), createdAt: when,
            updatedAt: when)
    }

    /// Three pins, deliberately out of order, one with markup in its name and a script link.
    static let pins: [StudentLocation] = [
        pin("b", "Bruno", "Silva", "Lisbon", 38.72, -9.14, link: "https://bruno.example/", minutesAgo: 30),
        pin(
            "x", "<script>alert(1)</script>", "Evil & Co", "<img src=x onerror=alert(2)>", 48.85, 2.35,
            link: "javascript:alert(3)", minutesAgo: 5),
        pin(
            "a", "Ada", "Lovelace", "London", 51.5, -0.12, link: "http://ada.example/notes?x=1&y=2",
            minutesAgo: 60),
    ]

    static func webMap(
        pins: [StudentLocation] = MapFixtures.pins,
        geocoder: any Geocoder = FixedGeocoder(places: [:]), placeLabels: MapPlaceLabels = .none,
        load: MapPinFeed.Load? = nil, access: MapAccess = .anyone,
        timeZones: PinTimeZones = PinTimeZones(finder: nil), now: @escaping @Sendable () -> Date = { MapFixtures.base }
    ) throws -> WebMap {
        let feed = MapPinFeed(maxAge: .zero, timeZones: timeZones, now: now, load: load ?? { pins })
        // Anyone may read these pins unless a test says otherwise: they check the page and the
        // document, not who may read them (the class map's rules have their own tests).
        return WebMap(
            feed: feed, geocoder: geocoder, assets: try WebMap.Assets.bundled(), access: access,
            placeLabels: placeLabels, logger: .init(label: "test"))
    }

    static func withMap(
        _ map: WebMap, _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let router = Router()
        map.addRoutes(to: router)
        try await Application(router: router).test(.router) { client in try await body(client) }
    }
}

@Suite struct WebMapTests {
    /// A class map on a backend without accounts of its own (Udacity): nobody can sign in, so the
    /// pins are refused with the sentence that says so, and a sign-in link opens nothing.
    @Test func aClassMapWithoutLocalAccountsSaysNobodyCanSignIn() async throws {
        let access = MapAccess(visibility: .class, accounts: nil, signInLinks: nil)
        try await MapFixtures.withMap(try MapFixtures.webMap(access: access)) { client in
            try await client.execute(uri: "/api/locations.json", method: .get) { response in
                #expect(response.status == .unauthorized)
                let text = String(buffer: response.body)
                #expect(text.contains("kept by the Udacity service: the web map cannot sign anyone in"), "\(text)")
                #expect(!text.contains("Ada") && !text.contains("Lovelace"))
            }
            try await client.execute(
                uri: "/signin", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: "{\"token\": \"a.b\"}")
            ) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body).contains("cannot sign anyone in"))
                #expect(response.headers[.setCookie] == nil)
            }
        }
    }

    @Test func pageHasBothTabsTheAttributionAndOnlyLocalResources() async throws {
        try await MapFixtures.withMap(try MapFixtures.webMap()) { client in
            for path in ["/", "/map"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                    let csp = try #require(response.headers[.contentSecurityPolicy])
                    #expect(csp.contains("script-src 'self'"))
                    #expect(csp.contains("connect-src 'self'"))
                    let html = String(buffer: response.body)
                    #expect(html.contains("id=\"tab-map\""))
                    #expect(html.contains("id=\"tab-table\""))
                    #expect(html.contains("Natural Earth"))
                    #expect(html.contains("GeoNames"))
                    #expect(html.contains("<script src=\"map/app.js\""))
                    #expect(html.contains("data-poll-seconds=\"15\""))
                    #expect(!html.contains("{{"), "unfilled placeholder")
                    // Nothing is loaded from elsewhere: every src/href of a resource is local.
                    for attribute in ["src=\"http", "src=\"//", "stylesheet\" href=\"http"] {
                        #expect(!html.contains(attribute))
                    }
                }
            }
        }
    }

    @Test func assetsAreServedWithTheirTypesAndThePageStaysSmall() async throws {
        let map = try MapFixtures.webMap()
        try await MapFixtures.withMap(map) { client in
            let expected = [
                ("/map/app.js", "text/javascript; charset=utf-8", "textContent"),
                ("/map/app.css", "text/css; charset=utf-8", ".popup"),
                ("/map/basemap.json", "application/json", "Natural Earth"),
            ]
            for (path, type, marker) in expected {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok, "\(path)")
                    #expect(response.headers[.contentType] == type)
                    #expect(String(buffer: response.body).contains(marker), "\(path)")
                }
            }
        }
        let assets = try WebMap.Assets.bundled()
        #expect(assets.pageWeight <= 150_000, "page weighs \(assets.pageWeight) bytes")
        // The basemap is a real outline: a long path in the 3600 x 1800 box.
        struct Basemap: Decodable {
            var width: Int
            var height: Int
            var path: String
        }
        let basemap = try JSONDecoder().decode(Basemap.self, from: assets.basemap)
        #expect(basemap.width == 3600 && basemap.height == 1800)
        #expect(basemap.path.count > 10_000)
        #expect(basemap.path.filter { $0 == "M" }.count > 100, "one move per country ring")
        // The script never parses data as HTML.
        let script = String(decoding: assets.script, as: UTF8.self)
        #expect(!script.contains("innerHTML"))
        #expect(!script.contains("insertAdjacentHTML"))
        #expect(!script.contains("document.write"))
    }

    @Test func locationsJSONIsNewestFirstWithLinksThatOpenOnlyForHTTP() async throws {
        try await MapFixtures.withMap(try MapFixtures.webMap()) { client in
            try await client.execute(uri: "/api/locations.json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.headers[.cacheControl] == "no-store")
                let document = try MapLocationsDocument.decode(Data(buffer: response.body))
                #expect(document.count == 3)
                #expect(document.pins.map(\.id) == ["x", "b", "a"])
                let byID = Dictionary(uniqueKeysWithValues: document.pins.map { ($0.id, $0) })
                #expect(byID["b"]?.name == "Bruno Silva")
                #expect(byID["b"]?.linkOpens == true)
                #expect(byID["a"]?.link == "http://ada.example/notes?x=1&y=2")
                #expect(byID["a"]?.linkOpens == true)
                #expect(byID["x"]?.linkOpens == false)
                #expect(byID["x"]?.latitude == 48.85)
                #expect(byID["a"]?.updatedAt == MapFixtures.base.addingTimeInterval(-3600))
            }
        }
    }

    @Test func markupInNamesPlacesAndLinksIsInertInTheJSON() async throws {
        try await MapFixtures.withMap(try MapFixtures.webMap()) { client in
            try await client.execute(uri: "/api/locations.json", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(!text.contains("<"))
                #expect(!text.contains(">"))
                #expect(!text.contains("&"))
                #expect(text.contains("\\u003cscript\\u003ealert(1)\\u003c/script\\u003e Evil \\u0026 Co"))
                // Decoded, the text is exactly what the student gave: the page shows it as text.
                let document = try MapLocationsDocument.decode(Data(buffer: response.body))
                let evil = try #require(document.pins.first { $0.id == "x" })
                #expect(evil.name == "<script>alert(1)</script> Evil & Co")
                #expect(evil.place == "<img src=x onerror=alert(2)>")
            }
        }
    }

    @Test func theVersionChangesOnlyWhenThePinsDo() throws {
        func document(_ pins: [StudentLocation]) throws -> MapLocationsDocument {
            try MapLocationsDocument.decode(Data(buffer: MapLocationsDocument.json(locations: pins)))
        }
        let first = try document(MapFixtures.pins)
        #expect(try document(MapFixtures.pins).version == first.version)
        var moved = MapFixtures.pins
        moved[0].updatedAt = moved[0].updatedAt.addingTimeInterval(1)
        #expect(try document(moved).version != first.version)
        let added =
            MapFixtures.pins + [
                MapFixtures.pin(
                    "n", "New", "Pin", "Oslo", 59.9, 10.7, link: "https://n.example", minutesAgo: 1)
            ]
        #expect(try document(added).version != first.version)
    }

    /// The hand-written JSON reads back as what `JSONEncoder` would have written: every field of
    /// every pin, dates to the second in UTC, control characters, quotes, markup and non-ASCII text.
    @Test func theWrittenJSONReadsBackAsJSONEncodersWould() throws {
        var pins = MapFixtures.pins
        pins[0].firstName = "Zoë \"Q\" \\ <b>&</b>\u{01}\t\n"
        pins[0].mapString = "Ålesund / Норвегия 🇳🇴"
        pins[0].updatedAt = Date(timeIntervalSince1970: 951_782_400.75)  // 2000-02-29T00:00:00Z
        pins[1].updatedAt = Date(timeIntervalSince1970: -1)  // 1969-12-31T23:59:59Z
        pins[1].coordinate = Coordinate(latitude: 2, longitude: -0.000_01)
        let text = String(buffer: MapLocationsDocument.json(locations: pins, cursor: "abc-1"))
        #expect(!text.contains("<") && !text.contains(">") && !text.contains("&"))
        #expect(text.contains("\"updatedAt\":\"2000-02-29T00:00:00Z\""))
        #expect(text.contains("\"updatedAt\":\"1969-12-31T23:59:59Z\""))
        let document = try MapLocationsDocument.decode(Data(text.utf8))
        #expect(document.cursor == "abc-1")
        #expect(document.count == pins.count)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        for (written, pin) in zip(document.pins, pins) {
            #expect(written.id == pin.objectId)
            #expect(written.name == pin.fullName)
            #expect(written.place == pin.mapString)
            #expect(written.link == pin.mediaURL)
            #expect(written.linkOpens == MapLocationsDocument.isWebLink(pin.mediaURL))
            #expect(written.latitude == pin.coordinate.latitude && written.longitude == pin.coordinate.longitude)
            let viaEncoder = try decoder.decode(Date.self, from: encoder.encode(pin.updatedAt))
            #expect(written.updatedAt == viaEncoder)
        }
        let changes = try MapLocationsChanges.decode(
            Data(
                buffer: MapLocationsChanges.json(
                    since: "abc-1", cursor: "abc-2", count: 9, changed: [pins[0]], removed: ["x\"y", "z"])))
        #expect(changes.since == "abc-1" && changes.cursor == "abc-2" && changes.count == 9)
        #expect(changes.changed.map(\.name) == [pins[0].fullName])
        #expect(changes.removed == ["x\"y", "z"])
    }

    @Test(arguments: [
        ("https://example.org/me", true), ("http://example.org", true), ("HTTPS://EXAMPLE.ORG/x", true),
        ("javascript:alert(1)", false), ("data:text/html,hi", false), ("ftp://example.org", false),
        ("example.org", false), ("", false), ("https://", false), (" https://example.org", false),
        ("https://exa mple.org", false), ("mailto:a@b.c", false),
    ])
    func onlyHTTPLinksOpen(link: String, opens: Bool) {
        #expect(MapLocationsDocument.isWebLink(link) == opens, "\(link)")
    }

    @Test func focusOnCoordinatesOrAPlaceIsEscapedIntoThePage() async throws {
        let geocoder = FixedGeocoder(places: [
            "lisbon": FixedGeocoder.place("Lisbon, Portugal", 38.72, -9.14),
            "<b>x</b>": FixedGeocoder.place("<b>\"Bold\" & 'co'</b>", 10, 20),
            "seatle": FixedGeocoder.place("Seattle, Washington, United States", 47.61, -122.33, match: .approximate),
            "online": FixedGeocoder.place("Houplines, Hauts-de-France, France", 50.69, 2.91),
        ])
        try await MapFixtures.withMap(try MapFixtures.webMap(geocoder: geocoder)) { client in
            // A near spelling centres the map with a question, never as the place asked for.
            try await client.execute(uri: "/?focus=Seatle", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(html.contains("data-focus-lat=\"47.61\" data-focus-lon=\"-122.33\""))
                #expect(html.contains("data-focus-label=\"Did you mean Seattle, Washington, United States?\""))
            }
            // A word that is not a place centres nothing, whatever a geocoder would make of it.
            try await client.execute(uri: "/?focus=online", method: .get) { response in
                #expect(!String(buffer: response.body).contains("data-focus-lat"))
            }
            try await client.execute(uri: "/?focus=12.5,-70.25", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(html.contains("data-focus-lat=\"12.5\" data-focus-lon=\"-70.25\""))
            }
            try await client.execute(uri: "/?focus=Lisbon", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(html.contains("data-focus-lat=\"38.72\" data-focus-lon=\"-9.14\""))
                #expect(html.contains("data-focus-label=\"Lisbon, Portugal\""))
            }
            try await client.execute(uri: "/map?focus=%3Cb%3Ex%3C%2Fb%3E", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(
                    html.contains(
                        "data-focus-label=\"&lt;b&gt;&quot;Bold&quot; &amp; &#39;co&#39;&lt;/b&gt;\""))
                #expect(!html.contains("<b>"))
            }
            for unknown in ["/?focus=Atlantis", "/?focus=95,10", "/?focus=", "/"] {
                try await client.execute(uri: unknown, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(!String(buffer: response.body).contains("data-focus-lat"), "\(unknown)")
                }
            }
        }
    }

    @Test func mapCommandLinksCentreThePage() async throws {
        #expect(
            MapPlugin.focusLink(base: "http://localhost:8080", focus: "São Paulo & co")
                == "http://localhost:8080?focus=S%C3%A3o%20Paulo%20%26%20co")
        #expect(
            MapPlugin.focusLink(base: "https://x.example/map?lang=en", focus: "Lima")
                == "https://x.example/map?lang=en&focus=Lima")
        #expect(MapPlugin.focusLink(base: nil, coordinate: Coordinate(latitude: 1, longitude: 2)) == nil)
        let link = try #require(
            MapPlugin.focusLink(
                base: "http://127.0.0.1:8080/",
                coordinate: Coordinate(latitude: 38.722_31, longitude: -9.139_34)))
        #expect(link == "http://127.0.0.1:8080/?focus=38.7223,-9.1393")
        let geocoder = FixedGeocoder(places: [
            "são paulo & co": FixedGeocoder.place("São Paulo, Brazil", -23.55, -46.63)
        ])
        try await MapFixtures.withMap(try MapFixtures.webMap(geocoder: geocoder)) { client in
            for (link, expected) in [
                (link, "data-focus-lat=\"38.7223\" data-focus-lon=\"-9.1393\""),
                (
                    MapPlugin.focusLink(base: "/", focus: "São Paulo & co"),
                    "data-focus-label=\"São Paulo, Brazil\""
                ),
            ] {
                let path = link.replacingOccurrences(of: "http://127.0.0.1:8080", with: "")
                try await client.execute(uri: path, method: .get) { response in
                    #expect(String(buffer: response.body).contains(expected), "\(path)")
                }
            }
        }
    }

    @Test func mapCommandWithAPlaceLinksTheFocusedPage() async throws {
        let folder = try TemporaryDirectory(prefix: "webmap-plugin")
        let directory = try SQLiteStudentDirectory(path: folder.file("class.sqlite"))
        // A public class: the links themselves are checked here (a class map's private !map adds a
        // sign-in link, see ClassVisibilityTests).
        let services = ClassServices(
            directory: directory, trips: directory, geocoder: FixedGeocoder(places: [:]), places: nil,
            settings: ClassSettings(webMapURL: "http://map.class.example/", privacy: PrivacyPolicy(visibility: .public))
        )
        let bot = TestBot(plugins: [MapPlugin(services: .init(services))])
        #expect(
            await bot.dm("!map", as: "bob").map(\.text) == [
                "The class map: http://map.class.example/ — as a picture: http://map.class.example/map.png"
            ])
        #expect(
            await bot.dm("!map São Paulo", as: "bob").map(\.text)
                == ["The class map around São Paulo: http://map.class.example/?focus=S%C3%A3o%20Paulo"])
    }

    @Test func aDirectoryOutageIsA503WithAReadableError() async throws {
        let map = try MapFixtures.webMap(load: { throw ServiceError.networkUnreachable("<down>") })
        try await MapFixtures.withMap(map) { client in
            try await client.execute(uri: "/api/locations.json", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                let text = String(buffer: response.body)
                #expect(text.hasPrefix("{\"error\":"))
                #expect(!text.contains("<"))
                let body =
                    try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: String]
                #expect(body?["error"]?.isEmpty == false)
            }
        }
    }

    @Test func theFeedKeepsAnAnswerForItsMaxAgeAndTrimsToTheLimit() async throws {
        let counter = LoadCounter()
        let many = (0..<120).map {
            MapFixtures.pin("p\($0)", "N\($0)", "", "P", 0, Double($0), link: "", minutesAgo: Double($0))
        }
        let feed = MapPinFeed(limit: 100, maxAge: .seconds(60)) {
            await counter.hit()
            return many.reversed()
        }
        let first = try await feed.pins()
        let second = try await feed.pins()
        #expect(first.count == 100)
        #expect(first.first?.objectId == "p0", "newest first")
        #expect(first == second)
        #expect(await counter.count == 1)

        let fresh = MapPinFeed(maxAge: .zero) {
            await counter.hit()
            return many
        }
        _ = try await fresh.pins()
        _ = try await fresh.pins()
        #expect(await counter.count == 3)
    }

    /// The class map's listener serves the map and its JSON and nothing of the operator's; the
    /// operator's serves `/healthz` and `/metrics` and nothing of the map.
    @Test func theMapAndTheOperatorListenersServeOnlyTheirOwnRoutes() async throws {
        let health = HealthReport(
            irc: .init(registered: true, nick: "MapBot", channels: []),
            backend: .init(name: "sqlite", reachable: true))
        let operatorServer = OperatorHTTPServer(
            host: "127.0.0.1", port: 0, health: { health }, registry: TestMetrics.registry,
            logger: .init(label: "t"))
        try await Application(router: operatorServer.makeRouter()).test(.router) { client in
            for path in ["/api/locations.json", "/", "/map", "/map/app.js"] {
                try await client.execute(uri: path, method: .get) { #expect($0.status == .notFound, "\(path)") }
            }
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/metrics", method: .get) { #expect($0.status == .ok) }
        }
        let map = WebMapServer(host: "127.0.0.1", port: 0, webMap: try MapFixtures.webMap(), logger: .init(label: "t"))
        try await Application(router: map.makeRouter()).test(.router) { client in
            try await client.execute(uri: "/api/locations.json", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/", method: .get) { #expect($0.status == .ok) }
            for path in ["/healthz", "/metrics"] {
                try await client.execute(uri: path, method: .get) { #expect($0.status == .notFound, "\(path)") }
            }
        }
    }
}
