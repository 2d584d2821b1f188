import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import OnTheMapApp
@testable import OnTheMapService

/// `/api/locations.json?since=<cursor>`: after the first read a page gets only the pins changed
/// and the ids removed since its cursor; a cursor from before a restart gets every pin again; text
/// that is no cursor is a 400 with a sentence.
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
                client, "/api/locations.json?since=0badcafe-1", as: MapLocationsDocument.self)
            #expect(again.count == 2 && again.cursor == delta.cursor)
        }
    }

    @Test func textThatIsNoCursorIsRefusedPlainly() async throws {
        try await MapFixtures.withMap(try MapFixtures.webMap()) { client in
            _ = try await Self.get(client, "/api/locations.json", as: MapLocationsDocument.self)
            for bad in ["yesterday", "1", "0badcafe-x", "0BADCAFE-1", "0badcafe-1-2", "%3Cscript%3E", "0badcafe--1"] {
                try await client.execute(uri: "/api/locations.json?since=\(bad)", method: .get) { response in
                    #expect(response.status == .badRequest, "\(bad)")
                    let body = String(buffer: response.body)
                    #expect(body.contains("not a cursor this map gave out"), "\(bad): \(body)")
                    #expect(!body.contains("<"))
                }
            }
        }
    }
}
