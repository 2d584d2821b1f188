import Foundation
import Testing

@testable import OnTheMapService

/// A finder that knows nothing: the coarsener must fall back to its grid.
private struct BlindFinder: PlaceLevelFinder {
    func levels(near coordinate: Coordinate, minimumPopulation: Int) async -> PlaceLevels? { nil }
    func precision(of coordinate: Coordinate, named name: String) async -> PinPrecision { .exact }
}

@Suite("Pin precision")
struct PinCoarsenerTests {
    static let amphitheatre = Coordinate(latitude: 37.422476, longitude: -122.084249)

    static func draft(_ place: String, _ coordinate: Coordinate) -> PinDraft {
        PinDraft(
            uniqueKey: "k1", firstName: "Ada", lastName: "Lovelace", mapString: place,
            mediaURL: "https://example.org/ada", coordinate: coordinate)
    }

    var coarsener: PinCoarsener {
        get throws {
            PinCoarsener(
                finder: try SharedGazetteer.geocoder(),
                cityMinimumPopulation: PrivacyPolicy.defaultCityMinimumPopulation)
        }
    }

    @Test("A street address at city level becomes the populated place: its name and point, not the street")
    func streetAddressBecomesItsCity() async throws {
        let typed = Self.draft("1600 Amphitheatre Parkway, Mountain View, CA", Self.amphitheatre)
        let (pin, precision) = try await coarsener.keptPair(typed, to: .city)
        #expect(precision == .city)
        #expect(pin.mapString == "Mountain View, California, United States")
        let city = try #require(try SharedGazetteer.geocoder().lookup("Mountain View, CA").first)
        #expect(pin.coordinate == city.coordinate)
        #expect(!pin.mapString.contains("Amphitheatre"))
        #expect(pin.uniqueKey == typed.uniqueKey && pin.mediaURL == typed.mediaURL && pin.firstName == "Ada")
    }

    @Test("Region and country levels keep the division's or the country's name and point")
    func regionAndCountry() async throws {
        let typed = Self.draft("1600 Amphitheatre Parkway", Self.amphitheatre)
        let (region, regionLevel) = try await coarsener.keptPair(typed, to: .region)
        #expect(regionLevel == .region)
        #expect(region.mapString == "California, United States")
        let california = try #require(try SharedGazetteer.geocoder().lookup("California").first)
        #expect(region.coordinate == california.coordinate)
        let (country, countryLevel) = try await coarsener.keptPair(typed, to: .country)
        #expect(countryLevel == .country)
        #expect(country.mapString == "United States")
    }

    @Test("Exact keeps what was given, and what it shows is recognised as exact")
    func exactKeepsTheInput() async throws {
        let typed = Self.draft("1600 Amphitheatre Parkway, Mountain View, CA", Self.amphitheatre)
        let (pin, precision) = try await coarsener.keptPair(typed, to: .exact)
        #expect(pin == typed)
        #expect(precision == .exact)
        #expect(try await coarsener.precision(of: Self.amphitheatre, named: typed.mapString) == .exact)
    }

    @Test("A place found for the words typed is kept under its own name; nothing finer is made up")
    func resolvedPlaces() async throws {
        let gazetteer = try SharedGazetteer.geocoder()
        let seattle = try #require(gazetteer.lookup("1 Pine Street, Seattle, WA").first)
        #expect(seattle.kind == .city)
        let typed = Self.draft("1 Pine Street, Seattle, WA", seattle.coordinate)
        let (pin, precision) = try await coarsener.keptPair(typed, to: .city, resolved: seattle)
        #expect(precision == .city)
        #expect(pin.mapString == seattle.displayName)
        #expect(pin.coordinate == seattle.coordinate)

        let ohio = try #require(gazetteer.lookup("Ohio").first)
        #expect(ohio.kind == .region)
        let (region, level) = try await coarsener.keptPair(
            Self.draft("Ohio", ohio.coordinate), to: .city, resolved: ohio)
        #expect(level == .region, "a region typed is never made a city")
        #expect(region.mapString == ohio.displayName)
    }

    @Test("The precision of a stored point is the level of the place it sits on")
    func precisionOfStoredPoints() async throws {
        let gazetteer = try SharedGazetteer.geocoder()
        let coarsener = try self.coarsener
        for (query, level) in [("Seattle", PinPrecision.city), ("Ohio", .region), ("France", .country)] {
            let place = try #require(gazetteer.lookup(query).first)
            #expect(await coarsener.precision(of: place.coordinate, named: place.displayName) == level, "\(query)")
        }
        let levels = try #require(gazetteer.nearestLevels(to: Self.amphitheatre))
        #expect(await coarsener.precision(of: levels.nearest.coordinate, named: levels.nearest.name) == .city)
        // A country, its region and its city may share one point: the name tells them apart, and
        // words typed at that point are taken as exact.
        let paris = try #require(gazetteer.lookup("Paris, France").first)
        #expect(await coarsener.precision(of: paris.coordinate, named: "France") == .country)
        #expect(await coarsener.precision(of: paris.coordinate, named: "Île-de-France, France") == .region)
        #expect(await coarsener.precision(of: paris.coordinate, named: paris.displayName) == .city)
        #expect(await coarsener.precision(of: paris.coordinate, named: "Paris, France") == .exact)
    }

    @Test("The nearest populated place is the one a scan of every city finds, near the antimeridian and the poles too")
    func nearestMatchesAFullScan() throws {
        let gazetteer = try SharedGazetteer.geocoder()
        let store = gazetteer.store
        let cities = (store.countryCount + store.regionCount)..<store.placeCount
        var generator = SystemRandomNumberGenerator()
        var points = [
            Coordinate(latitude: -16.8, longitude: 179.99), Coordinate(latitude: -16.8, longitude: -179.99),
            Coordinate(latitude: 78.2, longitude: 15.6), Coordinate(latitude: -89, longitude: 0),
            Coordinate(latitude: -40, longitude: -130), Self.amphitheatre,
        ]
        for _ in 0..<40 {
            points.append(
                Coordinate(
                    latitude: Double.random(in: -70...75, using: &generator),
                    longitude: Double.random(in: -180...180, using: &generator)))
        }
        for point in points {
            var best = Double.infinity
            for place in cities {
                let city = Coordinate(
                    latitude: Double(store.latitudes[place]), longitude: Double(store.longitudes[place]))
                best = min(best, GreatCircle.distanceKilometres(point, city))
            }
            let found = try #require(gazetteer.nearestLevels(to: point))
            let distance = GreatCircle.distanceKilometres(point, found.nearest.coordinate)
            #expect(
                abs(distance - best) < 0.01,
                "from \(point): found \(found.nearest.name) at \(distance) km, nearest is \(best) km")
        }
    }

    @Test("Without place data the point goes to a grid and the text names only the grid point")
    func gridWithoutPlaces() async {
        let coarsener = PinCoarsener(finder: BlindFinder(), cityMinimumPopulation: 15_000)
        let typed = Self.draft("1600 Amphitheatre Parkway", Self.amphitheatre)
        let (city, _) = await coarsener.keptPair(typed, to: .city)
        #expect(city.coordinate == Coordinate(latitude: 37.4, longitude: -122.1))
        #expect(city.mapString == "Near 37.4, -122.1")
        let (country, _) = await coarsener.keptPair(typed, to: .country)
        #expect(country.coordinate == Coordinate(latitude: 35, longitude: -120))
    }

    // MARK: - Small places

    /// The bundled gazetteer's first city for `query` ("Barcelos, Portugal": the places below).
    static func city(_ query: String) throws -> PlaceCandidate {
        try #require(try SharedGazetteer.geocoder().lookup(query, limit: 10).first { $0.kind == .city })
    }

    /// A point about 400 m from `place`: a street in it, as an app sends it.
    static func street(near place: PlaceCandidate) -> Coordinate {
        Coordinate(latitude: place.coordinate.latitude + 0.003, longitude: place.coordinate.longitude - 0.002)
    }

    /// A village smaller than the minimum is kept at the nearest town of at least that many people
    /// in its region, whether a street in it or its own name was given: Merelim (about 5,400
    /// people) becomes Braga, its point and name, and the pin reads as a city's.
    @Test("A village is widened to the nearest town of its region that is large enough")
    func aVillageIsWidenedToATownOfItsRegion() async throws {
        let coarsener = try self.coarsener
        let merelim = try Self.city("Merelim")
        let braga = try Self.city("Braga, Portugal")
        #expect(merelim.displayName == "Merelim, Braga, Portugal" && merelim.population < 15_000)
        #expect(braga.displayName == "Braga, Portugal" && braga.population >= 15_000)

        let address = Self.draft("Rua da Igreja 12, Merelim", Self.street(near: merelim))
        let fromStreet = await coarsener.coarsening(address, to: .city)
        #expect(fromStreet.precision == .city && fromStreet.isWidened)
        #expect(fromStreet.draft.mapString == braga.displayName)
        #expect(fromStreet.draft.coordinate == braga.coordinate)

        let typed = await coarsener.coarsening(merelim, to: .city)
        #expect(typed.isWidened)
        #expect(typed.place.displayName == braga.displayName && typed.place.coordinate == braga.coordinate)
        #expect(typed.place.kind == .city)
        let (pin, level) = await coarsener.keptPair(
            Self.draft("Merelim", merelim.coordinate), to: .city, resolved: merelim)
        #expect(level == .city && pin.mapString == braga.displayName && pin.coordinate == braga.coordinate)

        // A geocoder that gives no population (Nominatim often does not): the gazetteer's says.
        var unknown = merelim
        unknown.population = 0
        #expect(await coarsener.coarsen(unknown, to: .city).displayName == braga.displayName)

        // Braga's district has Braga's point and name too: the pin still reads as the town's.
        #expect(await coarsener.precision(of: braga.coordinate, named: braga.displayName) == .city)
        // Coarsening it again changes nothing.
        #expect(await coarsener.coarsen(typed.place, to: .city) == typed.place)
    }

    /// The town kept is in the village's own region even when a town of another region is
    /// nearer: Vila Nova de Famalicão (Braga district) becomes Barcelos, not Bougado (Porto
    /// district), which is half as far.
    @Test("The town a village is widened to is in the village's region")
    func theWidenedTownIsInTheSameRegion() async throws {
        let famalicao = try Self.city("Vila Nova de Famalicão")
        let barcelos = try Self.city("Barcelos, Portugal")
        let bougado = try Self.city("Bougado")
        #expect(famalicao.adminArea == "Braga" && barcelos.adminArea == "Braga" && bougado.adminArea == "Porto")
        #expect(bougado.population >= 15_000 && famalicao.population < 15_000)
        #expect(
            GreatCircle.distanceKilometres(famalicao.coordinate, bougado.coordinate)
                < GreatCircle.distanceKilometres(famalicao.coordinate, barcelos.coordinate))
        let widened = try await coarsener.coarsen(famalicao, to: .city)
        #expect(widened.displayName == barcelos.displayName && widened.coordinate == barcelos.coordinate)
        #expect(try await coarsener.precision(of: widened.coordinate, named: widened.displayName) == .city)
    }

    /// A village whose region has no place of the minimum's size is kept at the region, at region
    /// precision: Erstfeld, in the canton of Uri (no town of 15,000), becomes "Uri, Switzerland",
    /// not Schwyz in the next canton; such a pin reads as a region's.
    @Test("A village in a region without a large enough town is kept at the region")
    func aVillageInARegionWithoutATownIsKeptAtTheRegion() async throws {
        let coarsener = try self.coarsener
        let erstfeld = try Self.city("Erstfeld")
        let uri = try #require(try SharedGazetteer.geocoder().nearestLevels(to: erstfeld.coordinate)?.region)
        #expect(uri.name == "Uri, Switzerland")

        let typed = await coarsener.coarsening(erstfeld, to: .city)
        #expect(typed.isWidened && typed.place.kind == .region)
        #expect(typed.place.displayName == uri.name && typed.place.coordinate == uri.coordinate)

        let (pin, level) = await coarsener.keptPair(
            Self.draft("Gotthardstrasse 3, Erstfeld", Self.street(near: erstfeld)), to: .city)
        #expect(level == .region)
        #expect(pin.mapString == uri.name && pin.coordinate == uri.coordinate)
        #expect(await coarsener.precision(of: pin.coordinate, named: pin.mapString) == .region)
    }

    /// A town of the minimum's size or more, a region and a country typed at city level, and
    /// anything at exact level are kept as they are; so is a village with the minimum set to 0.
    @Test("Large towns, coarser places, exact pins and a minimum of 0 are untouched")
    func largePlacesAndZeroAreUntouched() async throws {
        let coarsener = try self.coarsener
        let braga = try Self.city("Braga, Portugal")
        let barcelos = try Self.city("Barcelos, Portugal")
        for town in [braga, barcelos] {
            let kept = await coarsener.coarsening(town, to: .city)
            #expect(kept.place == town && !kept.isWidened, "\(town.displayName)")
        }
        let ohio = try #require(try SharedGazetteer.geocoder().lookup("Ohio").first)
        #expect(await coarsener.coarsen(ohio, to: .city) == ohio)

        let merelim = try Self.city("Merelim")
        let street = Self.draft("Rua da Igreja 12, Merelim", Self.street(near: merelim))
        #expect(await coarsener.coarsen(street, to: .exact).draft == street)
        #expect(await coarsener.coarsen(merelim, to: .exact) == merelim)

        let off = PinCoarsener(finder: try SharedGazetteer.geocoder(), cityMinimumPopulation: 0)
        #expect(await off.coarsen(merelim, to: .city) == merelim)
        let (pin, level) = await off.keptPair(street, to: .city)
        #expect(level == .city && pin.mapString == merelim.displayName && pin.coordinate == merelim.coordinate)
        #expect(await off.isFiner(than: .city, at: merelim.coordinate, named: merelim.displayName) == false)
    }

    /// Without place data the grid knows no towns: a village typed at city level stays as typed.
    @Test("Without place data nothing is widened")
    func withoutPlaceDataNothingIsWidened() async throws {
        let merelim = try Self.city("Merelim")
        let grid = PinCoarsener(finder: BlindFinder(), cityMinimumPopulation: 15_000)
        #expect(await grid.coarsen(merelim, to: .city) == merelim)
        let (pin, _) = await grid.keptPair(Self.draft("Rua da Igreja 12", Self.street(near: merelim)), to: .city)
        #expect(pin.mapString.hasPrefix("Near "))
    }

    /// A trip follows the rule of home pins: a trip kept at a village (city level) or at a street
    /// in one is widened to the town, its end kept; a trip at a large town stays.
    @Test("Trips in small places are widened like pins")
    func tripsAreWidenedToo() async throws {
        let coarsener = try self.coarsener
        let merelim = try Self.city("Merelim")
        let braga = try Self.city("Braga, Portugal")
        let ends = Date(timeIntervalSince1970: 1_800_000_000)
        for trip in [
            Trip(mapString: merelim.displayName, coordinate: merelim.coordinate, endsAt: ends),
            Trip(mapString: "Rua da Igreja 12, Merelim", coordinate: Self.street(near: merelim), endsAt: ends),
        ] {
            let widened = await coarsener.coarsen(trip, to: .city).trip
            #expect(widened == Trip(mapString: braga.displayName, coordinate: braga.coordinate, endsAt: ends))
        }
        let inBraga = Trip(mapString: braga.displayName, coordinate: braga.coordinate, endsAt: ends)
        #expect(await coarsener.coarsen(inBraga, to: .city).trip == inBraga)
    }

    /// A place kept before the minimum (a village at city level) shows more than city level now,
    /// so `!privacy city` and `pins coarsen` re-store it; a widened one, or a region's that shares
    /// its town's point and name, is already what its level makes of it.
    @Test("A village kept at city level is finer than city level; a town or its region is not")
    func finerThanALevel() async throws {
        let coarsener = try self.coarsener
        let merelim = try Self.city("Merelim")
        let braga = try Self.city("Braga, Portugal")
        #expect(await coarsener.isFiner(than: .city, at: merelim.coordinate, named: merelim.displayName))
        #expect(await !coarsener.isFiner(than: .city, at: braga.coordinate, named: braga.displayName))
        #expect(await !coarsener.isFiner(than: .region, at: braga.coordinate, named: braga.displayName))
        #expect(await coarsener.isFiner(than: .country, at: braga.coordinate, named: braga.displayName))
        #expect(await !coarsener.isFiner(than: .exact, at: merelim.coordinate, named: merelim.displayName))
    }

    /// The town a village is widened to is the one a scan of every city of its division finds:
    /// the nearest of at least the minimum, or none (the index's early stops lose nothing).
    @Test("The widened town is the one a full scan of the region finds")
    func widenedTownMatchesAFullScan() throws {
        let gazetteer = try SharedGazetteer.geocoder()
        let store = gazetteer.store
        let cities = (store.countryCount + store.regionCount)..<store.placeCount
        let minimum = 15_000
        var generator = SystemRandomNumberGenerator()
        var points = [
            try Self.city("Merelim").coordinate, try Self.city("Erstfeld").coordinate,
            try Self.city("Vila Nova de Famalicão").coordinate, Coordinate(latitude: 78.2, longitude: 15.6),
        ]
        for _ in 0..<30 {
            points.append(
                Coordinate(
                    latitude: Double.random(in: -50...65, using: &generator),
                    longitude: Double.random(in: -180...180, using: &generator)))
        }
        var widened = 0
        for point in points {
            let levels = try #require(gazetteer.nearestLevels(to: point, minimumPopulation: minimum))
            guard levels.nearest.population < minimum else {
                #expect(levels.city == levels.nearest)
                continue
            }
            widened += 1
            let nearest = try #require(gazetteer.nearestCity(to: point))
            let division = store.division(of: nearest)
            var best: (place: Int, kilometres: Double)?
            for place in cities where store.division(of: place) == division && store.populations[place] >= minimum {
                let distance = GreatCircle.distanceKilometres(
                    point,
                    Coordinate(latitude: Double(store.latitudes[place]), longitude: Double(store.longitudes[place])))
                if distance < (best?.kilometres ?? .infinity) { best = (place, distance) }
            }
            guard let best else {
                #expect(levels.city == nil, "from \(point): \(String(describing: levels.city)), the scan found none")
                continue
            }
            let found = try #require(levels.city, "from \(point): none found, the scan found one")
            let distance = GreatCircle.distanceKilometres(point, found.coordinate)
            #expect(abs(distance - best.kilometres) < 0.01, "from \(point): \(found.name) at \(distance) km")
        }
        #expect(widened >= 3)
    }

    @Test("A student's choice is held to the finest level the operator allows")
    func policyHoldsChoices() {
        let policy = PrivacyPolicy(defaultPrecision: .city, finestPrecision: .city)
        #expect(policy.allowed(nil) == .city)
        #expect(policy.allowed(.exact) == .city)
        #expect(policy.allowed(.region) == .region)
        #expect(PinPrecision.exact < .city && PinPrecision.city < .region && PinPrecision.region < .country)
    }
}

extension PinCoarsener {
    /// The pin `draft` is kept as at `level`, and the level stored with it.
    fileprivate func keptPair(_ draft: PinDraft, to level: PinPrecision, resolved: PlaceCandidate? = nil) async -> (
        PinDraft, PinPrecision
    ) {
        let kept = await coarsen(draft, to: level, resolved: resolved)
        return (kept.draft, kept.precision)
    }
}
