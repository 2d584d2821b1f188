/// Makes a pin no more precise than its student chose, before it is stored: its coordinate and
/// its place text become those of the level's place (the nearest populated place, its region, its
/// country), so what a student typed finer than that ("1600 Amphitheatre Parkway") never reaches
/// the directory. A pin moved to a place of the gazetteer sits on that place's point under its
/// name, which is how ``precision(of:named:)`` recognises it later.
public struct PinCoarsener: Sendable {
    /// Where the places of each level come from; nil: coordinates are rounded to a grid instead
    /// (0.1° for a city, 1° for a region, 5° for a country) and the place text says so.
    public let finder: (any PlaceLevelFinder)?

    public init(finder: (any PlaceLevelFinder)?) {
        self.finder = finder
    }

    /// `place` (a geocoder's answer) at `level`: a place of that level or coarser is kept as it is
    /// (a town or a region typed is shown under its own name, never made finer), anything finer (a
    /// street address) becomes the gazetteer's place of the level around its point. At `.exact`,
    /// unchanged.
    public func coarsen(_ place: PlaceCandidate, to level: PinPrecision) async -> PlaceCandidate {
        let given = place.kind.precision
        guard level != .exact, given < level else { return place }
        let target = level
        if let levels = await finder?.levels(near: place.coordinate), let found = levels.place(at: target) {
            return PlaceCandidate(
                displayName: found.place.name, adminArea: found.precision == .country ? nil : levels.region?.name,
                country: levels.country.name, countryCode: place.countryCode, coordinate: found.place.coordinate,
                kind: found.precision.kind, population: 0, match: place.match)
        }
        let step: Double =
            switch target {
            case .exact, .city: 0.1
            case .region: 1
            case .country: 5
            }
        let latitude = min(90, max(-90, Self.snapped(place.coordinate.latitude, step: step)))
        let longitude = min(180, max(-180, Self.snapped(place.coordinate.longitude, step: step)))
        return PlaceCandidate(
            displayName: "Near \(Self.decimal(latitude)), \(Self.decimal(longitude))", adminArea: nil, country: nil,
            countryCode: nil, coordinate: Coordinate(latitude: latitude, longitude: longitude), kind: target.kind,
            population: 0, match: place.match)
    }

    /// `draft` at `level`, and the level it was kept at. `resolved` is the place the geocoder
    /// found for what the student typed, when there was one (else the draft's point and text are
    /// taken as exact, as an app sends them). At `.exact` the draft is kept as given: the
    /// geocoder's point and the words typed.
    public func coarsen(_ draft: PinDraft, to level: PinPrecision, resolved: PlaceCandidate? = nil) async -> (
        draft: PinDraft, precision: PinPrecision
    ) {
        let given =
            resolved
            ?? PlaceCandidate(
                displayName: draft.mapString, adminArea: nil, country: nil, countryCode: nil,
                coordinate: draft.coordinate, kind: .address, population: 0)
        guard level != .exact else { return (draft, given.kind.precision) }
        let place = await coarsen(given, to: level)
        var coarse = draft
        coarse.mapString = place.displayName
        coarse.coordinate = place.coordinate
        return (coarse, place.kind.precision)
    }

    /// A stored trip no more precise than `level`: its place as a pin's would be coarsened (a trip
    /// kept at that level or coarser is left as it is), its end unchanged.
    public func coarsen(_ trip: Trip, to level: PinPrecision) async -> Trip {
        let kept = await precision(of: trip.coordinate, named: trip.mapString)
        guard level != .exact, kept < level else { return trip }
        let place = await coarsen(
            PlaceCandidate(
                displayName: trip.mapString, adminArea: nil, country: nil, countryCode: nil,
                coordinate: trip.coordinate, kind: kept.kind, population: 0),
            to: level)
        return Trip(mapString: place.displayName, coordinate: place.coordinate, endsAt: trip.endsAt)
    }

    /// The level of a stored pin from its point and place text (`.exact` without a finder).
    public func precision(of coordinate: Coordinate, named name: String) async -> PinPrecision {
        await finder?.precision(of: coordinate, named: name) ?? .exact
    }

    /// The level of a stored pin.
    public func precision(of pin: StudentLocation) async -> PinPrecision {
        await precision(of: pin.coordinate, named: pin.mapString)
    }

    /// `value` to the nearest multiple of `step`, as the tenths it is written with.
    private static func snapped(_ value: Double, step: Double) -> Double {
        ((value / step).rounded() * step * 10).rounded() / 10
    }

    private static func decimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        return "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }
}

extension PinPrecision {
    /// The kind of place a pin of this level is on (an exact one is an address).
    public var kind: PlaceKind {
        switch self {
        case .exact: .address
        case .city: .city
        case .region: .region
        case .country: .country
        }
    }
}
