import AsyncHTTPClient
import BotTesting
import Foundation
import OnTheMapApp
import OnTheMapService
import Testing

/// The bot's `/v1` through real HTTP, on SQLite and PostgreSQL: every endpoint's answers and
/// error shapes as the On The Map contract gives them, and the writes it must refuse.
@Suite("Served v1 API contract")
struct ServedAPIContractTests {
    static var millisecondTime: Regex<Substring> { #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/# }
    static var microsecondTime: Regex<Substring> { #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/# }

    /// The session cookie and XSRF token of a login answer, as a `Cookie` header.
    static func cookieHeader(_ login: RawAnswer) throws -> (cookie: String, xsrf: String) {
        let session = try #require(login.cookieValue("onthemap_session"))
        let xsrf = try #require(login.cookieValue("XSRF-TOKEN"))
        return ("onthemap_session=\(session); XSRF-TOKEN=\(xsrf)", xsrf)
    }

    /// With `plugins.login.passwords: false`, `POST /v1/session` refuses even the right password
    /// with a sentence that names the way in, and starts no session.
    @Test func passwordsOffRefusesEveryPasswordLogin() async throws {
        try await ServedClassAPI.with(.sqlite, settings: ClassAPI.Settings(passwords: false)) { api in
            let http = RawHTTP(baseURL: api.baseURL)
            let login = try await http.logIn(api.ada.email, api.ada.password)
            #expect(login.status == 403)
            #expect((login.json["error"] as? String)?.contains("!map") == true, "\(login.text)")
            #expect(login.cookieValue("onthemap_session") == nil)
            let record = try await api.directory.accountRecord(.key(api.ada.key))
            #expect(record?.sessions.isEmpty == true)
        }
    }

    @Test(arguments: ServedBackend.allCases)
    func sessionAnswersAndErrors(_ backend: ServedBackend) async throws {
        try await ServedClassAPI.with(backend) { api in
            let http = RawHTTP(baseURL: api.baseURL)
            let login = try await http.logIn(api.ada.email, api.ada.password)
            #expect(login.status == 200)
            #expect(login.isPrefixed)
            let account = try #require(login.json["account"] as? [String: Any])
            #expect(account["registered"] as? Bool == true)
            #expect(account["key"] as? String == api.ada.key)
            let session = try #require(login.json["session"] as? [String: Any])
            let id = try #require(session["id"] as? String)
            #expect(try Self.microsecondTime.wholeMatch(in: session["expiration"] as? String ?? "") != nil)
            let cookie = try #require(login.setCookies["onthemap_session"])
            #expect(cookie.contains("onthemap_session=\(id);"))
            // The whole site: the web map's /api/locations.json reads the session too.
            for attribute in ["HttpOnly", "SameSite=Lax", "Path=/;"] { #expect(cookie.contains(attribute)) }
            #expect(!cookie.contains("Secure"), "no TLS here: a Secure cookie would never come back")
            #expect(login.setCookies["XSRF-TOKEN"]?.contains("HttpOnly") == false)

            let wrong = try await http.logIn(api.ada.email, "not the password")
            #expect(wrong.status == 403)
            #expect(wrong.isPrefixed)
            #expect(wrong.json["status"] as? Int == 403)
            #expect(wrong.json["error"] as? String == "Account not found or invalid credentials.")
            #expect(wrong.setCookies.isEmpty)

            for body in ["{not json", #"{"udacity": {"username": 1, "password": "x"}}"#, #"{"email": "a"}"#] {
                let bad = try await http.send(.POST, "/session", body: body)
                #expect(bad.status == 400, "\(body)")
                #expect(bad.json["status"] as? Int == 400)
                #expect(bad.json["error"] as? String == "Failed to parse JSON body.")
            }
            let form = try await http.send(
                .POST, "/session", body: #"{"udacity": {"username": "a", "password": "b"}}"#,
                headers: [("Content-Type", "text/plain")], json: false)
            #expect(form.status == 415, "what a cross-site form can send is not a login")
            #expect(form.json["status"] as? Int == 415)
        }
    }

    @Test(arguments: ServedBackend.allCases)
    func logoutNeedsTheXSRFPairWithTheCookie(_ backend: ServedBackend) async throws {
        try await ServedClassAPI.with(backend) { api in
            let http = RawHTTP(baseURL: api.baseURL)
            let login = try await http.logIn(api.ada.email, api.ada.password)
            let (cookie, xsrf) = try Self.cookieHeader(login)
            let id = try #require(login.cookieValue("onthemap_session"))

            for headers in [[("Cookie", cookie)], [("Cookie", cookie), ("X-XSRF-TOKEN", "forged")]] {
                let refused = try await http.send(.DELETE, "/session", headers: headers)
                #expect(refused.status == 403)
                #expect(refused.json["status"] as? Int == 403)
                #expect(refused.json["error"] as? String == "Missing or invalid XSRF token.")
                #expect(try await api.directory.session(id: id) != nil, "a refused logout ends nothing")
            }
            let ended = try await http.send(.DELETE, "/session", headers: [("Cookie", cookie), ("X-XSRF-TOKEN", xsrf)])
            #expect(ended.status == 200)
            #expect(ended.isPrefixed)
            let session = try #require(ended.json["session"] as? [String: Any])
            #expect(session["id"] as? String == id)
            #expect(try Self.microsecondTime.wholeMatch(in: session["expiration"] as? String ?? "") != nil)
            #expect(ended.setCookies["onthemap_session"]?.contains("Max-Age=0") == true)
            #expect(try await api.directory.session(id: id) == nil)

            let write = try await http.send(
                .POST, "/StudentLocation", body: RawHTTP.pinBody(uniqueKey: api.ada.key), headers: [("Cookie", cookie)])
            #expect(write.status == 401, "an ended session writes nothing")

            // A bearer session needs no XSRF token: a browser never sends it on its own.
            let bearer = try #require(
                try await http.logIn(api.ada.email, api.ada.password).cookieValue("onthemap_session"))
            let byBearer = try await http.send(.DELETE, "/session", headers: [("Authorization", "Bearer \(bearer)")])
            #expect(byBearer.status == 200)
            #expect(try await api.directory.session(id: bearer) == nil)

            // Everywhere: the student's other sessions (another browser, an app) end with this one.
            let other = try #require(
                try await http.logIn(api.ada.email, api.ada.password).cookieValue("onthemap_session"))
            let graceStays = try #require(
                try await http.logIn(api.grace.email, api.grace.password).cookieValue("onthemap_session"))
            let browser = try await http.logIn(api.ada.email, api.ada.password)
            let (browserCookie, browserXSRF) = try Self.cookieHeader(browser)
            let everywhere = try await http.send(
                .DELETE, "/session?everywhere=1", headers: [("Cookie", browserCookie), ("X-XSRF-TOKEN", browserXSRF)])
            #expect(everywhere.status == 200)
            #expect(try await api.directory.session(id: other) == nil, "the other session outlived logout everywhere")
            #expect(try await api.directory.session(id: graceStays) != nil, "another student's session ended")
        }
    }

    @Test(arguments: ServedBackend.allCases)
    func usersAnswerFlatBehindThePrefix(_ backend: ServedBackend) async throws {
        try await ServedClassAPI.with(backend) { api in
            let http = RawHTTP(baseURL: api.baseURL)
            let user = try await http.send(.GET, "/users/\(api.grace.key)")
            #expect(user.status == 200)
            #expect(user.isPrefixed)
            #expect(user.json["key"] as? String == api.grace.key)
            #expect(user.json["first_name"] as? String == "Grace")
            #expect(user.json["last_name"] as? String == "Hopper")
            #expect(user.json["nickname"] as? String == "Grace")
            let missing = try await http.send(.GET, "/users/nobody")
            #expect(missing.status == 404)
            #expect(missing.isPrefixed)
            #expect(missing.json["status"] as? Int == 404)
            #expect(missing.json["error"] as? String == "User not found.")
        }
    }

    @Test(arguments: ServedBackend.allCases)
    func locationsAreListedWithTheContractsFieldsAndOrders(_ backend: ServedBackend) async throws {
        try await ServedClassAPI.with(backend) { api in
            let http = RawHTTP(baseURL: api.baseURL)
            let ids = api.pins.map(\.objectId)
            let page = try await http.send(.GET, "/StudentLocation?limit=2&skip=1&order=-updatedAt")
            #expect(page.status == 200)
            #expect(!page.isPrefixed)
            let results = try #require(page.json["results"] as? [[String: Any]])
            #expect(results.compactMap { $0["objectId"] as? String } == [ids[3], ids[2]])
            let first = try #require(results.first)
            #expect(first["uniqueKey"] as? String == "key-4")
            #expect(first["firstName"] as? String == "First4")
            #expect(first["lastName"] as? String == "Last4")
            #expect(first["mapString"] as? String == "Place 4")
            #expect(first["mediaURL"] as? String == "https://example.org/4")
            #expect(first["latitude"] as? Double == 4)
            #expect(first["longitude"] as? Double == -4)
            #expect(first["createdAt"] as? String == "2023-11-14T22:13:20.000Z")
            #expect(first["updatedAt"] as? String == "2023-11-14T22:17:20.123Z")
            #expect(try Self.millisecondTime.wholeMatch(in: first["updatedAt"] as? String ?? "") != nil)

            func order(_ query: String) async throws -> [String] {
                let answer = try await http.send(.GET, "/StudentLocation?\(query)")
                return (answer.json["results"] as? [[String: Any]] ?? []).compactMap { $0["objectId"] as? String }
            }
            #expect(try await order("") == ids.reversed())
            #expect(try await order("order=updatedAt") == ids)
            #expect(try await order("order=createdAt&limit=2") == [ids[0], ids[1]])
            #expect(
                try await order("order=-createdAt&limit=1") == [ids[4]], "equal creation times: newest update first")
            #expect(try await order("uniqueKey=key-3") == [ids[2]])
            #expect(try await order("uniqueKey=nobody").isEmpty)
            #expect(try await order("limit=0").isEmpty)

            for (query, code) in [("order=name", 105), ("limit=-1", 102), ("skip=x", 102)] {
                let bad = try await http.send(.GET, "/StudentLocation?\(query)")
                #expect(bad.status == 400, "\(query)")
                #expect(bad.json["code"] as? Int == code, "\(query)")
                #expect(bad.json["error"] is String)
            }
        }
    }

    @Test(arguments: ServedBackend.allCases)
    func aStudentCreatesThenUpdatesTheirOwnPin(_ backend: ServedBackend) async throws {
        try await ServedClassAPI.with(backend) { api in
            let http = RawHTTP(baseURL: api.baseURL)
            let (cookie, _) = try Self.cookieHeader(try await http.logIn(api.ada.email, api.ada.password))
            let created = try await http.send(
                .POST, "/StudentLocation", body: RawHTTP.pinBody(uniqueKey: api.ada.key), headers: [("Cookie", cookie)])
            #expect(created.status == 200)
            #expect(!created.isPrefixed)
            let objectId = try #require(created.json["objectId"] as? String)
            #expect(try Self.millisecondTime.wholeMatch(in: created.json["createdAt"] as? String ?? "") != nil)
            #expect(Set(created.json.keys) == ["createdAt", "objectId"])

            // The pin is in the class map at once (what !where and !near read).
            #expect(try await api.services.classMap.pins(named: "Ada").map(\.objectId) == [objectId])

            let updated = try await http.send(
                .PUT, "/StudentLocation/\(objectId)",
                body: RawHTTP.pinBody(uniqueKey: api.ada.key, mapString: "Paris", latitude: 48.85, longitude: 2.35),
                headers: [("Cookie", cookie)])
            #expect(updated.status == 200)
            #expect(Set(updated.json.keys) == ["updatedAt"])
            #expect(try Self.millisecondTime.wholeMatch(in: updated.json["updatedAt"] as? String ?? "") != nil)
            let stored = try #require(try await api.directory.location(ofAccount: api.ada.key))
            #expect(stored.objectId == objectId)
            #expect(stored.mapString == "Paris")
            #expect(stored.coordinate == Coordinate(latitude: 48.85, longitude: 2.35))
            #expect(try await api.services.classMap.pins(named: "Ada").first?.mapString == "Paris")

            // The bearer header works as the cookie does.
            let bearer = try #require(
                try await http.logIn(api.ada.email, api.ada.password).cookieValue("onthemap_session"))
            let byBearer = try await http.send(
                .PUT, "/StudentLocation/\(objectId)", body: RawHTTP.pinBody(uniqueKey: api.ada.key, mapString: "Lima"),
                headers: [("Authorization", "Bearer \(bearer)")])
            #expect(byBearer.status == 200)
            #expect(try await api.directory.location(ofAccount: api.ada.key)?.mapString == "Lima")
        }
    }
}
