/// A place a pin may be kept at: its name for people and where it is.
public struct LevelPlace: Sendable, Hashable {
    /// "Mountain View, California, United States", "California, United States", "United States".
    public var name: String
    public var coordinate: Coordinate

    public init(name: String, coordinate: Coordinate) {
        self.name = name
        self.coordinate = coordinate
    }
}

/// The places a point lies in, from the finest kept level to the coarsest: the populated place
/// nearest to it, that place's first-level division (when the data has one) and its country.
public struct PlaceLevels: Sendable, Hashable {
    public var city: LevelPlace
    public var region: LevelPlace?
    public var country: LevelPlace

    public init(city: LevelPlace, region: LevelPlace?, country: LevelPlace) {
        self.city = city
        self.region = region
        self.country = country
    }

    /// The place of `level` (exact has none), and the level it really is: a city without a
    /// region in the data gives its country for `region`.
    public func place(at level: PinPrecision) -> (place: LevelPlace, precision: PinPrecision)? {
        switch level {
        case .exact: nil
        case .city: (city, .city)
        case .region: region.map { ($0, .region) } ?? (country, .country)
        case .country: (country, .country)
        }
    }
}

/// Finds the places a point lies in, offline (the gazetteer): what a pin is coarsened with.
public protocol PlaceLevelFinder: Sendable {
    /// The nearest populated place to `coordinate`, with its region and country; nil when the
    /// data cannot be read.
    func levels(near coordinate: Coordinate) async -> PlaceLevels?
    /// How precisely a pin at `coordinate` named `name` shows where someone is: `.country`,
    /// `.region` or `.city` when both are such a place's own point and name (a pin kept at that
    /// level), otherwise `.exact`.
    func precision(of coordinate: Coordinate, named name: String) async -> PinPrecision
}

extension PlaceKind {
    /// How precise a place of this kind is: a street address is exact.
    public var precision: PinPrecision {
        switch self {
        case .country: .country
        case .region: .region
        case .city: .city
        case .address: .exact
        }
    }
}
