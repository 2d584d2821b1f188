/// What kind of place a geocoder candidate is.
public enum PlaceKind: String, Sendable, Hashable, Codable {
    case country, region, city, address
}

/// One answer of a geocoder for a free-text place.
public struct PlaceCandidate: Sendable, Hashable {
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

    public init(
        displayName: String, adminArea: String?, country: String?, countryCode: String?,
        coordinate: Coordinate, kind: PlaceKind, population: Int
    ) {
        self.displayName = displayName
        self.adminArea = adminArea
        self.country = country
        self.countryCode = countryCode
        self.coordinate = coordinate
        self.kind = kind
        self.population = population
    }
}

/// Turns a free-text place into candidates, best first. Unknown input gives no candidates,
/// never a guess. Network failures of HTTP geocoders throw `ServiceError.networkUnreachable`.
public protocol Geocoder: Sendable {
    func geocode(_ query: String, limit: Int) async throws -> [PlaceCandidate]
}
