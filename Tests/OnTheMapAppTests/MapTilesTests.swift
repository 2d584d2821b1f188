import Foundation
import Hummingbird
import HummingbirdTesting
import OnTheMapApp
import Testing

/// `web.tiles`: the XYZ tile URL and attribution are checked when the config is read, and the
/// web map hands a valid one to the page and lets images come from its origin only.
@Suite struct MapTilesConfigTests {
    static let osm = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"

    func problems(url: String?, attribution: String?, extra: String = "") -> [ConfigProblem] {
        var yaml = ConfigTests.minimal + "\nweb:\n  enabled: true\n  tiles:\n"
        if let url { yaml += "    url: \(url)\n" }
        if let attribution { yaml += "    attribution: \(attribution)\n" }
        yaml += extra
        do {
            _ = try ConfigLoader.parse(yaml: yaml)
            return []
        } catch {
            return error.problems
        }
    }

    /// The YAML of one double-quoted string (escapes for quotes, backslashes and control characters).
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                out += "\\x" + String(format: "%02X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test func tilesAreOffByDefault() throws {
        let config = try ConfigLoader.parse(yaml: ConfigTests.minimal + "\nweb:\n  enabled: true\n")
        #expect(!config.web.tiles.isSet)
        #expect(config.web.tileLayer == nil)
    }

    /// The form the README and the example config show, unquoted, reads as written.
    @Test func theDocumentedFormIsValid() throws {
        let yaml =
            ConfigTests.minimal
            + "\nweb:\n  tiles:\n    url: \(Self.osm)\n    attribution: © OpenStreetMap contributors\n"
        let layer = try #require(try ConfigLoader.parse(yaml: yaml).web.tileLayer)
        #expect(layer.template == Self.osm)
        #expect(layer.attribution == "© OpenStreetMap contributors")
        #expect(layer.origin == "https://tile.openstreetmap.org")
    }

    @Test func aValidTemplateGivesItsOrigin() throws {
        let cases = [
            (Self.osm, "https://tile.openstreetmap.org"),
            (
                "https://Tiles.Example.ORG:8443/v1/{z}/{x}/{y}@2x.png?key=abc%20d&style=1",
                "https://tiles.example.org:8443"
            ),
            ("https://tiles.example.org/{z}/{y}/{x}", "https://tiles.example.org"),
            ("http://127.0.0.1:8081/{z}/{x}/{y}.png", "http://127.0.0.1:8081"),
            ("http://localhost/tiles/{z}/{x}/{y}.png", "http://localhost"),
        ]
        for (url, origin) in cases {
            let yaml =
                ConfigTests.minimal
                + "\nweb:\n  enabled: true\n  tiles: {url: \(Self.quoted(url)), attribution: \"© OpenStreetMap contributors\"}\n"
            let config = try ConfigLoader.parse(yaml: yaml)
            let layer = try #require(config.web.tileLayer, "\(url)")
            #expect(layer.template == url)
            #expect(layer.origin == origin, "\(url)")
            #expect(layer.attribution == "© OpenStreetMap contributors")
        }
    }

    /// Every bad shape of URL is refused at load with its own sentence, under `web.tiles.url`.
    @Test func everyBadURLShapeIsRefusedWithItsReason() {
        let cases: [(String, String)] = [
            ("", "is missing: an XYZ tile URL"),
            ("http://tile.openstreetmap.org/{z}/{x}/{y}.png", "must be https"),
            ("http://127.0.0.1.evil.example/{z}/{x}/{y}.png", "must be https"),
            ("http://localhost.evil.example/{z}/{x}/{y}.png", "must be https"),
            ("ftp://tiles.example.org/{z}/{x}/{y}.png", "must start with https://"),
            ("javascript:alert(1)//{z}/{x}/{y}", "must start with https://"),
            ("//tiles.example.org/{z}/{x}/{y}.png", "must start with https://"),
            ("https://{s}.tile.openstreetmap.org/{z}/{x}/{y}.png", "has {s} (a choice of servers)"),
            ("https://tiles.example.org/{z}/{x}.png", "lacks {y}"),
            ("https://tiles.example.org/{x}/{y}.png", "lacks {z}"),
            ("https://tiles.example.org/{z}/{x}/{y}/{z}.png", "has {z} twice"),
            ("https://tiles.example.org/{zoom}/{x}/{y}.png", "has {zoom}: the only placeholders are"),
            ("https://tiles.example.org/{z}/{x}/{y}.png?r={r}", "has {r}: the only placeholders are"),
            ("https://tiles.example.org/{z}/{x}/{y}.png}", "has a brace that is not part of"),
            ("https://tiles.example.org/{z}/{x}/{y", "has a brace that is not part of"),
            ("https://tiles.example.org/{z}/{x}/{y}.png?s=\"x\"", "holds a quote"),
            ("https://tiles.example.org/{z}/{x}/{y}.png?s='x'", "holds a quote"),
            ("https://tiles.example.org/{z}/{x}/{y}.png?s=`x`", "holds a quote"),
            ("https://tiles.example.org/{z}/{x} /{y}.png", "holds a space"),
            ("https://tiles.example.org/{z}/{x}/{y}.png\r\nX: 1", "holds a control character (U+000D)"),
            ("https://tiles.example.org/{z}/{x}/{y}.png\u{0}", "holds a control character (U+0000)"),
            ("https://tiles.example.org/{z}/{x}/{y}.png\t", "holds a control character (U+0009)"),
            ("https://tiles.example.org/{z}/{x}/{y}.png\u{7F}", "holds a control character (U+007F)"),
            ("https://tiles.example.org/{z}/{x}/{y}.png\u{85}", "which is not ASCII"),
            ("https://tilé.example.org/{z}/{x}/{y}.png", "which is not ASCII"),
            ("https://tiles.example.org/{z}/{x}/{y}.png<script>", "which a URL cannot carry"),
            ("https://tiles.example.org/{z}/{x}/{y}.png#top", "holds a fragment"),
            ("https://user:secret@tiles.example.org/{z}/{x}/{y}.png", "holds a user name or password"),
            ("https://tiles.example.org@evil.example/{z}/{x}/{y}.png", "holds a user name or password"),
            ("https://{z}.tiles.example.org/{x}/{y}.png", "has a placeholder in its host"),
            ("https://[::1]:8080/{z}/{x}/{y}.png", "names an IPv6 address"),
            ("https://tiles.example.org:99999/{z}/{x}/{y}.png", "has a port that is not a number"),
            ("https://tiles.example.org:/{z}/{x}/{y}.png", "has a port that is not a number"),
            ("https://tiles.example.org:8a/{z}/{x}/{y}.png", "has a port that is not a number"),
            ("https:///{z}/{x}/{y}.png", "names no host"),
            ("https://tiles_example.org/{z}/{x}/{y}.png", "which is not a host name"),
            ("https://tiles..example.org/{z}/{x}/{y}.png", "which is not a host name"),
            ("https://-tiles.example.org/{z}/{x}/{y}.png", "which is not a host name"),
            ("https://tiles.example.org;img-src *?{z}/{x}/{y}", "holds a space"),
            ("https://tiles.example.org;img-src%20*/{z}/{x}/{y}", "which is not a host name"),
            (
                "https://tiles.example.org/" + String(repeating: "a", count: 1000) + "/{z}/{x}/{y}",
                "is longer than 1000"
            ),
        ]
        for (url, reason) in cases {
            let found = problems(url: Self.quoted(url), attribution: "\"© Tiles\"")
            #expect(found.count == 1, "\(url): \(found)")
            #expect(found.first?.key == "web.tiles.url", "\(url): \(found)")
            #expect(found.first?.message.contains(reason) == true, "\(url): \(found)")
        }
    }

    @Test func theAttributionIsRequiredAndPlainText() {
        let cases: [(String?, String)] = [
            (nil, "is missing: the credit the tile provider asks for"),
            ("\"   \"", "is missing: the credit the tile provider asks for"),
            ("\"<a href=\\\"https://osm.org/copyright\\\">OSM</a>\"", "is shown as plain text, not HTML"),
            ("\"© OSM\\nX\"", "holds a control character (U+000A)"),
            ("\"© OSM\\u0085\"", "holds a control character (U+0085)"),
            (Self.quoted(String(repeating: "©", count: 301)), "is longer than 300 characters"),
        ]
        for (attribution, reason) in cases {
            let found = problems(url: Self.osm, attribution: attribution)
            #expect(found.map(\.key) == ["web.tiles.attribution"], "\(attribution ?? "nil"): \(found)")
            #expect(found.first?.message.contains(reason) == true, "\(attribution ?? "nil"): \(found)")
        }
    }

    @Test func aBadURLAndABadAttributionAreBothNamedAndUnknownKeysToo() {
        let found = problems(
            url: "\"http://tiles.example.org/{z}/{x}/{y}.png\"", attribution: nil, extra: "    urll: x\n")
        #expect(found.map(\.key) == ["web.tiles.urll", "web.tiles.url", "web.tiles.attribution"])
        #expect(found.first?.message.contains("did you mean \"url\"") == true)
    }

    @Test func theLayerRefusesWhatTheConfigRefuses() {
        let quote = #expect(throws: MapTileLayer.Refusal.self) {
            try MapTileLayer(template: "https://t.example/{z}/{x}/{y}\"", attribution: "© T")
        }
        #expect(quote?.key == "url")
        #expect(quote?.description == "web.tiles.url holds a quote (\"): a URL has none")
        let credit = #expect(throws: MapTileLayer.Refusal.self) {
            try MapTileLayer(template: Self.osm, attribution: "")
        }
        #expect(credit?.key == "attribution")
    }
}

@Suite struct WebMapTilesTests {
    static func map(tiles: MapTileLayer?) throws -> WebMap {
        WebMap(
            feed: MapPinFeed(maxAge: .zero, load: { MapFixtures.pins }), geocoder: FixedGeocoder(places: [:]),
            assets: try WebMap.Assets.bundled(), access: .anyone, tiles: tiles, logger: .init(label: "test"))
    }

    /// The sources of one directive of a Content-Security-Policy.
    static func sources(_ directive: String, in policy: String) -> [String]? {
        for part in policy.split(separator: ";") {
            let words = part.split(separator: " ").map(String.init)
            if words.first == directive { return Array(words.dropFirst()) }
        }
        return nil
    }

    /// With tiles configured, the page carries the template and the attribution (escaped), serves
    /// tiles.js, and every response's policy lets images come from exactly that origin besides its
    /// own, and nothing else from it.
    @Test func thePageCarriesTheTilesAndThePolicyNamesExactlyTheirOrigin() async throws {
        let layer = try MapTileLayer(
            template: "https://tiles.example.org:8443/osm/{z}/{x}/{y}.png?key=a&b=1",
            attribution: "© OpenStreetMap \"contributors\" & co")
        try await MapFixtures.withMap(try Self.map(tiles: layer)) { client in
            for path in ["/", "/map/app.js", "/map/tiles.js", "/map/basemap.json", "/api/locations.json"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok, "\(path)")
                    let policy = try #require(response.headers[.contentSecurityPolicy])
                    #expect(
                        Self.sources("img-src", in: policy) == ["'self'", "data:", "https://tiles.example.org:8443"],
                        "\(path): \(policy)")
                    #expect(policy.components(separatedBy: "tiles.example.org").count == 2, "\(policy)")
                    #expect(Self.sources("connect-src", in: policy) == ["'self'"])
                    #expect(Self.sources("default-src", in: policy) == ["'none'"])
                }
            }
            try await client.execute(uri: "/", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(
                    html.contains(
                        "data-tiles-url=\"https://tiles.example.org:8443/osm/{z}/{x}/{y}.png?key=a&amp;b=1\""))
                #expect(
                    html.contains(
                        "data-tiles-attribution=\"© OpenStreetMap &quot;contributors&quot; &amp; co\""))
                #expect(html.contains("<script src=\"map/tiles.js\""))
                #expect(html.contains("id=\"tile-credit\""))
            }
            try await client.execute(uri: "/map/tiles.js", method: .get) { response in
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(String(buffer: response.body).contains("OnTheMapTiles"))
            }
        }
    }

    /// Without tiles, the page names no tile URL and the policy no other origin.
    @Test func withoutTilesThePageAndPolicyNameNoOtherOrigin() async throws {
        try await MapFixtures.withMap(try Self.map(tiles: nil)) { client in
            for path in ["/", "/map/app.js", "/map/places.json?bbox=-10,35,0,45", "/api/locations.json"] {
                try await client.execute(uri: path, method: .get) { response in
                    let policy = try #require(response.headers[.contentSecurityPolicy])
                    #expect(Self.sources("img-src", in: policy) == ["'self'", "data:"], "\(path): \(policy)")
                    #expect(!policy.contains("http"), "\(policy)")
                }
            }
            try await client.execute(uri: "/", method: .get) { response in
                #expect(!String(buffer: response.body).contains("data-tiles"))
            }
        }
    }
}
