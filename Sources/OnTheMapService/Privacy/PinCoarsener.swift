/// Makes a pin no more precise than its student chose, before it is stored: its coordinate and
/// its place text become those of the level's place (the nearest populated place, its region, its
/// country), so what a student typed finer than that ("1600 Amphitheatre Parkway") never reaches
/// the directory. At city level a place of fewer people than ``cityMinimumPopulation`` is widened:
/// the pin is kept at the nearest place of at least that many in the same region, or at the region
/// when it has none, so a village of 300 is not as findable as a street. A pin moved to a place of
/// the gazetteer sits on that place's point under its name, which is how
/// ``precision(of:named:)`` recognises it later.
public struct PinCoarsener: Sendable {
    /// Where the places of each level come from; nil: coordinates are rounded to a grid instead
    /// (0.1° for a city, 1° for a region, 5° for a country) and the place text says so.
    public let finder: (any PlaceLevelFinder)?
    /// `privacy.city_min_population`: the fewest people a place kept at city level has (0: any
    /// populated place). Grid rounding, without a finder, knows no populations and ignores it.
    public let cityMinimumPopulation: Int

    public init(finder: (any PlaceLevelFinder)?, cityMinimumPopulation: Int) {
        self.finder = finder
        self.cityMinimumPopulation = max(0, cityMinimumPopulation)
    }

    /// A place made no finer than a level.
    public struct CoarsePlace: Sendable, Hashable {
        public var place: PlaceCandidate
        /// Whether the place is a larger town than the one nearest to the point, or its region: the
        /// nearest has fewer people than ``PinCoarsener/cityMinimumPopulation``.
        public var isWidened: Bool
    }

    /// A pin made no finer than a level.
    public struct CoarsePin: Sendable, Hashable {
        /// The pin as a directory stores it, with the level it is kept at: the one asked for, or
        /// coarser (a region typed at city level, a village whose region has no town large enough).
        public var pin: KeptPin
        /// Whether its place was widened (see ``CoarsePlace/isWidened``).
        public var isWidened: Bool

        public var draft: PinDraft { pin.draft }
        public var precision: PinPrecision { pin.precision }
    }

    /// `place` (a geocoder's answer) at `level`: a place of that level or coarser is kept as it is
    /// (a town or a region typed is shown under its own name, never made finer), except a town at
    /// city level with fewer people than ``cityMinimumPopulation``, which is widened; anything finer
    /// (a street address) becomes the gazetteer's place of the level around its point. At
    /// `.exact`, unchanged.
    public func coarsen(_ place: PlaceCandidate, to level: PinPrecision) async -> PlaceCandidate {
        await coarsening(place, to: level).place
    }

    /// What `coarsen(_:to:)` makes of `place`, and whether it was widened.
    public func coarsening(_ place: PlaceCandidate, to level: PinPrecision) async -> CoarsePlace {
        let given = place.kind.precision
        let unchanged = CoarsePlace(place: place, isWidened: false)
        guard level != .exact, given <= level else { return unchanged }
        guard given < level else { return await widened(place) ?? unchanged }
        let minimum = level == .city ? cityMinimumPopulation : 0
        if let levels = await finder?.levels(near: place.coordinate, minimumPopulation: minimum),
            let found = levels.place(at: level)
        {
            return CoarsePlace(
                place: Self.candidate(found, in: levels, for: place), isWidened: level == .city && levels.isWidened)
        }
        let step: Double =
            switch level {
            case .exact, .city: 0.1
            case .region: 1
            case .country: 5
            }
        let latitude = min(90, max(-90, Self.snapped(place.coordinate.latitude, step: step)))
        let longitude = min(180, max(-180, Self.snapped(place.coordinate.longitude, step: step)))
        return CoarsePlace(
            place: PlaceCandidate(
                displayName: "Near \(Self.decimal(latitude)), \(Self.decimal(longitude))", adminArea: nil, country: nil,
                countryCode: nil, coordinate: Coordinate(latitude: latitude, longitude: longitude), kind: level.kind,
                population: 0, match: place.match),
            isWidened: false)
    }

    /// The place a town kept at city level is widened to when it has fewer people than the
    /// minimum; nil when it stays as it is (large enough, widening off, no place data). Its
    /// population is the geocoder's, or when the geocoder gives none, that of the gazetteer's
    /// populated place nearest to its point (the town itself, when it is the gazetteer's).
    private func widened(_ place: PlaceCandidate) async -> CoarsePlace? {
        guard place.kind == .city, cityMinimumPopulation > 0, let finder,
            let levels = await finder.levels(near: place.coordinate, minimumPopulation: cityMinimumPopulation)
        else { return nil }
        let population = place.population > 0 ? place.population : levels.nearest.population
        guard population < cityMinimumPopulation, let found = levels.place(at: .city) else { return nil }
        return CoarsePlace(place: Self.candidate(found, in: levels, for: place), isWidened: true)
    }

    /// The candidate of `found`, one of the places of `levels`, standing for `place`.
    private static func candidate(
        _ found: (place: LevelPlace, precision: PinPrecision), in levels: PlaceLevels, for place: PlaceCandidate
    ) -> PlaceCandidate {
        PlaceCandidate(
            displayName: found.place.name, adminArea: found.precision == .country ? nil : levels.region?.name,
            country: levels.country.name, countryCode: place.countryCode, coordinate: found.place.coordinate,
            kind: found.precision.kind, population: found.place.population, match: place.match)
    }

    /// `draft` at `level`, as a directory takes it. `resolved` is the place the geocoder found for
    /// what the student typed, when there was one (else the draft's point and text are taken as
    /// exact, as an app sends them). At `.exact` the draft is kept as given, the geocoder's point
    /// and the words typed, and its level is exact. A trip the draft carries is kept at `level` too.
    public func coarsen(_ draft: PinDraft, to level: PinPrecision, resolved: PlaceCandidate? = nil) async -> KeptPin {
        await coarsening(draft, to: level, resolved: resolved).pin
    }

    /// What `coarsen(_:to:resolved:)` makes of `draft`, and whether its place was widened.
    public func coarsening(_ draft: PinDraft, to level: PinPrecision, resolved: PlaceCandidate? = nil) async
        -> CoarsePin
    {
        let given =
            resolved
            ?? PlaceCandidate(
                displayName: draft.mapString, adminArea: nil, country: nil, countryCode: nil,
                coordinate: draft.coordinate, kind: .address, population: 0)
        var pin = draft
        if let trip = draft.trip { pin.trip = await coarsen(trip, to: level).trip }
        // At exact level the words typed are kept, whatever place was found for them.
        guard level != .exact else { return CoarsePin(pin: KeptPin(draft: pin, precision: .exact), isWidened: false) }
        let coarse = await coarsening(given, to: level)
        pin.mapString = coarse.place.displayName
        pin.coordinate = coarse.place.coordinate
        return CoarsePin(
            pin: KeptPin(draft: pin, precision: coarse.place.kind.precision), isWidened: coarse.isWidened)
    }

    /// A stored trip no more precise than `level`: its place as a pin's would be coarsened (a trip
    /// kept at that level or coarser is left as it is, but for a town of fewer people than the
    /// minimum kept at city level, which is widened), its end unchanged; as a directory takes it.
    public func coarsen(_ trip: Trip, to level: PinPrecision) async -> KeptTrip {
        let kept = await precision(of: trip.coordinate, named: trip.mapString)
        guard level != .exact, kept <= level else { return KeptTrip(trip: trip) }
        let place = await coarsen(
            PlaceCandidate(
                displayName: trip.mapString, adminArea: nil, country: nil, countryCode: nil,
                coordinate: trip.coordinate, kind: kept.kind, population: 0),
            to: level)
        return KeptTrip(trip: Trip(mapString: place.displayName, coordinate: place.coordinate, endsAt: trip.endsAt))
    }

    /// Whether a stored place (a pin's or a trip's) shows more than `level` allows: coarsening it
    /// to that level would change its point or text. So a place kept at a finer level is, and so is
    /// a city-level one in a town of fewer people than the minimum (kept before the minimum was set
    /// or raised); a place that is already what the level makes of it is not. Never at `.exact`.
    /// `keptAt`: the level stored with the place, when known (else read from its point and text).
    public func isFiner(
        than level: PinPrecision, at coordinate: Coordinate, named name: String, keptAt stored: PinPrecision? = nil
    ) async -> Bool {
        guard level != .exact else { return false }
        var kept = stored ?? .exact
        if stored == nil { kept = await precision(of: coordinate, named: name) }
        let coarse = await coarsen(
            PlaceCandidate(
                displayName: name, adminArea: nil, country: nil, countryCode: nil, coordinate: coordinate,
                kind: kept.kind, population: 0),
            to: level)
        return coarse.displayName != name || PointKey(coarse.coordinate) != PointKey(coordinate)
    }

    /// Whether `pin` (its home place) shows more than `level` allows; see
    /// ``isFiner(than:at:named:)``.
    public func isFiner(_ pin: StudentLocation, than level: PinPrecision) async -> Bool {
        await isFiner(than: level, at: pin.coordinate, named: pin.mapString, keptAt: pin.precision)
    }

    /// The level of a stored pin from its point and place text (`.exact` without a finder). A
    /// region and its main town may share one point and name ("Braga, Portugal"): such a pin reads
    /// as the town's when the town has the people to keep a city-level pin (it is what a city-level
    /// pin there, or one widened to it, is kept at), else as the region's.
    public func precision(of coordinate: Coordinate, named name: String) async -> PinPrecision {
        guard let finder else { return .exact }
        let found = await finder.precision(of: coordinate, named: name)
        guard found == .region,
            let town = await finder.levels(near: coordinate, minimumPopulation: cityMinimumPopulation)?.city,
            town.name == name, PointKey(town.coordinate) == PointKey(coordinate)
        else { return found }
        return .city
    }

    /// The level of a stored pin: the one stored with it, else (a pin kept before levels were
    /// stored, or by a backend that keeps none) the one its point and place text show.
    public func precision(of pin: StudentLocation) async -> PinPrecision {
        if let stored = pin.precision { return stored }
        return await precision(of: pin.coordinate, named: pin.mapString)
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
