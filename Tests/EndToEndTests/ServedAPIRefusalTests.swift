import AsyncHTTPClient
import BotTesting
import Foundation
import HTTPBackends
import OnTheMapApp
import OnTheMapService
import Testing

/// What the served `/v1` refuses, on SQLite and PostgreSQL: each refusal answers in the contract's
/// error shape and changes nothing in the directory.
@Suite("Served v1 API refusals")
struct ServedAPIRefusalTests {
    /// Sends `request`, expects `status` with `{"code", "error"}`, and that no pin changed.
    static func expectRefused(
        _ api: ServedClassAPI, _ status: Int, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ request: () async throws -> RawAnswer
    ) async throws {
        let before = try await api.snapshot()
        let answer = try await request()
        #expect(answer.status == status, "\(what): \(answer.text)", sourceLocation: sourceLocation)
        #expect(!answer.isPrefixed, "\(what)", sourceLocation: sourceLocation)
        #expect(answer.json["code"] is Int, "\(what): \(answer.text)", sourceLocation: sourceLocation)
        #expect((answer.json["error"] as? String)?.isEmpty == false, "\(what)", sourceLocation: sourceLocation)
        #expect(try await api.snapshot() == before, "\(what) changed the directory", sourceLocation: sourceLocation)
    }

    @Test(arguments: ServedBackend.allCases)
    func writesThatAreRefusedChangeNothing(_ backend: ServedBackend) async throws {
        try await ServedClassAPI.with(backend) { api in
            let http = RawHTTP(baseURL: api.baseURL)
            let (cookie, _) = try ServedAPIContractTests.cookieHeader(
                try await http.logIn(api.ada.email, api.ada.password))
            let own = RawHTTP.pinBody(uniqueKey: api.ada.key)
            let session = [("Cookie", cookie)]
            try await Self.expectRefused(api, 401, "no cookie") {
                try await http.send(.POST, "/StudentLocation", body: own)
            }
            try await Self.expectRefused(api, 401, "a forged session") {
                try await http.send(
                    .POST, "/StudentLocation", body: own, headers: [("Cookie", "onthemap_session=forged")])
            }
            try await Self.expectRefused(api, 403, "another student's uniqueKey") {
                try await http.send(
                    .POST, "/StudentLocation", body: RawHTTP.pinBody(uniqueKey: api.grace.key), headers: session)
            }
            try await Self.expectRefused(api, 403, "a seeded pin of another account") {
                try await http.send(.PUT, "/StudentLocation/\(api.pins[0].objectId)", body: own, headers: session)
            }
            for link in [
                "javascript:alert(1)", "example.com/ada", "https://user:pw@example.org", "https://x.org/%0D%0APRIVMSG",
                "",
            ] {
                try await Self.expectRefused(api, 400, "the link \(link)") {
                    try await http.send(
                        .POST, "/StudentLocation", body: RawHTTP.pinBody(uniqueKey: api.ada.key, mediaURL: link),
                        headers: session)
                }
            }
            for name in ["Ada\u{07}", "Ada\r\nQUIT", "\u{00}"] {
                try await Self.expectRefused(api, 400, "the name \(name.debugDescription)") {
                    try await http.send(
                        .POST, "/StudentLocation", body: RawHTTP.pinBody(uniqueKey: api.ada.key, firstName: name),
                        headers: session)
                }
            }
            try await Self.expectRefused(api, 400, "a control character in the place") {
                try await http.send(
                    .POST, "/StudentLocation", body: RawHTTP.pinBody(uniqueKey: api.ada.key, mapString: "Paris\u{03}4"),
                    headers: session)
            }
            // The one rule for text on every way in: text-direction, zero-width and other format
            // characters are refused, as on IRC and in imports.
            for place in ["Paris\u{202E}gnp.exe\u{200B}\u{2066}", "Par\u{200B}is", "Ber\u{00AD}lin", "\u{FEFF}Rome"] {
                let answer = try await http.send(
                    .POST, "/StudentLocation", body: RawHTTP.pinBody(uniqueKey: api.ada.key, mapString: place),
                    headers: session)
                #expect(answer.status == 400, "\(place.debugDescription)")
                #expect(
                    answer.json["error"] as? String
                        == "The place contains hidden characters (control, text-direction or zero-width characters).")
            }
            try await Self.expectRefused(api, 400, "a latitude out of range") {
                try await http.send(
                    .POST, "/StudentLocation", body: RawHTTP.pinBody(uniqueKey: api.ada.key, latitude: 123),
                    headers: session)
            }
            for body in ["{nope", #"{"uniqueKey": "x"}"#, "[]"] {
                let answer = try await http.send(.POST, "/StudentLocation", body: body, headers: session)
                #expect(answer.status == 400)
                #expect(answer.json["code"] as? Int == 142)
                #expect(answer.json["error"] as? String == "Failed to parse JSON body.")
            }
            try await Self.expectRefused(api, 415, "a form body (what a cross-site form can send)") {
                try await http.send(
                    .POST, "/StudentLocation", body: own,
                    headers: session + [("Content-Type", "application/x-www-form-urlencoded")], json: false)
            }
            let huge = RawHTTP.pinBody(uniqueKey: api.ada.key, mapString: String(repeating: "a", count: 20_000))
            try await Self.expectRefused(api, 413, "a body over 16 KiB") {
                try await http.send(.POST, "/StudentLocation", body: huge, headers: session)
            }
            try await Self.expectRefused(api, 404, "a missing objectId") {
                try await http.send(.PUT, "/StudentLocation/missing", body: own, headers: session)
            }
            #expect(try await api.directory.location(ofAccount: api.ada.key) == nil)
        }
    }

    @Test(arguments: ServedBackend.allCases)
    func loginsShareTheClassThrottle(_ backend: ServedBackend) async throws {
        try await ServedClassAPI.with(backend) { api in
            let http = RawHTTP(baseURL: api.baseURL)
            let limit = await api.services.loginThrottle.policy.identityFailureLimit
            for attempt in 1..<limit {
                #expect(try await http.logIn(api.ada.email, "guess-\(attempt)").status == 403)
            }
            let last = try await http.logIn(api.ada.email, "guess-last")
            #expect(last.status == 429)
            #expect(last.isPrefixed)
            #expect(last.json["status"] as? Int == 429)
            #expect(Int(last.header("retry-after").first ?? "") ?? 0 > 60)
            // Even the right password waits now, and so does `!login` from the same address.
            let right = try await http.logIn(api.ada.email, api.ada.password)
            #expect(right.status == 429)
            #expect(right.setCookies.isEmpty)
            #expect(await api.services.loginThrottle.check(identity: "h:127.0.0.1", email: "other@example.org") != nil)
        }
    }

    @Test(arguments: ServedBackend.allCases)
    func readsCanRequireALogin(_ backend: ServedBackend) async throws {
        try await ServedClassAPI.with(backend, settings: .init(readRequiresLogin: true)) { api in
            let http = RawHTTP(baseURL: api.baseURL)
            let list = try await http.send(.GET, "/StudentLocation")
            #expect(list.status == 401)
            #expect(list.json["code"] as? Int == 401)
            let user = try await http.send(.GET, "/users/\(api.ada.key)")
            #expect(user.status == 401)
            #expect(user.isPrefixed)
            #expect(user.json["status"] as? Int == 401)
            let (cookie, _) = try ServedAPIContractTests.cookieHeader(
                try await http.logIn(api.ada.email, api.ada.password))
            let allowed = try await http.send(.GET, "/StudentLocation", headers: [("Cookie", cookie)])
            #expect(allowed.status == 200)
            #expect((allowed.json["results"] as? [Any])?.count == 5)
        }
    }

    @Test(arguments: ServedBackend.allCases)
    func geocodeFindsPlacesForALoggedInPage(_ backend: ServedBackend) async throws {
        try await ServedClassAPI.with(backend) { api in
            let http = RawHTTP(baseURL: api.baseURL)
            let anonymous = try await http.send(.GET, "/geocode?q=Paris")
            #expect(anonymous.status == 401)
            #expect(anonymous.json["code"] as? Int == 401)
            let (cookie, _) = try ServedAPIContractTests.cookieHeader(
                try await http.logIn(api.ada.email, api.ada.password))
            let paris = try await http.send(.GET, "/geocode?q=Paris%2C%20France", headers: [("Cookie", cookie)])
            #expect(paris.status == 200)
            #expect(paris.json["status"] as? String == "found")
            let first = try #require((paris.json["results"] as? [[String: Any]])?.first)
            #expect((first["name"] as? String)?.contains("Paris") == true)
            #expect(abs((first["latitude"] as? Double ?? 0) - 48.85) < 0.2)
            let notAPlace = try await http.send(.GET, "/geocode?q=online", headers: [("Cookie", cookie)])
            #expect(notAPlace.json["status"] as? String == "not_a_place")
            let empty = try await http.send(.GET, "/geocode?q=", headers: [("Cookie", cookie)])
            #expect(empty.status == 400)
            #expect(empty.json["code"] as? Int == 400)
        }
    }

    /// The project's own client (the `udacity` backend) passes its whole behaviour suite against
    /// the served API, as it does against the fake Udacity server.
    @Test(arguments: ServedBackend.allCases, UdacityClientBehaviour.checks)
    func clientBehaviour(_ backend: ServedBackend, _ check: UdacityClientBehaviour.Check) async throws {
        try await ServedClassAPI.with(backend) { api in
            let client = try api.client()
            let target = UdacityClientBehaviour.Target(
                client: client, ada: api.ada, grace: api.grace, pins: api.pins
            ) { draft in _ = try await api.directory.createLocation(asTyped: draft, session: nil) }
            do {
                try await check.run(target)
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
        }
    }
}
