import Foundation

extension GazetteerGeocoder: PlaceLevelFinder {
    public func levels(near coordinate: Coordinate, minimumPopulation: Int) async -> PlaceLevels? {
        nearestLevels(to: coordinate, minimumPopulation: minimumPopulation)
    }

    public func precision(of coordinate: Coordinate, named name: String) async -> PinPrecision {
        placePrecision(of: coordinate, named: name)
    }

    /// The city nearest to `coordinate` (by great-circle distance), the city a city-level pin
    /// there is kept at (that one when it has at least `minimumPopulation` people, else the
    /// nearest that has in the same division, or none), with its region and country.
    public func nearestLevels(to coordinate: Coordinate, minimumPopulation: Int = 0) -> PlaceLevels? {
        guard coordinate.isValid, let city = nearestCity(to: coordinate) else { return nil }
        let country = Int(store.countryOf[city])
        let region = Int(store.regionOf[city])
        let nearest = levelPlace(city)
        let kept: LevelPlace?
        if Int(store.populations[city]) >= minimumPopulation {
            kept = nearest
        } else {
            kept = nearestCity(to: coordinate, minimumPopulation: minimumPopulation, in: store.division(of: city))
                .map(levelPlace)
        }
        return PlaceLevels(
            nearest: nearest, city: kept,
            region: region >= store.countryCount && region < store.countryCount + store.regionCount
                ? levelPlace(region) : nil,
            country: levelPlace(country))
    }

    /// `.country`, `.region` or `.city` when `coordinate` and `name` are such a place's own point
    /// and full name (a country, a region and a city may share one point: the name tells them
    /// apart), else `.exact`.
    public func placePrecision(of coordinate: Coordinate, named name: String) -> PinPrecision {
        guard let place = place(at: coordinate, named: name) else { return .exact }
        return store.kind(of: place).precision
    }

    /// The country, region or city whose own point and full name are `coordinate` and `name`
    /// (what a pin kept at that level carries), or nil.
    func place(at coordinate: Coordinate, named name: String) -> Int? {
        guard coordinate.isValid else { return nil }
        let key = PointKey(coordinate)
        for place in administrativePoints()[key] ?? []
        where candidate(for: Int(place), match: .exact).displayName == name {
            return Int(place)
        }
        let index = cityIndex()
        let cell =
            GazetteerPlaceIndex.row(coordinate.latitude) * GazetteerPlaceIndex.columns
            + GazetteerPlaceIndex.column(coordinate.longitude)
        for position in Int(index.cellStarts[cell])..<Int(index.cellStarts[cell + 1]) {
            let place = Int(index.order[position])
            if PointKey(latitude: store.latitudes[place], longitude: store.longitudes[place]) == key,
                candidate(for: place, match: .exact).displayName == name
            {
                return place
            }
        }
        return nil
    }

    private func levelPlace(_ place: Int) -> LevelPlace {
        let found = candidate(for: place, match: .exact)
        return LevelPlace(name: found.displayName, coordinate: found.coordinate, population: found.population)
    }

    /// The nearest city of at least `minimumPopulation` people in `division` (any division when
    /// nil): the cells around the point, ring by ring, until no cell left can hold a nearer one.
    /// A cell's cities are read most populous first, up to the first one too small. Nil at once
    /// when the division has no city that large.
    func nearestCity(to coordinate: Coordinate, minimumPopulation: Int = 0, in division: Int? = nil) -> Int? {
        let index = cityIndex()
        let minimum = Int32(clamping: minimumPopulation)
        if let division, index.largestInDivision[division] < minimum { return nil }
        let row = GazetteerPlaceIndex.row(coordinate.latitude)
        let column = GazetteerPlaceIndex.column(coordinate.longitude)
        var best: (place: Int, kilometres: Double)?
        for ring in 0...GazetteerPlaceIndex.columns / 2 {
            var ringNearest = Double.infinity
            for cellRow in max(0, row - ring)...min(GazetteerPlaceIndex.rows - 1, row + ring) {
                let onEdgeRow = abs(cellRow - row) == ring
                let step = onEdgeRow ? 1 : max(1, 2 * ring)
                var offset = -ring
                while offset <= ring {
                    let cellColumn =
                        (column + offset + GazetteerPlaceIndex.columns) % GazetteerPlaceIndex.columns
                    let bound = Self.kilometres(from: coordinate, toCellAt: cellRow, cellColumn)
                    ringNearest = min(ringNearest, bound)
                    if bound < (best?.kilometres ?? .infinity) {
                        let cell = cellRow * GazetteerPlaceIndex.columns + cellColumn
                        let eastWest = Self.eastWestFactor(from: coordinate, toCellRow: cellRow)
                        for position in Int(index.cellStarts[cell])..<Int(index.cellStarts[cell + 1]) {
                            let place = Int(index.order[position])
                            if store.populations[place] < minimum { break }
                            if let division, store.division(of: place) != division { continue }
                            let latitude = Double(store.latitudes[place])
                            // A place at least as far north or south, or (at the latitudes of its
                            // row) east or west, as the nearest found is no nearer (a hair of
                            // margin for rounding): most of a crowded cell is passed over without
                            // the trigonometry.
                            let longitude = Double(store.longitudes[place])
                            if let best,
                                abs(latitude - coordinate.latitude) * Self.kilometresPerDegreeOfLatitude
                                    > best.kilometres * (1 + 1e-9)
                                    || Self.eastWestKilometres(coordinate.longitude, longitude, factor: eastWest)
                                        > best.kilometres * (1 + 1e-9)
                            {
                                continue
                            }
                            let distance = GreatCircle.distanceKilometres(
                                coordinate, Coordinate(latitude: latitude, longitude: longitude))
                            if distance < (best?.kilometres ?? .infinity) { best = (place, distance) }
                        }
                    }
                    offset += step
                }
            }
            if let best, ringNearest >= best.kilometres { break }
        }
        return best?.place
    }

    /// The length of a degree of latitude, the least distance between two points that many
    /// degrees apart north to south.
    static let kilometresPerDegreeOfLatitude = GreatCircle.earthRadiusKilometres * Double.pi / 180

    /// For the places of a row of cells seen from `coordinate`: 2R·√(cos φ·cos φ′), φ′ the row's
    /// latitude farthest from the equator, which no place of the row is farther than (0 when the
    /// row touches a pole).
    private static func eastWestFactor(from coordinate: Coordinate, toCellRow row: Int) -> Double {
        let south = Double(row) - 90
        let farthest = max(abs(south), abs(south + 1))
        let radians = Double.pi / 180
        let product = max(0, cos(coordinate.latitude * radians)) * max(0, cos(min(90, farthest) * radians))
        return 2 * GreatCircle.earthRadiusKilometres * product.squareRoot()
    }

    /// The least distance between points at longitudes `a` and `b` (degrees) whose latitudes give
    /// `factor` (``eastWestFactor(from:toCellRow:)``): the haversine's sum is at least its
    /// east-west term, cos φ·cos φ′·sin²(Δλ/2); the arcsine is at least its argument, and
    /// sin x ≥ x − x³/6 for x ≥ 0.
    private static func eastWestKilometres(_ a: Double, _ b: Double, factor: Double) -> Double {
        var apart = abs(a - b)
        if apart > 180 { apart = 360 - apart }
        let half = apart * Double.pi / 360
        return factor * (half - half * half * half / 6)
    }

    /// The distance from `coordinate` to the nearest point of a 1° cell (a lower bound for any
    /// city in it): its own latitude when the cell spans its longitude, else the point of the
    /// nearer edge meridian closest to it (poleward of its latitude), held inside the cell.
    private static func kilometres(from coordinate: Coordinate, toCellAt row: Int, _ column: Int) -> Double {
        let south = Double(row) - 90
        let west = Double(column) - 180
        var difference = coordinate.longitude - west
        difference -= 360 * (difference / 360).rounded(.down)
        guard difference > 1 else {
            let latitude = min(max(coordinate.latitude, south), south + 1)
            return GreatCircle.distanceKilometres(
                coordinate, Coordinate(latitude: latitude, longitude: coordinate.longitude))
        }
        let towardsEast = 360 - difference
        let (edge, apart) = difference - 1 < towardsEast ? (west + 1, difference - 1) : (west, towardsEast)
        let closest: Double
        if apart >= 90 {
            closest = coordinate.latitude < 0 ? -90 : 90
        } else {
            let radians = Double.pi / 180
            closest = atan(tan(coordinate.latitude * radians) / cos(apart * radians)) / radians
        }
        let latitude = min(max(closest, south), south + 1)
        return GreatCircle.distanceKilometres(coordinate, Coordinate(latitude: latitude, longitude: edge))
    }

    /// The countries' and regions' own points, built on first use (a few thousand entries).
    private func administrativePoints() -> [PointKey: [Int32]] {
        administrativeIndex.withLockedValue { points in
            if let points { return points }
            var built: [PointKey: [Int32]] = [:]
            for place in 0..<(store.countryCount + store.regionCount) {
                built[PointKey(latitude: store.latitudes[place], longitude: store.longitudes[place]), default: []]
                    .append(Int32(place))
            }
            points = built
            return built
        }
    }
}

/// A point at the gazetteer's precision (five decimals), for telling whether a pin sits on a place.
struct PointKey: Hashable, Sendable {
    let latitude: Int64
    let longitude: Int64

    init(_ coordinate: Coordinate) {
        latitude = Int64((coordinate.latitude * 100_000).rounded())
        longitude = Int64((coordinate.longitude * 100_000).rounded())
    }

    init(latitude: Float, longitude: Float) {
        self.init(
            Coordinate(
                latitude: GazetteerGeocoder.rounded(latitude), longitude: GazetteerGeocoder.rounded(longitude)))
    }
}
