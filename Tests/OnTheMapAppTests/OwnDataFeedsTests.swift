import BotTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLiteDirectory
import Testing

@testable import OnTheMapApp
@testable import OnTheMapService

/// `/me/…` on the web map over a real SQLite class: a live feed token or the signed-in browser's
/// session gets that student's own pin (GeoJSON) and trips (iCalendar), never another's; anything
/// else gets a sentence and changes nothing; no answer is kept by a cache or sends a referrer.
@Suite struct OwnDataFeedsTests {
    struct Class {
        let folder: TemporaryDirectory
        let sqlite: SQLiteStudentDirectory
        let links: DataFeedLinks
        let jane: StudentLocation
        let janeSession: DirectorySession
        let map: WebMap
    }

    /// Jane (a pin in Seattle and a trip to Lisbon) and Tom (a pin in Oslo), both kept as typed.
    static func makeClass() async throws -> Class {
        let folder = try TemporaryDirectory(prefix: "own-data")
        let sqlite = try SQLiteStudentDirectory(
            path: folder.file("class.sqlite"),
            options: LocalDirectoryOptions(passwordHasher: PasswordHasher(uncheckedRounds: 1_000)))
        let password = "correct horse battery"
        let janeAccount = try await sqlite.addAccount(
            email: "jane@class.test", password: password, firstName: "Jane", lastName: "Doe")
        let tomAccount = try await sqlite.addAccount(
            email: "tom@class.test", password: password, firstName: "Tom", lastName: "Berg")
        _ = try await sqlite.createLocation(
            asTyped: PinDraft(
                uniqueKey: janeAccount.accountKey, firstName: "Jane", lastName: "Doe", mapString: "Seattle, WA",
                mediaURL: "https://example.org/jane", coordinate: Coordinate(latitude: 47.60621, longitude: -122.33207)),
            session: nil)
        let jane = try await sqlite.setTrip(
            asTyped: Trip(
                mapString: "Lisbon, Portugal", coordinate: Coordinate(latitude: 38.71667, longitude: -9.13333),
                endsAt: Date().addingTimeInterval(10 * 86_400)),
            ofAccount: janeAccount.accountKey, session: nil)
        _ = try await sqlite.createLocation(
            asTyped: PinDraft(
                uniqueKey: tomAccount.accountKey, firstName: "Tom", lastName: "Berg", mapString: "Oslo, Norway",
                mediaURL: "https://example.org/tom", coordinate: Coordinate(latitude: 59.91273, longitude: 10.74609)),
            session: nil)
        let session = try await sqlite.logIn(email: "jane@class.test", password: password)
        let links = DataFeedLinks(store: sqlite)
        let access = MapAccess(visibility: .class, accounts: sqlite, signInLinks: nil, dataFeeds: links)
        let map = WebMap(
            feed: MapPinFeed(maxAge: .zero, load: { [] }), geocoder: FixedGeocoder(places: [:]),
            assets: try WebMap.Assets.bundled(), access: access, logger: .init(label: "test"))
        return Class(folder: folder, sqlite: sqlite, links: links, jane: jane, janeSession: session, map: map)
    }

    static func expectPrivate(_ response: TestResponse, _ path: String) {
        #expect(response.headers[.cacheControl] == "private, no-store", "\(path)")
        #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer", "\(path)")
        #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(path)")
    }

    @Test func aLiveTokenGetsTheStudentsOwnPinAndTrips() async throws {
        let school = try await Self.makeClass()
        let token = try await school.links.issue(accountKey: school.jane.uniqueKey)
        try await MapFixtures.withMap(school.map) { client in
            try await client.execute(uri: "/me/\(token)/pins.geojson", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/geo+json")
                #expect(response.headers[.contentDisposition] == "attachment; filename=\"my-pin.geojson\"")
                Self.expectPrivate(response, "pins")
                let document = try #require(
                    try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                let features = try #require(document["features"] as? [[String: Any]])
                #expect(features.count == 2)
                let points = features.compactMap { ($0["geometry"] as? [String: Any])?["coordinates"] as? [Double] }
                #expect(points == [[-122.33207, 47.60621], [-9.13333, 38.71667]])
                let text = String(buffer: response.body)
                #expect(!text.contains("Oslo") && !text.contains("Tom") && !text.contains("10.74609"))
            }
            try await client.execute(uri: "/me/\(token)/trips.ics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/calendar; charset=utf-8")
                #expect(response.headers[.contentDisposition] == "attachment; filename=\"my-trips.ics\"")
                Self.expectPrivate(response, "trips")
                let text = String(buffer: response.body)
                #expect(text.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"), "\(text)")
                #expect(text.contains("\r\nSUMMARY:Trip: Lisbon\\, Portugal\r\n"), "\(text)")
                #expect(text.contains("\r\nLOCATION:Lisbon\\, Portugal\r\n"), "\(text)")
                #expect(text.contains("\r\nGEO:38.71667;-9.13333\r\n"), "\(text)")
                #expect(!text.contains("Seattle") && !text.contains("Oslo"))
            }
            // Polled again, the token still works.
            try await client.execute(uri: "/me/\(token)/trips.ics", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test func garbageReplacedOrRevokedTokensAndOtherFilesGetA404Sentence() async throws {
        let school = try await Self.makeClass()
        let old = try await school.links.issue(accountKey: school.jane.uniqueKey)
        let live = try await school.links.issue(accountKey: school.jane.uniqueKey)
        let kept = try await school.sqlite.state(DataFeedLinks.stateKey(accountKey: school.jane.uniqueKey))
        let secret = String(live.split(separator: ".")[1])
        let wrong = String(live.split(separator: ".")[0]) + "." + String(secret.reversed())
        try await MapFixtures.withMap(school.map) { client in
            for path in [
                "/me/\(old)/pins.geojson", "/me/\(wrong)/trips.ics", "/me/garbage/pins.geojson", "/me/a.b/trips.ics",
                "/me/\(live)/secrets.txt", "/me/\(live)", "/me/%3Cscript%3E/pins.geojson", "/me",
                "/me/\(live)/pins.geojson/more", "/me/a/b/c/d",
            ] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .notFound, "\(path)")
                    #expect(String(buffer: response.body).hasPrefix("No such feed:"), "\(path)")
                    #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
                    Self.expectPrivate(response, path)
                }
            }
        }
        // Nothing changed: the live token is the same, and still works.
        #expect(try await school.sqlite.state(DataFeedLinks.stateKey(accountKey: school.jane.uniqueKey)) == kept)
        #expect(try await school.links.account(of: live) == school.jane.uniqueKey)
        try await school.links.revoke(accountKey: school.jane.uniqueKey)
        try await MapFixtures.withMap(school.map) { client in
            try await client.execute(uri: "/me/\(live)/pins.geojson", method: .get) {
                #expect($0.status == .notFound)
            }
        }
    }

    @Test func theSignedInBrowserGetsItsOwnDataAndASignedOutOneASentence() async throws {
        let school = try await Self.makeClass()
        try await MapFixtures.withMap(school.map) { client in
            try await client.execute(
                uri: "/me/pins.geojson", method: .get,
                headers: [.cookie: "onthemap_session=\(school.janeSession.sessionId)"]
            ) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/geo+json")
                Self.expectPrivate(response, "signed-in pins")
                let text = String(buffer: response.body)
                #expect(text.contains("Seattle, WA") && !text.contains("Oslo"), "\(text)")
            }
            try await client.execute(
                uri: "/me/trips.ics", method: .get,
                headers: [.cookie: "onthemap_session=\(school.janeSession.sessionId)"]
            ) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("LOCATION:Lisbon\\, Portugal"))
            }
            // The page asks whether to offer the files: always 200, true only for a live session.
            let asked: [(HTTPFields, String)] = [
                ([.cookie: "onthemap_session=\(school.janeSession.sessionId)"], "{\"signedIn\":true}"),
                ([:], "{\"signedIn\":false}"), ([.cookie: "onthemap_session=not-a-session"], "{\"signedIn\":false}"),
            ]
            for (headers, expected) in asked {
                try await client.execute(uri: "/me/status.json", method: .get, headers: headers) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == expected)
                    Self.expectPrivate(response, "status")
                }
            }
            for headers: HTTPFields in [[:], [.cookie: "onthemap_session=not-a-session"]] {
                try await client.execute(uri: "/me/pins.geojson", method: .get, headers: headers) { response in
                    #expect(response.status == .unauthorized)
                    #expect(String(buffer: response.body).hasPrefix("Sign in on the class map first"))
                    Self.expectPrivate(response, "signed out")
                }
            }
        }
    }
}
