import Foundation
import Hummingbird
import HummingbirdTesting
import OnTheMapApp
import OnTheMapService
import Testing

/// The class map as an installable app: its manifest, service worker and icons as served, and the
/// Content-Security-Policy that lets the browser use them.
@Suite struct InstallableAppTests {
    struct Manifest: Decodable {
        struct Icon: Decodable {
            var src: String
            var sizes: String
            var type: String
            var purpose: String
        }
        var name: String
        var short_name: String
        var description: String
        var lang: String
        var start_url: String
        var scope: String
        var display: String
        var theme_color: String
        var icons: [Icon]
    }

    /// The manifest is JSON of its own type, in the reader's language, with the map as its start
    /// page inside its scope and the icons it names served with those types and sizes.
    @Test func theManifestNamesTheMapAndItsServedIcons() async throws {
        try await MapFixtures.withMap(try MapFixtures.webMap()) { client in
            let manifest = try await client.execute(
                uri: "/manifest.webmanifest", method: .get, headers: [.acceptLanguage: "es"]
            ) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/manifest+json")
                #expect(response.headers[.cacheControl] == "no-cache")
                return try JSONDecoder().decode(Manifest.self, from: Data(response.body.readableBytesView))
            }
            #expect(manifest.name == "On The Map")
            #expect(manifest.lang == "es")
            #expect(manifest.description == "El mapa de la clase: dónde estudia cada estudiante de la clase.")
            #expect(manifest.start_url == "map" && manifest.scope == "./" && manifest.display == "standalone")
            #expect(manifest.theme_color == "#02739a")
            #expect(Set(manifest.icons.map(\.sizes)) == ["any", "192x192", "512x512"])
            #expect(manifest.icons.contains { $0.purpose == "maskable" })
            for icon in manifest.icons {
                try await client.execute(uri: "/" + icon.src, method: .get) { response in
                    #expect(response.status == .ok, "\(icon.src)")
                    #expect(response.headers[.contentType] == icon.type, "\(icon.src)")
                    let body = Data(response.body.readableBytesView)
                    if icon.type == "image/png" {
                        #expect(body.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
                        let width = body[16..<20].reduce(0) { $0 << 8 | Int($1) }
                        let height = body[20..<24].reduce(0) { $0 << 8 | Int($1) }
                        #expect("\(width)x\(height)" == icon.sizes, "\(icon.src)")
                    } else {
                        #expect(String(decoding: body, as: UTF8.self).contains("<svg"))
                    }
                }
            }
        }
    }

    /// The worker is served from the root (its scope covers the page and the data), never from a
    /// cache, with the version of the page's files filled in (another page, another version, so
    /// browsers replace the worker and its cache); the page links the manifest; every answer's
    /// policy allows the manifest and the worker from this origin only.
    @Test func theWorkerIsServedAtTheRootWithItsVersionAndThePolicyAllowsIt() async throws {
        var changed = try WebMap.Assets.bundled()
        changed.script.append(contentsOf: Array("\n".utf8))
        var versions: [String] = []
        for assets in [try WebMap.Assets.bundled(), changed] {
            let map = WebMap(
                feed: MapPinFeed(maxAge: .zero, load: { MapFixtures.pins }), geocoder: FixedGeocoder(places: [:]),
                assets: assets, access: .anyone, logger: .init(label: "test.webmap"))
            let source = try await MapFixtures.withMapAnswer(map, "/sw.js") { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(response.headers[.cacheControl] == "no-cache")
                return String(buffer: response.body)
            }
            #expect(!source.contains("{{VERSION}}"))
            #expect(source.contains("'onthemap-data'"))
            let version = try #require(source.firstMatch(of: /var VERSION = '([0-9a-f]{16})'/), "\(source.prefix(300))")
            versions.append(String(version.1))
        }
        #expect(versions.count == 2 && versions[0] != versions[1], "\(versions)")
        try await MapFixtures.withMap(try MapFixtures.webMap()) { client in
            try await client.execute(uri: "/", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(html.contains("<link rel=\"manifest\" href=\"manifest.webmanifest\">"))
                #expect(html.contains("<meta name=\"theme-color\" content=\"#02739a\">"))
            }
            for path in ["/", "/sw.js", "/manifest.webmanifest", "/api/locations.json"] {
                try await client.execute(uri: path, method: .get) { response in
                    let policy = try #require(response.headers[.contentSecurityPolicy], "\(path)")
                    #expect(policy.contains("manifest-src 'self';"), "\(path): \(policy)")
                    #expect(policy.contains("worker-src 'self';"), "\(path): \(policy)")
                }
            }
        }
    }
}

extension MapFixtures {
    /// What `body` makes of `map`'s answer to a GET of `path`.
    static func withMapAnswer<T: Sendable>(
        _ map: WebMap, _ path: String, _ body: @escaping @Sendable (TestResponse) async throws -> T
    ) async throws -> T {
        let router = Router()
        map.addRoutes(to: router)
        return try await Application(router: router).test(.router) { client in
            try await client.execute(uri: path, method: .get) { response in try await body(response) }
        }
    }
}
