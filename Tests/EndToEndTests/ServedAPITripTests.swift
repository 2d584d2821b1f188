import BotTesting
import Foundation
import OnTheMapService
import Testing

/// A `StudentLocation` write with `until` (this bot's extension of the contract, what the web
/// posting scene sends): the place becomes the account's trip, shown instead of its home pin until
/// the end of that day there, and the home pin stays as it was; every bad `until` gets a sentence
/// and changes nothing.
@Suite("Served v1 API trips")
struct ServedAPITripTests {
    @Test(arguments: ServedBackend.allCases)
    func aWriteWithUntilKeepsATripBesideTheHomePin(_ backend: ServedBackend) async throws {
        try await ServedClassAPI.with(backend) { api in
            let http = RawHTTP(baseURL: api.baseURL)
            let (cookie, _) = try ServedAPIContractTests.cookieHeader(
                try await http.logIn(api.ada.email, api.ada.password))
            let session = [("Cookie", cookie)]
            func trip(_ until: String, to objectId: String? = nil) async throws -> RawAnswer {
                let body = RawHTTP.pinBody(
                    uniqueKey: api.ada.key, mapString: "Tokyo", latitude: 35.6895, longitude: 139.6917, until: until)
                return objectId == nil
                    ? try await http.send(.POST, "/StudentLocation", body: body, headers: session)
                    : try await http.send(.PUT, "/StudentLocation/\(objectId!)", body: body, headers: session)
            }

            try await ServedAPIRefusalTests.expectRefused(api, 400, "a trip with no home pin") {
                try await trip("in 3 days")
            }
            let posted = try await http.send(
                .POST, "/StudentLocation", body: RawHTTP.pinBody(uniqueKey: api.ada.key), headers: session)
            #expect(posted.status == 200, "\(posted.text)")
            let home = try #require(try await api.directory.location(ofAccount: api.ada.key))

            for (until, sentence) in [
                ("2020-01-01", "in the past"), ("in 200 days", "90 days"), ("soon", "soon"), ("31 Feb", "31 Feb"),
            ] {
                let before = try await api.snapshot()
                let answer = try await trip(until, to: home.objectId)
                #expect(answer.status == 400, "\(until): \(answer.text)")
                let error = answer.json["error"] as? String ?? ""
                #expect(error.contains(sentence), "\(until): \(error)")
                #expect(try await api.snapshot() == before, "\(until) changed the directory")
            }
            try await ServedAPIRefusalTests.expectRefused(api, 403, "a trip sent to another account's pin") {
                try await trip("in 3 days", to: api.pins[0].objectId)
            }

            let answer = try await trip("in 3 days", to: home.objectId)
            #expect(answer.status == 200, "\(answer.text)")
            let tokyo = TimeZone(identifier: "Asia/Tokyo")!
            let lastDay = LocalClock(timeZone: tokyo, instant: Date()).localDay.adding(days: 3)
            let kept = answer.json["trip"] as? [String: Any]
            #expect(kept?["mapString"] as? String == "Tokyo")
            #expect(kept?["until"] as? String == lastDay.isoText)

            // The home pin is unchanged; the trip is kept beside it and ends with that day in Tokyo.
            let saved = try #require(try await api.directory.location(ofAccount: api.ada.key))
            #expect(saved.mapString == home.mapString && saved.coordinate == home.coordinate)
            #expect(saved.trip?.mapString == "Tokyo")
            #expect(saved.trip?.endsAt == lastDay.adding(days: 1).start(in: tokyo))
            #expect(saved.shown(at: Date()).mapString == "Tokyo")
            #expect(try await api.services.classMap.all().first { $0.uniqueKey == api.ada.key }?.trip == saved.trip)
        }
    }
}
