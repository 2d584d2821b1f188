/// What kind of place a geocoder candidate is.
public enum PlaceKind: String, Sendable, Hashable, Codable {
    case country, region, city, address
}

/// How a geocoder's answer matched the query.
public enum PlaceMatch: String, Sendable, Hashable, Codable {
    /// The query names the place: one of its names or codes, with qualifiers that fit it.
    case exact
    /// A completion ("San Fran"), a near spelling ("Seatle"), or a region found after words that
    /// named nothing ("Smallville, Ohio"): a guess to offer, never to assume.
    case approximate
}

/// One answer of a geocoder for a free-text place.
public struct PlaceCandidate: Sendable, Hashable, Codable {
    /// A human name for the place: "Seattle, Washington, United States".
    public var displayName: String
    /// First-level region (state, province), when known.
    public var adminArea: String?
    /// Country name, when known.
    public var country: String?
    /// ISO 3166-1 alpha-2 code, when known.
    public var countryCode: String?
    public var coordinate: Coordinate
    public var kind: PlaceKind
    public var population: Int
    /// Whether the query named this place or only came close to it.
    public var match: PlaceMatch
    /// The place's time zone, when the geocoder knows zones (the gazetteer does): its IANA name,
    /// or that the place (a country) spans several; nil from a geocoder that does not tell.
    public var timeZone: PlaceTimeZone?

    public init(
        displayName: String, adminArea: String?, country: String?, countryCode: String?,
        coordinate: Coordinate, kind: PlaceKind, population: Int, match: PlaceMatch = .exact,
        timeZone: PlaceTimeZone? = nil
    ) {
        self.displayName = displayName
        self.adminArea = adminArea
        self.country = country
        self.countryCode = countryCode
        self.coordinate = coordinate
        self.kind = kind
        self.population = population
        self.match = match
        self.timeZone = timeZone
    }
}

/// Turns a free-text place into candidates, best first. Unknown input gives no candidates; a
/// candidate the query did not name exactly says so in its `match`. Network failures of HTTP geocoders throw `ServiceError.networkUnreachable`.
public protocol Geocoder: Sendable {
    func geocode(_ query: String, limit: Int) async throws -> [PlaceCandidate]
}
