import Foundation
import Testing

@testable import OnTheMapService

/// An instant from an ISO 8601 text ("2026-07-01T12:00:00Z").
func instant(_ text: String) throws -> Date {
    try #require(ISO8601DateFormatter().date(from: text))
}

@Suite("Time zones of places and pins")
struct PlaceTimeZoneTests {
    private func zone(of query: String) throws -> PlaceTimeZone? {
        try SharedGazetteer.geocoder().lookup(query, limit: 1).first?.timeZone
    }

    @Test("Cities carry their own zone, and the system's tzdata gives their offsets")
    func citiesCarryTheirZones() throws {
        #expect(try zone(of: "London") == .zone("Europe/London"))
        #expect(try zone(of: "Kolkata") == .zone("Asia/Kolkata"))
        #expect(try zone(of: "New York") == .zone("America/New_York"))
        #expect(try zone(of: "Adelaide") == .zone("Australia/Adelaide"))

        let winter = try instant("2026-01-15T12:00:00Z")
        let summer = try instant("2026-07-15T12:00:00Z")
        func offset(_ query: String, at instant: Date) throws -> String {
            let timeZone = try #require(try zone(of: query)?.timeZone, "\(query)")
            return LocalClock(timeZone: timeZone, instant: instant).offsetText
        }
        #expect(try offset("London", at: winter) == "UTC+0")
        #expect(try offset("London", at: summer) == "UTC+1")
        #expect(try offset("Kolkata", at: summer) == "UTC+5:30")
        #expect(try offset("New York", at: winter) == "UTC-5")
        #expect(try offset("New York", at: summer) == "UTC-4")
        #expect(try offset("Adelaide", at: winter) == "UTC+10:30")
        #expect(try offset("Adelaide", at: summer) == "UTC+9:30")
    }

    @Test("A region has its largest city's zone; a country one zone, or several")
    func regionsAndCountries() throws {
        #expect(try zone(of: "California") == .zone("America/Los_Angeles"))
        #expect(try zone(of: "Japan") == .zone("Asia/Tokyo"))
        #expect(try zone(of: "France") == .zone("Europe/Paris"))
        #expect(try zone(of: "United States") == .several)
        #expect(try zone(of: "Spain") == .several)  // the Canary Islands keep UTC+0
        #expect(try zone(of: "Portugal") == .several)  // the Azores keep UTC-1
        #expect(try zone(of: "India") == .zone("Asia/Kolkata"))  // two misfiled towns do not count
        #expect(try zone(of: "Brunei") == .zone("Asia/Brunei"))
        #expect(PlaceTimeZone.several.timeZone == nil)
        #expect(PlaceTimeZone.several.identifier == nil)
    }

    @Test("Every zone of the gazetteer is known to this system's time zone data")
    func everyZoneResolves() throws {
        let identifiers = try SharedGazetteer.geocoder().timeZoneIdentifiers
        #expect(identifiers.count > 300)
        #expect(identifiers == identifiers.sorted())
        for identifier in identifiers {
            #expect(TimeZone(identifier: identifier) != nil, "\(identifier)")
        }
    }

    @Test("A raw coordinate has the zone of the nearest city; an invalid one has none")
    func nearestPlaceZone() throws {
        let geocoder = try SharedGazetteer.geocoder()
        // A flat in Salt Lake (Kolkata's suburb), off any gazetteer point.
        #expect(geocoder.nearestTimeZone(to: Coordinate(latitude: 22.58, longitude: 88.41)) == .zone("Asia/Kolkata"))
        // El Paso keeps Mountain time, while most of Texas keeps Central time.
        #expect(
            geocoder.nearestTimeZone(to: Coordinate(latitude: 31.77, longitude: -106.44)) == .zone("America/Denver"))
        // Just west of the Indiana line, on Chicago's side.
        #expect(
            geocoder.nearestTimeZone(to: Coordinate(latitude: 41.88, longitude: -87.63)) == .zone("America/Chicago"))
        #expect(geocoder.nearestTimeZone(to: Coordinate(latitude: 91, longitude: 0)) == .unknown)
    }

    @Test("Zone lookups read the in-memory columns: the mapped file's resident pages do not grow")
    func zoneLookupsLeaveTheFileAlone() throws {
        let geocoder = try GazetteerGeocoder.loadBundled()
        let before = try #require(try GazetteerTests.mapping(containing: geocoder.store.text.base))
        var known = 0
        for latitude in stride(from: -60.0, through: 70, by: 2.5) {
            for longitude in stride(from: -180.0, to: 180, by: 5) {
                let zone = geocoder.nearestTimeZone(to: Coordinate(latitude: latitude, longitude: longitude))
                if zone.identifier != nil { known += 1 }
            }
        }
        #expect(known > 3_000)
        let after = try #require(try GazetteerTests.mapping(containing: geocoder.store.text.base))
        #expect(after.residentKiB - before.residentKiB < 64, "\(before.residentKiB) → \(after.residentKiB) KiB")
    }

    @Test("A pin's zone: its place's when kept at a place, several for a multi-zone country, else the nearest")
    func pinZoneRule() async throws {
        let geocoder = try SharedGazetteer.geocoder()
        let coarsener = PinCoarsener(finder: geocoder, cityMinimumPopulation: 15_000)
        let zones = PinTimeZones(finder: geocoder)
        let seattle = try #require(geocoder.lookup("Seattle", limit: 1).first)
        let tokyo = try #require(geocoder.lookup("Tokyo", limit: 1).first)

        // Kept at country precision: the United States has several zones, Japan one.
        let usCountry = await coarsener.coarsen(seattle, to: .country)
        #expect(await coarsener.precision(of: usCountry.coordinate, named: usCountry.displayName) == .country)
        #expect(await zones.timeZone(ofPinAt: usCountry.coordinate, named: usCountry.displayName) == .several)
        let japan = await coarsener.coarsen(tokyo, to: .country)
        #expect(await zones.timeZone(ofPinAt: japan.coordinate, named: japan.displayName) == .zone("Asia/Tokyo"))

        // Kept at region precision: Washington state's zone (its point is its largest city's).
        let washington = await coarsener.coarsen(seattle, to: .region)
        #expect(await coarsener.precision(of: washington.coordinate, named: washington.displayName) == .region)
        #expect(
            await zones.timeZone(ofPinAt: washington.coordinate, named: washington.displayName)
                == .zone("America/Los_Angeles"))

        // At city precision and as a StudentLocation.
        let pin = StudentLocation(
            objectId: "p1", uniqueKey: "u1", firstName: "Ada", lastName: "L", mapString: seattle.displayName,
            mediaURL: "", coordinate: seattle.coordinate, createdAt: Date(), updatedAt: Date())
        #expect(await zones.timeZone(of: pin) == .zone("America/Los_Angeles"))

        // The same point as the United States' pin under other words (from the API): the nearest
        // city's zone, Washington DC's.
        #expect(
            await zones.timeZone(ofPinAt: usCountry.coordinate, named: "Our office") == .zone("America/New_York"))
        // Without a finder nothing is known.
        #expect(await PinTimeZones(finder: nil).timeZone(of: pin) == .unknown)
    }
}
