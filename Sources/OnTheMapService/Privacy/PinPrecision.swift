/// How precisely a pin shows where its student is: the level its coordinates and place text were
/// kept at. A student chooses it (`!privacy`); the pin is made at that level before it is stored,
/// so a finer input never reaches the directory.
public enum PinPrecision: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// What the geocoder found, and the place as the student typed it.
    case exact
    /// The populated place the geocoder resolved ("Mountain View, California, United States").
    case city
    /// The first-level division (state, province).
    case region
    /// The country.
    case country

    /// Finer levels first: `exact < city < region < country`.
    public static func < (lhs: PinPrecision, rhs: PinPrecision) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .exact: 0
        case .city: 1
        case .region: 2
        case .country: 3
        }
    }

    /// The coarser of two levels.
    public static func coarser(_ a: PinPrecision, _ b: PinPrecision) -> PinPrecision { max(a, b) }

    /// The level a word names ("city", "Region"), or nil.
    public init?(word: String) {
        self.init(rawValue: word.lowercased())
    }

    /// "city, region, country or exact": the levels in the words `!privacy` takes.
    public static var wordList: String { "city, region, country or exact" }
}
