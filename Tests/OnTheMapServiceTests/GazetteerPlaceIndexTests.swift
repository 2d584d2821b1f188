import Foundation
import Testing

@testable import OnTheMapService

@Suite("The gazetteer's largest cities of a box")
struct GazetteerPlaceIndexTests {
    static let portugal = GeoBox(west: -10, south: 36.8, east: -6.1, north: 42.2)!

    @Test("Portugal's largest cities come first, in order of population, all inside the box")
    func portugalsLargestCities() throws {
        let places = try SharedGazetteer.geocoder().largestCities(in: Self.portugal, limit: 5)
        #expect(places.map(\.name).prefix(2) == ["Lisbon", "Porto"])
        #expect(places.count == 5)
        #expect(places.allSatisfy { Self.portugal.contains($0.coordinate) })
        #expect(zip(places, places.dropFirst()).allSatisfy { $0.population >= $1.population })
        let lisbon = try #require(places.first)
        #expect(abs(lisbon.coordinate.latitude - 38.725) < 0.001 && abs(lisbon.coordinate.longitude + 9.15) < 0.001)
    }

    @Test("The answer is the same as sorting every city of the box by population")
    func matchesAFullScan() throws {
        let geocoder = try SharedGazetteer.geocoder()
        let store = geocoder.store
        // Boxes across cell edges, inside one cell, and the whole world.
        let boxes = [
            GeoBox(west: -10, south: 36.8, east: -6.1, north: 42.2)!,
            GeoBox(west: 2.1, south: 48.6, east: 2.6, north: 49.0)!,
            GeoBox(west: -74.3, south: 40.4, east: -73.6, north: 41.0)!,
            GeoBox(west: -180, south: -90, east: 180, north: 90)!,
        ]
        for box in boxes {
            let expected = ((store.countryCount + store.regionCount)..<store.placeCount)
                .filter { place in
                    box.contains(
                        Coordinate(latitude: Double(store.latitudes[place]), longitude: Double(store.longitudes[place]))
                    )
                }
                .sorted {
                    store.populations[$0] != store.populations[$1]
                        ? store.populations[$0] > store.populations[$1] : $0 < $1
                }
                .prefix(40).map { store.name(of: $0) }
            #expect(geocoder.largestCities(in: box, limit: 40).map(\.name) == Array(expected), "\(box)")
        }
    }

    @Test("In crowded cells, the nearest city is the one a scan of every city finds, the same place")
    func nearestCityInCrowdedCellsMatchesAFullScan() throws {
        let geocoder = try SharedGazetteer.geocoder()
        let store = geocoder.store
        let cities = (store.countryCount + store.regionCount)..<store.placeCount
        var generator = SystemRandomNumberGenerator()
        // Around London, Paris, Berlin, Tokyo and Mexico City, and on a cell's edge.
        let centres = [(51.51, -0.13), (48.86, 2.35), (52.52, 13.40), (35.68, 139.69), (19.43, -99.13), (50.0, 8.0)]
        for (latitude, longitude) in centres {
            for _ in 0..<6 {
                let point = Coordinate(
                    latitude: latitude + Double.random(in: -0.3...0.3, using: &generator),
                    longitude: longitude + Double.random(in: -0.3...0.3, using: &generator))
                var best: (place: Int, kilometres: Double)?
                for place in cities {
                    let distance = GreatCircle.distanceKilometres(
                        point,
                        Coordinate(
                            latitude: Double(store.latitudes[place]), longitude: Double(store.longitudes[place])))
                    if distance < (best?.kilometres ?? .infinity) { best = (place, distance) }
                }
                let found = try #require(geocoder.nearestCity(to: point))
                let kilometres = GreatCircle.distanceKilometres(
                    point,
                    Coordinate(latitude: Double(store.latitudes[found]), longitude: Double(store.longitudes[found])))
                #expect(kilometres == best?.kilometres, "from \(point): \(store.name(of: found))")
            }
        }
    }

    @Test("A box over the open sea has no cities; the limit is kept and capped")
    func emptyBoxesAndLimits() throws {
        let geocoder = try SharedGazetteer.geocoder()
        #expect(geocoder.largestCities(in: GeoBox(west: -40, south: 30, east: -35, north: 35)!, limit: 20).isEmpty)
        let world = GeoBox(west: -180, south: -90, east: 180, north: 90)!
        #expect(geocoder.largestCities(in: world, limit: 0).isEmpty)
        #expect(geocoder.largestCities(in: world, limit: 3).count == 3)
        #expect(geocoder.largestCities(in: world, limit: 100_000).count == 500)
    }

    @Test("A box needs finite values in range, west before east and south before north")
    func boxesAreValidated() {
        #expect(GeoBox(west: -10, south: 30, east: 10, north: 40) != nil)
        #expect(GeoBox(west: 10, south: 30, east: -10, north: 40) == nil)
        #expect(GeoBox(west: -10, south: 40, east: 10, north: 30) == nil)
        #expect(GeoBox(west: -10, south: 30, east: -10, north: 40) == nil)
        #expect(GeoBox(west: -181, south: 30, east: 10, north: 40) == nil)
        #expect(GeoBox(west: -10, south: -91, east: 10, north: 40) == nil)
        #expect(GeoBox(west: .nan, south: 30, east: 10, north: 40) == nil)
        #expect(GeoBox(west: -10, south: 30, east: .infinity, north: 40) == nil)
    }
}
