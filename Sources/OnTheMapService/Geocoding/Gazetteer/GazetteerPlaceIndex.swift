/// A rectangle of the map in degrees: `west < east` (it never crosses the antimeridian) and
/// `south < north`, inside the valid ranges.
public struct GeoBox: Sendable, Hashable {
    public let west: Double
    public let south: Double
    public let east: Double
    public let north: Double

    /// Nil unless the four values are finite, inside -180…180 and -90…90, and in order.
    public init?(west: Double, south: Double, east: Double, north: Double) {
        guard west.isFinite, south.isFinite, east.isFinite, north.isFinite,
            (-180...180).contains(west), (-180...180).contains(east), west < east,
            (-90...90).contains(south), (-90...90).contains(north), south < north
        else { return nil }
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    /// Whether `coordinate` lies inside, edges included.
    public func contains(_ coordinate: Coordinate) -> Bool {
        (west...east).contains(coordinate.longitude) && (south...north).contains(coordinate.latitude)
    }
}

/// A city a map may label: its own name (no region or country), where it is, how many live there.
public struct LabelledPlace: Sendable, Hashable, Codable {
    public var name: String
    public var coordinate: Coordinate
    public var population: Int

    public init(name: String, coordinate: Coordinate, population: Int) {
        self.name = name
        self.coordinate = coordinate
        self.population = population
    }
}

/// The gazetteer's cities by place on the map: every city id, grouped by the 1° × 1° cell it lies
/// in and, inside a cell, most populous first. Four bytes a city plus four a cell; the largest
/// cities of a box are found by reading only the cells the box touches. Beside them, the population
/// of each division's largest city (four bytes a country or region), so a search for a city of some
/// size in a division that has none stops at once.
struct GazetteerPlaceIndex: Sendable {
    static let columns = 360
    static let rows = 180

    /// City ids, cell by cell, most populous first in each cell.
    let order: [Int32]
    /// Where each cell's ids start in `order` (one more entry than there are cells).
    let cellStarts: [Int32]
    /// The population of the largest city of each division (``GazetteerStore/division(of:)``),
    /// by its id; 0 for one without cities.
    let largestInDivision: [Int32]

    init(store: GazetteerStore) {
        let cities = (store.countryCount + store.regionCount)..<store.placeCount
        var counts = [Int32](repeating: 0, count: Self.columns * Self.rows + 1)
        var largest = [Int32](repeating: 0, count: store.countryCount + store.regionCount)
        for place in cities {
            counts[Self.cell(latitude: store.latitudes[place], longitude: store.longitudes[place]) + 1] += 1
            let division = store.division(of: place)
            largest[division] = max(largest[division], store.populations[place])
        }
        largestInDivision = largest
        for cell in 1..<counts.count { counts[cell] += counts[cell - 1] }
        var next = counts
        var order = [Int32](repeating: 0, count: cities.count)
        for place in cities {
            let cell = Self.cell(latitude: store.latitudes[place], longitude: store.longitudes[place])
            order[Int(next[cell])] = Int32(place)
            next[cell] += 1
        }
        let populations = store.populations
        for cell in 0..<(counts.count - 1) where counts[cell + 1] - counts[cell] > 1 {
            order[Int(counts[cell])..<Int(counts[cell + 1])].sort { populations[Int($0)] > populations[Int($1)] }
        }
        self.order = order
        cellStarts = counts
    }

    static func cell(latitude: Float, longitude: Float) -> Int {
        row(Double(latitude)) * columns + column(Double(longitude))
    }

    static func column(_ longitude: Double) -> Int { min(columns - 1, max(0, Int((longitude + 180).rounded(.down)))) }
    static func row(_ latitude: Double) -> Int { min(rows - 1, max(0, Int((latitude + 90).rounded(.down)))) }

    /// The ids of the `limit` most populous cities inside `box`, most populous first (ties: the
    /// lower id first, so an answer never changes between calls).
    func largest(in box: GeoBox, limit: Int, store: GazetteerStore) -> [Int] {
        guard limit > 0 else { return [] }
        var found: [Int32] = []
        for row in Self.row(box.south)...Self.row(box.north) {
            for column in Self.column(box.west)...Self.column(box.east) {
                let cell = row * Self.columns + column
                var taken = 0
                for index in Int(cellStarts[cell])..<Int(cellStarts[cell + 1]) {
                    if taken == limit { break }
                    let place = Int(order[index])
                    let latitude = Double(store.latitudes[place])
                    let longitude = Double(store.longitudes[place])
                    guard (box.south...box.north).contains(latitude), (box.west...box.east).contains(longitude)
                    else { continue }
                    found.append(Int32(place))
                    taken += 1
                }
            }
        }
        let populations = store.populations
        found.sort {
            populations[Int($0)] != populations[Int($1)] ? populations[Int($0)] > populations[Int($1)] : $0 < $1
        }
        return found.prefix(limit).map(Int.init)
    }
}
