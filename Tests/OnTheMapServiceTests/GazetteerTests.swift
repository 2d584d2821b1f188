import Foundation
import Testing

@testable import OnTheMapService

/// The bundled gazetteer, loaded once for every test of this file.
enum SharedGazetteer {
    static let loaded: Result<GazetteerGeocoder, any Error> = Result { try GazetteerGeocoder.loadBundled() }

    static func geocoder() throws -> GazetteerGeocoder { try loaded.get() }
}

private func first(_ query: String) throws -> PlaceCandidate? {
    try SharedGazetteer.geocoder().lookup(query, limit: 5).first
}

private func isNear(
    _ coordinate: Coordinate, _ latitude: Double, _ longitude: Double, within degrees: Double = 0.1
)
    -> Bool
{
    abs(coordinate.latitude - latitude) <= degrees && abs(coordinate.longitude - longitude) <= degrees
}

@Suite("Gazetteer geocoder")
struct GazetteerTests {
    // MARK: Loading

    @Test("The bundled gazetteer loads with every country, region and city")
    func loadsBundledData() throws {
        let geocoder = try SharedGazetteer.geocoder()
        #expect(geocoder.placeCount > 170_000)
        #expect(geocoder.nameCount > 300_000)
        #expect(geocoder.store.countryCount >= 245)
        #expect(geocoder.store.regionCount > 3_000)
        #expect(GazetteerGeocoder.attribution == "Place data © GeoNames (geonames.org), CC BY 4.0")
    }

    @Test("A missing file is unreadable; garbage, a compressed file and an empty one are corrupt")
    func rejectsBadFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gazetteer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        #expect(throws: GazetteerError.self) {
            try GazetteerGeocoder(contentsOf: folder.appendingPathComponent("missing.tsv"))
        }
        let garbage = folder.appendingPathComponent("garbage.tsv")
        try Data("hello\tworld\n".utf8).write(to: garbage)
        #expect(throws: GazetteerError.self) { try GazetteerGeocoder(contentsOf: garbage) }

        // Only the plain text format is read: gzip data, even ending in a newline byte, is not it.
        let compressed = folder.appendingPathComponent("compressed.tsv.gz")
        try Data([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x01, 0x02, 0x0A]).write(
            to: compressed)
        #expect(throws: GazetteerError.self) { try GazetteerGeocoder(contentsOf: compressed) }
        let empty = folder.appendingPathComponent("empty.tsv")
        try Data().write(to: empty)
        #expect(throws: GazetteerError.self) { try GazetteerGeocoder(contentsOf: empty) }

        let unsorted = folder.appendingPathComponent("unsorted.tsv")
        try Data((Self.tinyGazetteer + "K\taaa\t0\n").utf8).write(to: unsorted)
        #expect(throws: GazetteerError.corrupt("line 11: keys not sorted")) {
            try GazetteerGeocoder(contentsOf: unsorted)
        }
    }

    static let tinyGazetteer = """
        #onthemap-gazetteer\t2
        Z\tAtlantic/Azores
        Z\tAtlantic/Cape_Verde
        C\tXL\tXLD\tseveral\t1000000\t10.5\t-20.25\tExampleland
        R\t0\t01\t1\t900000\t11\t-21\tNorth Province
        P\t0\t1\t1\t500000\t11\t-21\tBigtown
        P\t0\t-1\t0\t2000\t12.125\t-22\tLittle Village
        K\tbig town\t2a
        K\tbigtown\t2
        K\tlittle village\t3

        """

    @Test("A small plain-text gazetteer in the documented format loads and answers")
    func loadsHandMadeFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tiny-\(UUID().uuidString).tsv")
        try Data(Self.tinyGazetteer.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let geocoder = try GazetteerGeocoder(contentsOf: file)
        #expect(geocoder.placeCount == 4)
        let village = try #require(geocoder.lookup("Little Village", limit: 5).first)
        #expect(village.displayName == "Little Village, Exampleland")
        #expect(village.countryCode == "XL")
        #expect(village.coordinate == Coordinate(latitude: 12.125, longitude: -22))
        #expect(geocoder.lookup("Little Village", limit: 5).count == 1)
        #expect(
            geocoder.lookup("Big Town", limit: 5).first?.displayName == "Bigtown, North Province, Exampleland"
        )
        let town = try #require(geocoder.lookup("bigtown", limit: 1).first)
        #expect(town.displayName == "Bigtown, North Province, Exampleland")
        #expect(town.adminArea == "North Province")
        #expect(geocoder.lookup("Nowhere", limit: 5).isEmpty)
        // Zones: a city's own, a region's, and a country's "several".
        #expect(village.timeZone == .zone("Atlantic/Azores"))
        #expect(town.timeZone == .zone("Atlantic/Cape_Verde"))
        #expect(geocoder.candidate(for: 0, match: .exact).timeZone == .several)
        #expect(geocoder.timeZoneIdentifiers == ["Atlantic/Azores", "Atlantic/Cape_Verde"])
    }

    @Test("A zone field out of range, or \"several\" on a city, makes the file corrupt")
    func rejectsBadZoneFields() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gazetteer-zones-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cases = [
            ("P\t0\t1\t1\t500000", "P\t0\t1\t2\t500000", "line 6: bad time zone"),
            ("P\t0\t1\t1\t500000", "P\t0\t1\tseveral\t500000", "line 6: bad time zone"),
            ("#onthemap-gazetteer\t2", "#onthemap-gazetteer\t1", "line 1: not an On The Map gazetteer (version 2)"),
        ]
        for (index, (original, broken, reason)) in cases.enumerated() {
            let file = folder.appendingPathComponent("bad-\(index).tsv")
            try Data(Self.tinyGazetteer.replacingOccurrences(of: original, with: broken).utf8).write(to: file)
            #expect(throws: GazetteerError.corrupt(reason)) { try GazetteerGeocoder(contentsOf: file) }
        }
    }

    @Test("A plain gazetteer without a final newline loads like one with it")
    func loadsUnterminatedFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "unterminated-\(UUID().uuidString).tsv")
        try Data(Self.tinyGazetteer.utf8.dropLast()).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let geocoder = try GazetteerGeocoder(contentsOf: file)
        #expect(geocoder.placeCount == 4)
        #expect(geocoder.nameCount == 3)
        #expect(geocoder.lookup("little village").first?.displayName == "Little Village, Exampleland")
    }

    @Test("The bundled gazetteer is memory-mapped, and loading it leaves little of the file resident")
    func bundledFileIsMappedNotCopied() throws {
        let geocoder = try GazetteerGeocoder.loadBundled()
        let mapping = try #require(try Self.mapping(containing: geocoder.store.text.base))
        #expect(mapping.path.hasSuffix("/gazetteer.tsv"))
        #expect(mapping.sizeKiB > 14_000)
        // Parsing reads all 15.5 MB once but lets go of the pages behind it: what stays is the
        // last window, the country and region names, and the pages lookups touch.
        #expect(mapping.residentKiB < 4_096, "\(mapping.residentKiB) KiB resident")
        for query in ["Paris", "Seattle, WA", "Tokyo", "Lagos", "San Fran", "Seatle"] {
            #expect(!geocoder.lookup(query).isEmpty, "\(query)")
        }
        let afterLookups = try #require(try Self.mapping(containing: geocoder.store.text.base))
        #expect(afterLookups.residentKiB < 8_192, "\(afterLookups.residentKiB) KiB resident")
    }

    /// The file mapping of this process that contains `address`, from /proc/self/smaps.
    static func mapping(containing address: UnsafePointer<UInt8>) throws
        -> (path: String, sizeKiB: Int, residentKiB: Int)?
    {
        let target = UInt(bitPattern: address)
        // Read to the end: /proc files report size 0, and String(contentsOfFile:) stops early.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        defer { try? handle.close() }
        let smaps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        var current: (path: String, sizeKiB: Int)?
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), fields.count >= 5, !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                current = nil
                if bounds.count == 2, bounds[0] <= target, target < bounds[1] {
                    current = (fields.count >= 6 ? String(fields[5]) : "", Int((bounds[1] - bounds[0]) / 1024))
                }
            } else if let found = current, fields.first == "Rss:", fields.count >= 2, let kib = Int(fields[1]) {
                return (found.path, found.sizeKiB, kib)
            }
        }
        return nil
    }

    // MARK: Normalisation

    @Test(
        "Queries normalise like the generator's keys",
        arguments: [
            ("Saint-Étienne", "saint etienne"), ("Straße", "strasse"), ("O'Brien", "obrien"),
            ("  A  ,B. ", "a b"), ("Ørsted", "orsted"), ("Łódź", "lodz"), ("MÜNCHEN", "munchen"),
            ("Москва", "москва"), ("Nuku\u{2019}alofa", "nukualofa"), ("\u{0}\u{7}", ""),
        ])
    func normalises(input: String, expected: String) {
        #expect(String(decoding: GazetteerNormaliser.normalise(input), as: UTF8.self) == expected)
    }

    @Test("Every place's own name, normalised in Swift, is a key the generator wrote")
    func normaliserMatchesGenerator() throws {
        let store = try SharedGazetteer.geocoder().store
        var missing: [String] = []
        var checked = 0
        let base = store.text.base
        for place in stride(from: 0, to: store.placeCount, by: 3) {
            let name = store.name(of: place)
            let key = GazetteerNormaliser.normalise(name)
            guard !key.isEmpty else { continue }
            checked += 1
            let found = key.withUnsafeBufferPointer { store.exactKey($0, text: base) }
            if found == nil { missing.append(name) }
        }
        #expect(checked > 50_000)
        #expect(missing.isEmpty, "\(missing.count) names: \(missing.prefix(20))")
    }

    // MARK: Countries and regions

    @Test(
        "Countries by name and common alias",
        arguments: [
            ("Costa Rica", "CR"), ("USA", "US"), ("US", "US"), ("United States of America", "US"),
            ("America", "US"), ("u.s.a.", "US"), ("UK", "GB"), ("Great Britain", "GB"), ("Britain", "GB"),
            ("Holland", "NL"), ("Netherlands", "NL"), ("Deutschland", "DE"), ("España", "ES"),
            ("Espana", "ES"), ("Россия", "RU"), ("Germany", "DE"), ("Japan", "JP"), ("Côte d'Ivoire", "CI"),
        ])
    func countries(query: String, code: String) throws {
        let place = try #require(try first(query))
        #expect(place.kind == .country)
        #expect(place.countryCode == code)
        #expect(place.adminArea == nil)
        #expect(place.coordinate.isValid)
    }

    @Test("A country sits on its capital")
    func countryCoordinates() throws {
        let usa = try #require(try first("United States"))
        #expect(usa.displayName == "United States")
        #expect(isNear(usa.coordinate, 38.895, -77.036))
        let france = try #require(try first("France"))
        #expect(isNear(france.coordinate, 48.853, 2.349))
        #expect(try first("England")?.countryCode == "GB")
    }

    @Test(
        "US states by name and two-letter code",
        arguments: [
            ("Texas", "Texas"), ("TX", "Texas"), ("California", "California"), ("CA", "California"),
            ("Washington", "Washington"), ("New Mexico", "New Mexico"), ("NY", "New York"), ("Ohio", "Ohio"),
        ])
    func usStates(query: String, state: String?) throws {
        let found = try first(query)
        guard let state else {
            #expect(found == nil || found?.kind != .country)
            return
        }
        let place = try #require(found)
        #expect(place.kind == .region)
        #expect(place.adminArea == state)
        #expect(place.countryCode == "US")
        #expect(place.displayName == "\(state), United States")
    }

    @Test("Canadian provinces by name and code")
    func canadianProvinces() throws {
        let ontario = try #require(try first("Ontario"))
        #expect(ontario.kind == .region)
        #expect(ontario.countryCode == "CA")
        let bc = try #require(try first("BC"))
        #expect(bc.adminArea == "British Columbia")
        let toronto = try #require(try first("Toronto, ON"))
        #expect(toronto.displayName == "Toronto, Ontario, Canada")
        #expect(try first("Vancouver, BC")?.adminArea == "British Columbia")
    }

    // MARK: Cities

    @Test(
        "Seattle in every usual spelling",
        arguments: [
            "Seattle, WA", "Seattle", "seattle washington", "Seattle, Washington, USA", "SEATTLE",
            "  Seattle  ,  WA ", "Seattle WA", "Seattle, Washington, United States", "Seattle, WA 98101",
            "seattle;wa",
        ])
    func seattle(query: String) throws {
        let place = try #require(try first(query))
        #expect(place.displayName == "Seattle, Washington, United States")
        #expect(place.kind == .city)
        #expect(place.adminArea == "Washington")
        #expect(place.country == "United States")
        #expect(place.countryCode == "US")
        #expect(place.population > 500_000)
        #expect(isNear(place.coordinate, 47.6062, -122.3321, within: 0.05))
    }

    @Test(
        "Cities with known coordinates",
        arguments: [
            ("Austin TX", "US", 30.2672, -97.7431), ("Austin, Texas", "US", 30.2672, -97.7431),
            ("München", "DE", 48.137, 11.575), ("Munchen", "DE", 48.137, 11.575),
            ("Muenchen", "DE", 48.137, 11.575),
            ("Munich", "DE", 48.137, 11.575), ("Köln", "DE", 50.933, 6.95), ("Cologne", "DE", 50.933, 6.95),
            ("Wien", "AT", 48.208, 16.372), ("Vienna", "AT", 48.208, 16.372),
            ("Moskva", "RU", 55.752, 37.618),
            ("Москва", "RU", 55.752, 37.618), ("Moscow", "RU", 55.752, 37.618),
            ("São Paulo", "BR", -23.547, -46.636),
            ("Sao Paulo", "BR", -23.547, -46.636), ("Zürich", "CH", 47.367, 8.55),
            ("Kraków", "PL", 50.06, 19.94),
            ("Lodz", "PL", 51.77, 19.47), ("Reykjavik", "IS", 64.135, -21.895),
            ("New York", "US", 40.714, -74.006),
            ("NYC", "US", 40.714, -74.006), ("Tokyo", "JP", 35.69, 139.69), ("Bombay", "IN", 19.07, 72.88),
            ("Washington, DC", "US", 38.895, -77.036), ("St. Louis", "US", 38.627, -90.198),
            ("Saint Louis, MO", "US", 38.627, -90.198), ("Winston-Salem", "US", 36.1, -80.24),
        ])
    func cities(query: String, code: String, latitude: Double, longitude: Double) throws {
        let place = try #require(try first(query))
        #expect(place.kind == .city)
        #expect(place.countryCode == code)
        #expect(isNear(place.coordinate, latitude, longitude))
    }

    @Test("Street addresses and postcodes fall back to their city")
    func addresses() throws {
        let cases: [(String, String)] = [
            ("1600 Amphitheatre Pkwy, Mountain View, CA 94043", "Mountain View, California, United States"),
            ("1600 Amphitheatre Parkway Mountain View CA 94043", "Mountain View, California, United States"),
            ("10 Downing St, London", "London, England, United Kingdom"),
            ("221B Baker Street, London NW1 6XE, UK", "London, England, United Kingdom"),
            ("350 5th Ave, New York, NY 10118", "New York City, New York, United States"),
            ("Washington Street, Boston, MA", "Boston, Massachusetts, United States"),
        ]
        for (query, expected) in cases {
            #expect(try first(query)?.displayName == expected, "\(query)")
        }
        let amsterdam = try #require(try first("Damrak 1, 1012 LG Amsterdam, Netherlands"))
        #expect(amsterdam.countryCode == "NL")
        #expect(try first("Amsterdam, 1012 AB")?.countryCode == "NL")
    }

    @Test("Ambiguous names rank by qualifier, then population")
    func ambiguity() throws {
        let geocoder = try SharedGazetteer.geocoder()
        #expect(try first("Paris")?.countryCode == "FR")
        #expect(try first("Paris, TX")?.adminArea == "Texas")
        #expect(try first("Paris Texas")?.adminArea == "Texas")
        #expect(try first("Paris, France")?.countryCode == "FR")
        #expect(try first("London")?.countryCode == "GB")
        #expect(try first("London, Ontario")?.countryCode == "CA")
        #expect(try first("Portland")?.adminArea == "Oregon")
        #expect(try first("Portland, ME")?.adminArea == "Maine")
        #expect(try first("Cambridge")?.countryCode == "GB")
        #expect(try first("Cambridge, MA")?.adminArea == "Massachusetts")
        #expect(try first("Springfield, IL")?.adminArea == "Illinois")

        let springfields = geocoder.lookup("Springfield", limit: 10)
        #expect(springfields.count == 10)
        let largest = try #require(springfields.first)
        #expect(largest.adminArea == "Missouri")
        #expect(springfields.allSatisfy { $0.population <= largest.population })
        #expect(Set(springfields.map(\.displayName)).count >= 9)
    }

    @Test("A qualifier that names another region rules a place out")
    func contradictingQualifier() throws {
        for candidate in try SharedGazetteer.geocoder().lookup("Paris, Texas", limit: 5) {
            #expect(candidate.countryCode == "US")
        }
        // No Seattle in Florida: the answer is Florida itself, not the Seattle of Washington.
        let answer = try #require(try first("Seattle, Florida"))
        #expect(answer.adminArea == "Florida")
    }

    @Test("Prefixes complete when nothing matches exactly")
    func prefixes() throws {
        #expect(try first("San Fran")?.displayName == "San Francisco, California, United States")
        #expect(try first("Lond")?.displayName == "London, England, United Kingdom")
        #expect(try first("San Fran, CA")?.adminArea == "California")
    }

    @Test(
        "Small misspellings find the intended city",
        arguments: [
            ("Seatle", "Seattle"), ("Pittsburg", "Pittsburgh"), ("Pitsburgh", "Pittsburgh"),
            ("Seatle, WA", "Seattle"), ("Philadelpia", "Philadelphia"), ("Chicgo", "Chicago"),
            ("Sattle", "Seattle"), ("Lodnon", "London"), ("Springfeld, IL", "Springfield"),
            ("Mountain Viwe, CA", "Mountain View"),
        ])
    func misspellings(query: String, city: String) throws {
        let place = try #require(try first(query))
        #expect(place.displayName.hasPrefix(city + ","))
    }

    @Test("A region or country named after unknown words is the answer")
    func trailingRegion() throws {
        let ohio = try #require(try first("Smallvillezz Ohio"))
        #expect(ohio.kind == .region)
        #expect(ohio.adminArea == "Ohio")
        #expect(try first("Qwxyzzyville, Texas")?.displayName == "Texas, United States")
        #expect(try first("Qwxyzzyville France")?.kind == .country)
    }

    // MARK: Unknown and hostile input

    @Test(
        "Unknown or hostile input gives no candidates",
        arguments: [
            "xyzzy", "asdfgh qwerty", "qqqqqqqqqq", "", "   ", "\u{0}\u{1}\u{7}\u{1B}[31m", ",,,;;", "🏠🌍",
            String(repeating: "a", count: 2048), String(repeating: "Paris ", count: 400), "12345", "FR",
        ])
    func unknown(query: String) throws {
        #expect(try SharedGazetteer.geocoder().lookup(query, limit: 5).isEmpty)
    }

    @Test("Limits are respected and answers are unique")
    func limits() async throws {
        let geocoder = try SharedGazetteer.geocoder()
        #expect(geocoder.lookup("Paris", limit: 0).isEmpty)
        #expect(geocoder.lookup("Paris", limit: -3).isEmpty)
        #expect(geocoder.lookup("Paris", limit: 1).count == 1)
        let many = geocoder.lookup("Springfield", limit: 1_000)
        #expect(many.count > 20 && many.count <= 100)
        let viaProtocol = try await geocoder.geocode("Seattle, WA", limit: 3)
        #expect(viaProtocol == geocoder.lookup("Seattle, WA", limit: 3))
    }

    @Test("Random mixtures of names, digits, marks and control characters never break a lookup")
    func randomInput() throws {
        let geocoder = try SharedGazetteer.geocoder()
        let fragments = [
            "Paris", ",", " ", "TX", "1234", "é", "Москва", "\u{0}", "東京", "'", "-", "Saint", "ß", "🏠",
            "  ", "\t", "St.", "a", "zz", "İ", "\u{301}", "New", "York", ";", "Ω", "\u{FEFF}", "9", "USA",
            "\u{202E}", "Springfield", "ON", "q", "\n", "Ꙫ", "\u{1F1FA}\u{1F1F8}",
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int(truncatingIfNeeded: (z ^ (z >> 31)) >> 1)
        }
        var answered = 0
        for _ in 0..<600 {
            let query = (0..<(1 + next() % 10)).map { _ in fragments[next() % fragments.count] }.joined()
            let limit = 1 + next() % 5
            let results = geocoder.lookup(query, limit: limit)
            #expect(results.count <= limit)
            for result in results {
                #expect(result.coordinate.isValid)
                #expect(!result.displayName.isEmpty)
                #expect(result.countryCode?.count == 2)
            }
            if !results.isEmpty { answered += 1 }
        }
        #expect(answered > 30)
    }

    @Test("Control characters inside a place are separators")
    func controlCharacters() throws {
        #expect(try first("Seattle\u{7}\tWA\n")?.displayName == "Seattle, Washington, United States")
    }
}
