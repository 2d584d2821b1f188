import AsyncHTTPClient
import Foundation
import Logging
import OnTheMapService

/// A `Geocoder` over a Nominatim-compatible HTTP API (`/search?format=jsonv2`), following the
/// public server's usage policy: a real User-Agent with a contact, at most one request per
/// second from this instance (one request at a time, each starting at least `minimumInterval`
/// after the previous one ended; callers wait their turn), and cached answers.
///
/// Owns its `HTTPClient` unless one is shared with it; call ``shutdown()`` before dropping it.
public final class NominatimGeocoder: Geocoder {
    /// Where and how to reach the geocoder.
    public struct Configuration: Sendable {
        /// The API root, e.g. `https://nominatim.openstreetmap.org`.
        public var baseURL: String
        /// Names the bot and a contact, e.g. `OnTheMapBot/1.0 (+https://example.org; ops@example.org)`.
        /// Must not be empty.
        public var userAgent: String
        /// An optional contact email sent as the `email` parameter (Nominatim's policy allows it).
        public var email: String?
        /// An optional `Accept-Language` for the names in answers.
        public var acceptLanguage: String?
        /// The minimum time between two requests (the public server allows 1 per second).
        public var minimumInterval: Duration
        /// How many distinct queries are cached, and for how long.
        public var cacheCapacity: Int
        public var cacheTimeToLive: Duration
        public var connectTimeout: Duration
        public var requestTimeout: Duration

        public static let defaultBaseURL = "https://nominatim.openstreetmap.org"

        public init(
            baseURL: String = Configuration.defaultBaseURL,
            userAgent: String,
            email: String? = nil,
            acceptLanguage: String? = "en",
            minimumInterval: Duration = .seconds(1),
            cacheCapacity: Int = 1_000,
            cacheTimeToLive: Duration = .seconds(24 * 3600),
            connectTimeout: Duration = .seconds(5),
            requestTimeout: Duration = .seconds(10)
        ) {
            self.baseURL = baseURL
            self.userAgent = userAgent
            self.email = email
            self.acceptLanguage = acceptLanguage
            self.minimumInterval = minimumInterval
            self.cacheCapacity = cacheCapacity
            self.cacheTimeToLive = cacheTimeToLive
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
        }
    }

    /// The longest query sent; longer ones are refused without a request.
    public static let maximumQueryLength = 256
    /// Nominatim answers at most 40 results.
    public static let maximumLimit = 40

    /// The normalized API root (no trailing slash).
    public let baseURL: String
    public let userAgent: String
    private let email: String?
    private let acceptLanguage: String?
    private let exchange: HTTPExchange
    private let waitForTurn: @Sendable () async throws -> Void
    private let endTurn: @Sendable () async -> Void
    private let cache: PlaceCache

    /// Creates the geocoder. Throws `ServiceError.rejectedInput` when the base URL is not
    /// http(s) or the User-Agent is empty. `clock` times the spacing of requests.
    public init<C: Clock>(
        configuration: Configuration,
        httpClient: HTTPClient? = nil,
        clock: C = ContinuousClock(),
        logger: Logger = Logger(label: "onthemap.nominatim")
    ) throws where C.Duration == Duration {
        self.baseURL = try BaseURL.normalize(configuration.baseURL)
        let agent = configuration.userAgent.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !agent.isEmpty, !agent.contains(where: { $0.isNewline }) else {
            throw ServiceError.rejectedInput("the Nominatim User-Agent must name the bot and a contact")
        }
        self.userAgent = agent
        self.email = configuration.email.flatMap { $0.isEmpty ? nil : $0 }
        self.acceptLanguage = configuration.acceptLanguage.flatMap { $0.isEmpty ? nil : $0 }
        let spacer = RequestSpacer(interval: configuration.minimumInterval, clock: clock)
        self.waitForTurn = { try await spacer.waitForTurn() }
        self.endTurn = { await spacer.finished() }
        self.cache = PlaceCache(
            capacity: configuration.cacheCapacity, timeToLive: configuration.cacheTimeToLive)
        self.exchange = HTTPExchange(
            sharing: httpClient, connectTimeout: configuration.connectTimeout,
            requestTimeout: configuration.requestTimeout, maximumBodyBytes: 2 * 1024 * 1024, logger: logger)
    }

    /// Shuts down the `HTTPClient` when the geocoder created it.
    public func shutdown() async {
        await exchange.shutdown()
    }

    public func geocode(_ query: String, limit: Int) async throws -> [PlaceCandidate] {
        let key = PlaceCache.normalize(query)
        guard !key.isEmpty, limit > 0 else { return [] }
        guard key.count <= Self.maximumQueryLength else {
            throw ServiceError.rejectedInput("the place name is too long")
        }
        let limit = min(limit, Self.maximumLimit)
        if let cached = await cache.candidates(for: key, limit: limit) {
            return cached
        }
        try await waitForTurn()
        do {
            let candidates = try await fetch(key: key, limit: limit)
            await endTurn()
            return candidates
        } catch {
            await endTurn()
            throw error
        }
    }

    /// Asks the server (in this caller's turn), unless another caller cached the answer meanwhile.
    private func fetch(key: String, limit: Int) async throws -> [PlaceCandidate] {
        if let cached = await cache.candidates(for: key, limit: limit) {
            return cached
        }
        var items = [("format", "jsonv2"), ("q", key), ("limit", String(limit)), ("addressdetails", "1")]
        if let email { items.append(("email", email)) }
        var headers = [("User-Agent", userAgent), ("Accept", "application/json")]
        if let acceptLanguage { headers.append(("Accept-Language", acceptLanguage)) }
        let reply = try await exchange.send(
            method: "GET", url: baseURL + "/search?" + URLComponentEncoding.query(items), headers: headers,
            body: nil, logPath: "/search")
        guard reply.isSuccess else {
            throw UdacityStudentDirectory.failure(for: reply)
        }
        guard let results = JSONValue.parse(reply.body)?.arrayValue else {
            throw ServiceError.malformedResponse("the geocoder answer is not a JSON array")
        }
        let candidates = Array(results.compactMap(Self.candidate).prefix(limit))
        await cache.store(candidates, for: key, limit: limit)
        return candidates
    }

    /// One Nominatim result as a candidate; nil without a name or valid coordinates.
    static func candidate(_ result: JSONValue) -> PlaceCandidate? {
        guard let name = result["display_name"]?.text, !name.isEmpty,
            let latitude = result["lat"]?.number, let longitude = result["lon"]?.number
        else { return nil }
        let coordinate = Coordinate(latitude: latitude, longitude: longitude)
        guard coordinate.isValid else { return nil }
        let address = result["address"]
        func nonEmpty(_ value: JSONValue?) -> String? {
            guard let text = value?.text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
                return nil
            }
            return text
        }
        let population = result["extratags"]?["population"]?.number.map { Int(max(0, min($0, 1e10))) } ?? 0
        return PlaceCandidate(
            displayName: name,
            adminArea: nonEmpty(address?["state"]) ?? nonEmpty(address?["province"])
                ?? nonEmpty(address?["region"]),
            country: nonEmpty(address?["country"]),
            countryCode: nonEmpty(address?["country_code"])?.uppercased(),
            coordinate: coordinate,
            kind: kind(
                addressType: result["addresstype"]?.text, type: result["type"]?.text,
                category: result["category"]?.text ?? result["class"]?.text),
            population: population)
    }

    /// country / region (state, province) / city (city, town, village …) / address otherwise.
    static func kind(addressType: String?, type: String?, category: String?) -> PlaceKind {
        func classify(_ value: String?) -> PlaceKind? {
            switch value?.lowercased() {
            case "country": .country
            case "state", "province", "region", "state_district": .region
            case "city", "town", "village", "hamlet", "municipality": .city
            default: nil
            }
        }
        if let kind = classify(addressType) { return kind }
        if category?.lowercased() == "boundary" || category?.lowercased() == "place",
            let kind = classify(type)
        {
            return kind
        }
        if addressType == nil, let kind = classify(type) { return kind }
        return .address
    }
}
