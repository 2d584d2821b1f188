import Foundation
import Testing

@testable import OnTheMapService

/// A finder that knows nothing: the coarsener must fall back to its grid.
private struct BlindFinder: PlaceLevelFinder {
    func levels(near coordinate: Coordinate) async -> PlaceLevels? { nil }
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
        get throws { PinCoarsener(finder: try SharedGazetteer.geocoder()) }
    }

    @Test("A street address at city level becomes the populated place: its name and point, not the street")
    func streetAddressBecomesItsCity() async throws {
        let typed = Self.draft("1600 Amphitheatre Parkway, Mountain View, CA", Self.amphitheatre)
        let (pin, precision) = try await coarsener.coarsen(typed, to: .city)
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
        let (region, regionLevel) = try await coarsener.coarsen(typed, to: .region)
        #expect(regionLevel == .region)
        #expect(region.mapString == "California, United States")
        let california = try #require(try SharedGazetteer.geocoder().lookup("California").first)
        #expect(region.coordinate == california.coordinate)
        let (country, countryLevel) = try await coarsener.coarsen(typed, to: .country)
        #expect(countryLevel == .country)
        #expect(country.mapString == "United States")
    }

    @Test("Exact keeps what was given, and what it shows is recognised as exact")
    func exactKeepsTheInput() async throws {
        let typed = Self.draft("1600 Amphitheatre Parkway, Mountain View, CA", Self.amphitheatre)
        let (pin, precision) = try await coarsener.coarsen(typed, to: .exact)
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
        let (pin, precision) = try await coarsener.coarsen(typed, to: .city, resolved: seattle)
        #expect(precision == .city)
        #expect(pin.mapString == seattle.displayName)
        #expect(pin.coordinate == seattle.coordinate)

        let ohio = try #require(gazetteer.lookup("Ohio").first)
        #expect(ohio.kind == .region)
        let (region, level) = try await coarsener.coarsen(
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
        #expect(await coarsener.precision(of: levels.city.coordinate, named: levels.city.name) == .city)
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
            let distance = GreatCircle.distanceKilometres(point, found.city.coordinate)
            #expect(
                abs(distance - best) < 0.01,
                "from \(point): found \(found.city.name) at \(distance) km, nearest is \(best) km")
        }
    }

    @Test("Without place data the point goes to a grid and the text names only the grid point")
    func gridWithoutPlaces() async {
        let coarsener = PinCoarsener(finder: BlindFinder())
        let typed = Self.draft("1600 Amphitheatre Parkway", Self.amphitheatre)
        let (city, _) = await coarsener.coarsen(typed, to: .city)
        #expect(city.coordinate == Coordinate(latitude: 37.4, longitude: -122.1))
        #expect(city.mapString == "Near 37.4, -122.1")
        let (country, _) = await coarsener.coarsen(typed, to: .country)
        #expect(country.coordinate == Coordinate(latitude: 35, longitude: -120))
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
