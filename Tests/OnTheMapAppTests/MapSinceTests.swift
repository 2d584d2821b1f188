import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import HummingbirdTesting
import Testing

@testable import OnTheMapApp
@testable import OnTheMapService

/// `/api/locations.json?since=<cursor>`: after the first read a page gets only the pins changed
/// and the ids removed since its cursor (a trip that ended since among them); a cursor from before
/// a restart gets every pin again; text that is no cursor is a 400 with a sentence.
@Suite struct MapSinceTests {
    actor Pins {
        var pins: [StudentLocation]
        init(_ pins: [StudentLocation]) { self.pins = pins }
        func set(_ pins: [StudentLocation]) { self.pins = pins }
    }

    static func get<T: Decodable & Sendable>(
        _ client: any TestClientProtocol, _ uri: String, as type: T.Type
    ) async throws -> T {
        try await client.execute(uri: uri, method: .get) { response in
            #expect(response.status == .ok, "\(uri): \(String(buffer: response.body))")
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(T.self, from: Data(buffer: response.body))
        }
    }

    @Test func aSinceReadCarriesOnlyWhatChanged() async throws {
        let all = MapFixtures.pins
        let source = Pins(all)
        let map = try MapFixtures.webMap(load: { await source.pins })
        try await MapFixtures.withMap(map) { client in
            let first = try await Self.get(client, "/api/locations.json", as: MapLocationsDocument.self)
            #expect(first.count == all.count)
            let cursor = try #require(first.cursor)

            let idle = try await Self.get(client, "/api/locations.json?since=\(cursor)", as: MapLocationsChanges.self)
            #expect(idle.changed.isEmpty && idle.removed.isEmpty && idle.cursor == cursor)

            var moved = all[1]
            moved.mapString = "Porto"
            moved.updatedAt = moved.updatedAt.addingTimeInterval(30)
            await source.set([all[0], moved])  // the third pin is removed, the second moved
            let delta = try await Self.get(client, "/api/locations.json?since=\(cursor)", as: MapLocationsChanges.self)
            #expect(delta.changed.map(\.id) == [moved.objectId])
            #expect(delta.changed.first?.place == "Porto")
            #expect(delta.removed == [all[2].objectId])
            #expect(delta.count == 2)
            #expect(delta.cursor != cursor)

            let after = try await Self.get(
                client, "/api/locations.json?since=\(delta.cursor)", as: MapLocationsChanges.self)
            #expect(after.changed.isEmpty && after.removed.isEmpty)

            // A cursor of another run of the bot: every pin again.
            let again = try await Self.get(
                client, "/api/locations.json?since=0badcafe-1-1780000000", as: MapLocationsDocument.self)
            #expect(again.count == 2 && again.cursor == delta.cursor)
        }
    }

    @Test func textThatIsNoCursorIsRefusedPlainly() async throws {
        try await MapFixtures.withMap(try MapFixtures.webMap()) { client in
            _ = try await Self.get(client, "/api/locations.json", as: MapLocationsDocument.self)
            for bad in [
                "yesterday", "1", "0badcafe-x", "0BADCAFE-1-2", "0badcafe-1", "0badcafe-1-2-3", "0badcafe-1-x",
                "%3Cscript%3E", "0badcafe--1-2", "0badcafe-1--2",
            ] {
                try await client.execute(uri: "/api/locations.json?since=\(bad)", method: .get) { response in
                    #expect(response.status == .badRequest, "\(bad)")
                    let body = String(buffer: response.body)
                    #expect(body.contains("not a cursor this map gave out"), "\(bad): \(body)")
                    #expect(!body.contains("<"))
                }
            }
        }
    }

    /// A pin on a trip shows the trip's place, its last day and the zone there; once the trip has
    /// ended a page that asks what changed gets the home pin back; a pin that moves gets the zone
    /// of its new place. Zones are the bundled gazetteer's.
    @Test func aTripShowsUntilItEndsAndEachPinCarriesItsZone() async throws {
        let clock = NIOLockedValueBox(MapFixtures.base)
        var away = MapFixtures.pins[0]  // home in Lisbon
        let endsAt = MapFixtures.base.addingTimeInterval(3 * 86_400)
        away.trip = Trip(mapString: "Tokyo", coordinate: Coordinate(latitude: 35.69, longitude: 139.69), endsAt: endsAt)
        let bruno = away
        let source = Pins([bruno, MapFixtures.pins[2]])
        let map = try MapFixtures.webMap(
            load: { await source.pins }, timeZones: PinTimeZones(finder: CommandExampleTests.geocoder),
            now: { clock.withLockedValue { $0 } })
        try await MapFixtures.withMap(map) { client in
            let first = try await Self.get(client, "/api/locations.json", as: MapLocationsDocument.self)
            let shown = try #require(first.pins.first { $0.id == "b" })
            #expect(shown.place == "Tokyo" && shown.latitude == 35.69 && shown.longitude == 139.69)
            #expect(shown.timeZone == "Asia/Tokyo")
            let lastDay = LocalClock(timeZone: TimeZone(identifier: "Asia/Tokyo")!, instant: endsAt - 1).localDay
            #expect(shown.until == lastDay.isoText)
            let ada = try #require(first.pins.first { $0.id == "a" })
            #expect(ada.place == "London" && ada.timeZone == "Europe/London" && ada.until == nil)

            // The trip ends: nothing was saved, yet the pin comes back as a change, at home.
            clock.withLockedValue { $0 = endsAt }
            let home = try await Self.get(
                client, "/api/locations.json?since=\(try #require(first.cursor))", as: MapLocationsChanges.self)
            #expect(home.changed.map(\.id) == ["b"])
            #expect(home.changed.first?.place == "Lisbon" && home.changed.first?.until == nil)
            #expect(home.changed.first?.timeZone == "Europe/Lisbon")
            let quiet = try await Self.get(
                client, "/api/locations.json?since=\(home.cursor)", as: MapLocationsChanges.self)
            #expect(quiet.changed.isEmpty)

            // Ada moves to Kolkata (a half-hour offset): her pin's zone is found again.
            var moved = MapFixtures.pins[2]
            moved.mapString = "Kolkata"
            moved.coordinate = Coordinate(latitude: 22.57, longitude: 88.36)
            moved.updatedAt = moved.updatedAt.addingTimeInterval(60)
            await source.set([bruno, moved])
            let delta = try await Self.get(
                client, "/api/locations.json?since=\(quiet.cursor)", as: MapLocationsChanges.self)
            #expect(delta.changed.map(\.id) == ["a"] && delta.changed.first?.timeZone == "Asia/Kolkata")
        }
    }
}
