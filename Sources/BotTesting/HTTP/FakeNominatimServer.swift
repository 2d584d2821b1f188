import Foundation
import Hummingbird

/// A small Nominatim-compatible geocoder on 127.0.0.1: `GET /search?format=jsonv2&q=…` answered
/// from a built-in table, recording every request (time of receipt, User-Agent) for tests.
public actor FakeNominatimServer {
    /// One place of the table.
    public struct Place: Sendable, Hashable {
        public var displayName: String
        public var latitude: Double
        public var longitude: Double
        /// jsonv2 `category` (`class` in the json format): "boundary", "place", "building"…
        public var category: String
        public var type: String
        public var addressType: String
        public var country: String?
        public var countryCode: String?
        public var state: String?
        public var importance: Double
        /// Words a query may use to find it (lower case), besides those of the display name.
        public var keywords: [String]

        public init(
            displayName: String, latitude: Double, longitude: Double, category: String, type: String,
            addressType: String, country: String?, countryCode: String?, state: String?,
            importance: Double, keywords: [String] = []
        ) {
            self.displayName = displayName
            self.latitude = latitude
            self.longitude = longitude
            self.category = category
            self.type = type
            self.addressType = addressType
            self.country = country
            self.countryCode = countryCode
            self.state = state
            self.importance = importance
            self.keywords = keywords
        }
    }

    /// Seattle, Paris (France and Texas), Costa Rica, Washington (state), Lima, San José,
    /// Tokyo and a street address.
    public static let defaultPlaces: [Place] = [
        Place(
            displayName: "Seattle, King County, Washington, United States", latitude: 47.6038321,
            longitude: -122.330062, category: "boundary", type: "administrative", addressType: "city",
            country: "United States", countryCode: "us", state: "Washington", importance: 0.79,
            keywords: ["wa", "usa", "us"]),
        Place(
            displayName: "Paris, Île-de-France, Metropolitan France, France", latitude: 48.8588897,
            longitude: 2.3200410, category: "boundary", type: "administrative", addressType: "city",
            country: "France", countryCode: "fr", state: "Île-de-France", importance: 0.88),
        Place(
            displayName: "Paris, Lamar County, Texas, United States", latitude: 33.6617962,
            longitude: -95.5555130, category: "place", type: "town", addressType: "town",
            country: "United States", countryCode: "us", state: "Texas", importance: 0.55,
            keywords: ["tx", "usa", "us"]),
        Place(
            displayName: "Costa Rica", latitude: 9.6301892, longitude: -84.2541844, category: "boundary",
            type: "administrative", addressType: "country", country: "Costa Rica", countryCode: "cr",
            state: nil, importance: 0.84),
        Place(
            displayName: "Washington, United States", latitude: 47.2868352, longitude: -120.2126139,
            category: "boundary", type: "administrative", addressType: "state", country: "United States",
            countryCode: "us", state: "Washington", importance: 0.75, keywords: ["wa", "state"]),
        Place(
            displayName: "Lima, Provincia de Lima, Lima Metropolitana, Peru", latitude: -12.0463731,
            longitude: -77.042754, category: "boundary", type: "administrative", addressType: "city",
            country: "Peru", countryCode: "pe", state: "Lima Metropolitana", importance: 0.74),
        Place(
            displayName: "San José, Cantón San José, Provincia San José, Costa Rica", latitude: 9.9325427,
            longitude: -84.0795782, category: "place", type: "city", addressType: "city",
            country: "Costa Rica", countryCode: "cr", state: "Provincia San José", importance: 0.66,
            keywords: ["san jose"]),
        Place(
            displayName: "Tokyo, Japan", latitude: 35.6768601, longitude: 139.7638947, category: "boundary",
            type: "administrative", addressType: "province", country: "Japan", countryCode: "jp",
            state: "Tokyo", importance: 0.82),
        Place(
            displayName: "1600, Amphitheatre Parkway, Mountain View, Santa Clara County, California, "
                + "94043, United States",
            latitude: 37.4224857, longitude: -122.0855846, category: "building", type: "yes",
            addressType: "building", country: "United States", countryCode: "us", state: "California",
            importance: 0.2, keywords: ["ca", "1600 amphitheatre parkway"]),
    ]

    private let places: [Place]
    private var log: [RecordedHTTPRequest] = []
    private var failureStatus: Int?
    private var delay: Duration?
    private var garbage = false
    private var server: FakeHTTPServerRunner?
    private var startedURL: URL?
    private var lastPort: Int?

    public init(places: [Place] = FakeNominatimServer.defaultPlaces) {
        self.places = places
    }

    /// Starts listening on 127.0.0.1 (a free port; after ``stop()``, the port it had) and returns
    /// the base URL (`http://127.0.0.1:PORT`; the API is at `/search`).
    public func start() async throws -> URL {
        if let startedURL { return startedURL }
        let server = FakeHTTPServerRunner(label: "FakeNominatimServer") { [weak self] request in
            guard let self else { return Response(status: .serviceUnavailable) }
            if let delay = await self.delay { try await Task.sleep(for: delay) }
            return await self.respond(to: request)
        }
        let port = try await server.start(preferredPort: lastPort ?? 0)
        lastPort = port
        self.server = server
        guard let url = URL(string: "http://127.0.0.1:\(port)") else {
            await server.stop()
            throw FakeHTTPServerError.noBoundPort
        }
        startedURL = url
        return url
    }

    public func stop() async {
        let server = self.server
        self.server = nil
        startedURL = nil
        await server?.stop()
    }

    public var baseURL: URL? { startedURL }

    /// Every request received so far, oldest first.
    public func requests() -> [RecordedHTTPRequest] { log }

    /// Makes every answer this HTTP status (nil: answer normally).
    public func setFailure(status: Int?) { failureStatus = status }

    /// Makes every answer wait this long first (nil: answer at once).
    public func setDelay(_ delay: Duration?) { self.delay = delay }

    /// Makes every answer a 200 HTML page instead of JSON (false: answer normally).
    public func setGarbage(_ on: Bool) { garbage = on }

    private func respond(to request: Request) -> Response {
        let recorded = RecordedHTTPRequest(request: request, body: nil)
        log.append(recorded)
        if garbage {
            var headers = HTTPFields()
            headers[.contentType] = "text/html"
            return .fakeAnswer(Array("<html><body>Bad gateway</body></html>".utf8), status: .ok, headers: headers)
        }
        if let failureStatus {
            return .fakeAnswer(
                Array(#"{"error": {"code": \#(failureStatus), "message": "Simulated failure"}}"#.utf8),
                status: HTTPResponse.Status(code: failureStatus))
        }
        guard recorded.path == "/search" || recorded.path == "/search/" else {
            return .fakeAnswer(Array(#"{"error": "Not found"}"#.utf8), status: .notFound)
        }
        guard recorded.query["format"] == "jsonv2" else {
            return .fakeAnswer(
                Array(#"{"error": "Only format=jsonv2 is served here"}"#.utf8), status: .badRequest)
        }
        guard let query = recorded.query["q"], !Self.words(query).isEmpty else {
            return .fakeAnswer(Array(#"{"error": "Nothing to search for"}"#.utf8), status: .badRequest)
        }
        let limit = min(max(Int(recorded.query["limit"] ?? "") ?? 10, 1), 40)
        let withAddress = recorded.query["addressdetails"] == "1"
        let found = places.filter { place(place: $0, matches: query) }.sorted {
            $0.importance > $1.importance
        }.prefix(limit)
        var objects: [String] = []
        for (index, place) in found.enumerated() {
            objects.append(Self.json(of: place, placeId: index + 1, withAddress: withAddress))
        }
        return .fakeAnswer(Array(("[" + objects.joined(separator: ",") + "]").utf8), status: .ok)
    }

    /// True when every word of the query is a word of the place's name or keywords, or the
    /// whole query is one of its keywords.
    private func place(place: Place, matches query: String) -> Bool {
        let normalized = Self.words(query).joined(separator: " ")
        if place.keywords.contains(normalized) { return true }
        var known = Set(Self.words(place.displayName))
        for keyword in place.keywords { known.formUnion(Self.words(keyword)) }
        return Self.words(query).allSatisfy { known.contains($0) }
    }

    private static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    }

    private static func json(of place: Place, placeId: Int, withAddress: Bool) -> String {
        var text =
            #"{"place_id": \#(placeId), "licence": "Data © OpenStreetMap contributors, ODbL 1.0", "#
            + #""lat": "\#(place.latitude)", "lon": "\#(place.longitude)", "#
            + #""category": \#(quotedJSON(place.category)), "type": \#(quotedJSON(place.type)), "#
            + #""place_rank": 16, "importance": \#(place.importance), "#
            + #""addresstype": \#(quotedJSON(place.addressType)), "#
            + #""name": \#(quotedJSON(String(place.displayName.prefix { $0 != "," }))), "#
            + #""display_name": \#(quotedJSON(place.displayName))"#
        if withAddress {
            var address: [String] = []
            if let state = place.state { address.append(#""state": \#(quotedJSON(state))"#) }
            if let country = place.country { address.append(#""country": \#(quotedJSON(country))"#) }
            if let code = place.countryCode { address.append(#""country_code": \#(quotedJSON(code))"#) }
            text += #", "address": {"# + address.joined(separator: ", ") + "}"
        }
        return text + "}"
    }
}
