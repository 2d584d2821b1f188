/// A place a pin may be kept at: its name for people, where it is and how many people live there.
public struct LevelPlace: Sendable, Hashable {
    /// "Mountain View, California, United States", "California, United States", "United States".
    public var name: String
    public var coordinate: Coordinate
    /// The people living there, as the data has it (0 when it does not say).
    public var population: Int

    public init(name: String, coordinate: Coordinate, population: Int) {
        self.name = name
        self.coordinate = coordinate
        self.population = population
    }
}

/// The places a point lies in, from the finest kept level to the coarsest: the populated place
/// nearest to it, the place a city-level pin there is kept at, that place's first-level division
/// (when the data has one) and its country.
public struct PlaceLevels: Sendable, Hashable {
    /// The populated place nearest to the point, however small.
    public var nearest: LevelPlace
    /// The place a city-level pin at the point is kept at: ``nearest`` when it has at least the
    /// population asked for, else the nearest place of that size in the same first-level division
    /// (among its country's places without one, when it has none); nil when there is no such place.
    public var city: LevelPlace?
    public var region: LevelPlace?
    public var country: LevelPlace

    public init(nearest: LevelPlace, city: LevelPlace?, region: LevelPlace?, country: LevelPlace) {
        self.nearest = nearest
        self.city = city
        self.region = region
        self.country = country
    }

    /// Whether a city-level pin is kept elsewhere than at ``nearest``: the nearest populated place
    /// has fewer people than the minimum.
    public var isWidened: Bool { city != nearest }

    /// The place of `level` (exact has none), and the level it really is: a city-level pin whose
    /// division has no place large enough gives the division's place for `city`, and a place
    /// without a region in the data gives its country for `region`.
    public func place(at level: PinPrecision) -> (place: LevelPlace, precision: PinPrecision)? {
        switch level {
        case .exact: nil
        case .city: city.map { ($0, .city) } ?? place(at: .region)
        case .region: region.map { ($0, .region) } ?? (country, .country)
        case .country: (country, .country)
        }
    }
}

/// Finds the places a point lies in, offline (the gazetteer): what a pin is coarsened with.
public protocol PlaceLevelFinder: Sendable {
    /// The nearest populated place to `coordinate`, the place a city-level pin there is kept at
    /// (the nearest of at least `minimumPopulation` people in its first-level division; 0 takes the
    /// nearest, however small), with its region and country; nil when the data cannot be read.
    func levels(near coordinate: Coordinate, minimumPopulation: Int) async -> PlaceLevels?
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
