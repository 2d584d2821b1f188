import Foundation
import Hummingbird
import HummingbirdTesting
import OnTheMapApp
import OnTheMapService
import Testing

/// The web map's city labels (`/map/places.json`) and the script that draws them.
@Suite struct WebMapLayerTests {
    struct Places: Decodable {
        struct Place: Decodable {
            var name: String
            var lat: Double
            var lon: Double
            var population: Int
        }
        var places: [Place]
    }

    static func gazetteerMap(_ labels: MapPlaceLabels = MapPlaceLabels(CommandExampleTests.geocoder)) throws -> WebMap {
        try MapFixtures.webMap(geocoder: CommandExampleTests.geocoder, placeLabels: labels)
    }

    @Test func zoomedOnPortugalTheLargestCitiesComeFirstAndMayBeCached() async throws {
        try await MapFixtures.withMap(try Self.gazetteerMap()) { client in
            try await client.execute(uri: "/map/places.json?bbox=-10,36.8,-6.1,42.2", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.headers[.cacheControl] == "max-age=86400")
                #expect(response.headers[.contentSecurityPolicy] != nil)
                let places = try JSONDecoder().decode(Places.self, from: Data(buffer: response.body)).places
                #expect(places.map(\.name).prefix(2) == ["Lisbon", "Porto"])
                #expect(places.count == 40, "the default number")
                #expect(places.allSatisfy { (-10 ... -6.1).contains($0.lon) && (36.8...42.2).contains($0.lat) })
                #expect(zip(places, places.dropFirst()).allSatisfy { $0.population >= $1.population })
            }
            try await client.execute(uri: "/map/places.json?bbox=-10,36.8,-6.1,42.2&limit=3", method: .get) {
                let places = try JSONDecoder().decode(Places.self, from: Data(buffer: $0.body)).places
                #expect(places.map(\.name) == ["Lisbon", "Porto", "Braga"])
            }
            // Spaces after the commas (a hand-typed URL) are accepted.
            try await client.execute(uri: "/map/places.json?bbox=-10,%2036.8,%20-6.1,%2042.2&limit=1", method: .get) {
                #expect($0.status == .ok)
                #expect(String(buffer: $0.body).contains("\"Lisbon\""))
            }
        }
    }

    @Test(arguments: [
        ("", "Give the box"),
        ("?bbox=", "Give the box"),
        ("?bbox=-10,36,-6", "not four numbers"),
        ("?bbox=-10,36,-6,42,7", "not four numbers"),
        ("?bbox=west,south,east,north", "not four numbers"),
        ("?bbox=-10,,-6,42", "not four numbers"),
        ("?bbox=10,36,-6,42", "not on the map"),
        ("?bbox=-10,42,-6,36", "not on the map"),
        ("?bbox=-190,36,-6,42", "not on the map"),
        ("?bbox=-10,-91,-6,42", "not on the map"),
        ("?bbox=nan,36,-6,42", "not on the map"),
        ("?bbox=-10,36,inf,42", "not on the map"),
        ("?bbox=" + String(repeating: "1", count: 200) + ",1,2,3", "too long"),
        ("?bbox=-10,36,-6,42&limit=0", "limit must be"),
        ("?bbox=-10,36,-6,42&limit=101", "limit must be"),
        ("?bbox=-10,36,-6,42&limit=ten", "limit must be"),
        ("?bbox=-10,36,-6,42&limit=%3Cb%3E", "limit must be"),
    ])
    func aBadBoxOrLimitIsA400ThatSaysWhatIsExpected(query: String, says: String) async throws {
        try await MapFixtures.withMap(try Self.gazetteerMap()) { client in
            try await client.execute(uri: "/map/places.json" + query, method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
                #expect(response.headers[.cacheControl] == "no-store")
                let text = String(buffer: response.body)
                #expect(text.contains(says), "\(text)")
                #expect(!text.contains("<"), "nothing of the request is echoed")
            }
        }
    }

    /// The bot's gazetteer loads in the background: the answer waits for it. A map given no
    /// gazetteer has no labels.
    @Test func labelsComeFromALoadingGazetteerAndNoneWithoutOne() async throws {
        let loading = BackgroundLoadedGazetteer { CommandExampleTests.geocoder }
        try await MapFixtures.withMap(try Self.gazetteerMap(MapPlaceLabels(loading))) { client in
            try await client.execute(uri: "/map/places.json?bbox=-10,36.8,-6.1,42.2&limit=1", method: .get) {
                let places = try JSONDecoder().decode(Places.self, from: Data(buffer: $0.body)).places
                #expect(places.map(\.name) == ["Lisbon"])
            }
        }
        try await MapFixtures.withMap(try MapFixtures.webMap()) { client in
            try await client.execute(uri: "/map/places.json?bbox=-10,36.8,-6.1,42.2", method: .get) {
                #expect($0.status == .ok)
                #expect(String(buffer: $0.body) == "{\"places\":[]}")
            }
        }
    }

    @Test func thePageLoadsTheLayersScriptWhichSetsNamesAsTextOnly() async throws {
        try await MapFixtures.withMap(try MapFixtures.webMap()) { client in
            try await client.execute(uri: "/", method: .get) { response in
                let html = String(buffer: response.body)
                let layers = try #require(html.range(of: "<script src=\"map/layers.js\" defer>"))
                let app = try #require(html.range(of: "<script src=\"map/app.js\" defer>"))
                #expect(layers.lowerBound < app.lowerBound, "app.js finds the layers already defined")
                #expect(html.contains("<g id=\"labels\">"))
            }
            try await client.execute(uri: "/map/layers.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                let script = String(buffer: response.body)
                #expect(script.contains("map/places.json?bbox="))
                #expect(script.contains(".textContent = p.name"))
                for unsafe in ["innerHTML", "insertAdjacentHTML", "document.write", "eval("] {
                    #expect(!script.contains(unsafe))
                }
            }
        }
    }

    struct Cell: Decodable {
        var land: [[Int]]
        var borders: [[Int]]
    }

    /// Every point of a ring or line, from its first point and moves, in the cell's units.
    static func points(_ run: [Int]) -> [(Int, Int)] {
        var points = [(run[0], run[1])]
        for index in stride(from: 2, to: run.count - 1, by: 2) {
            let last = points[points.count - 1]
            points.append((last.0 + run[index], last.1 + run[index + 1]))
        }
        return points
    }

    @Test func lisbonsCellHasFinerCoastlinesAndBordersInsideTheCell() async throws {
        try await MapFixtures.withMap(try MapFixtures.webMap()) { client in
            try await client.execute(uri: "/map/detail/17-5.json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.headers[.cacheControl] == "max-age=86400")
                let cell = try JSONDecoder().decode(Cell.self, from: Data(buffer: response.body))
                #expect(cell.land.count > 5, "the coast of Portugal and Spain, islands, lakes")
                #expect(cell.borders.count > 0, "the border of Portugal and Spain")
                #expect(cell.land.allSatisfy { $0.count >= 6 && $0.count % 2 == 0 })
                #expect(cell.borders.allSatisfy { $0.count >= 4 && $0.count % 2 == 0 })
                let all = (cell.land + cell.borders).flatMap(Self.points)
                #expect(all.allSatisfy { (0...1000).contains($0.0) && (0...1000).contains($0.1) })
                // Lisbon (38.72° N, 9.14° W) is on the coast: land within 0.1° of it, at a finer
                // scale than the world's 1:110m outline (points 0.01° apart, not 0.1°).
                let lisbon = (
                    Int(((-9.14 + 180) * 100).rounded()) - 17_000, Int(((90 - 38.72) * 100).rounded()) - 5_000
                )
                let near = all.filter { abs($0.0 - lisbon.0) <= 10 && abs($0.1 - lisbon.1) <= 10 }
                #expect(near.count >= 3, "\(near)")
            }
        }
    }

    @Test func aCellOfOpenSeaIsEmpty() async throws {
        try await MapFixtures.withMap(try MapFixtures.webMap()) { client in
            // 140° to 130° W, 30° to 20° N: the Pacific between California and Hawaii.
            try await client.execute(uri: "/map/detail/4-6.json", method: .get) { response in
                #expect(response.status == .ok)
                let cell = try JSONDecoder().decode(Cell.self, from: Data(buffer: response.body))
                #expect(cell.land.isEmpty && cell.borders.isEmpty)
            }
        }
    }

    @Test(arguments: [
        "36-0.json", "0-18.json", "05-5.json", "17-05.json", "-1-5.json", "17-5", "17-5.json.bak", "17_5.json",
        "17-5.JSON", "1-2-3.json", "%2E%2E%2Fapp.js", "..%2F..%2Findex.html", "%EF%BC%917-5.json", "999999-5.json",
    ])
    func aNameThatIsNoCellIsA400(name: String) async throws {
        try await MapFixtures.withMap(try MapFixtures.webMap()) { client in
            try await client.execute(uri: "/map/detail/" + name, method: .get) { response in
                #expect(response.status == .badRequest, "\(name)")
                #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
                #expect(String(buffer: response.body).hasPrefix("Not a cell of the map"))
            }
        }
    }

    /// What the bundle carries for city zoom, and what a browser downloads for one cell.
    @Test func theDetailCellsStaySmall() throws {
        let folder = try WebMap.Assets.bundled().detailFolder
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.fileSizeKey])
        let sizes = try files.map { try $0.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0 }
        #expect(files.count > 300, "cells with land or borders")
        #expect(
            files.allSatisfy {
                $0.lastPathComponent.range(of: #"^\d{1,2}-\d{1,2}\.json$"#, options: .regularExpression) != nil
            })
        #expect(sizes.reduce(0, +) <= 2_500_000, "the cells weigh \(sizes.reduce(0, +)) bytes")
        #expect((sizes.max() ?? 0) <= 64_000, "the largest cell weighs \(sizes.max() ?? 0) bytes")
    }
}
