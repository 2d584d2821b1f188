import BotTesting
import Foundation
import OnTheMapApp
import Testing

@testable import OnTheMapService

/// The class map is for the class (`web.visibility: class`), on the real web listener over SQLite
/// and PostgreSQL: a signed-out client gets no pin data from any endpoint (401 and a sentence),
/// while the page, the basemap and the city labels stay public; a browser signed in by the page's
/// login or by a sign-in link gets the pins; a link opens once, and a used, expired, garbled or
/// misdelivered one gets a sentence and opens nothing.
@Suite("The class map is for the class, over HTTP")
struct ClassVisibilityHTTPTests {
    static let classOnly = ClassAPI.Settings(readRequiresLogin: true)
    /// What a seeded pin shows (names of the five pins of ``ServedClassAPI``).
    static let pinWords = ["First1", "Last3", "Place 5", "example.org/2"]

    static func expectNoPinData(_ answer: RawAnswer, _ what: String) {
        #expect(answer.status == 401, "\(what): \(answer.status) \(answer.text)")
        for word in pinWords + ["Lovelace", "Hopper"] {
            #expect(!answer.text.contains(word), "\(what) gave away \(word)")
        }
    }

    @Test(arguments: ServedBackend.allCases)
    func aSignedOutClientGetsNoPinsAndASignedInOneDoes(_ backend: ServedBackend) async throws {
        try await ServedClassAPI.with(backend, settings: Self.classOnly) { api in
            let site = RawHTTP(baseURL: String(api.baseURL.dropLast("/v1".count)))
            let v1 = RawHTTP(baseURL: api.baseURL)

            let locations = try await site.send(.GET, "/api/locations.json")
            Self.expectNoPinData(locations, "/api/locations.json")
            let sentence = locations.json["error"] as? String ?? ""
            #expect(sentence.hasPrefix("The class map is for the class: log in with the button above"), "\(sentence)")
            Self.expectNoPinData(try await site.send(.GET, "/api/locations.json?since=0"), "?since")
            Self.expectNoPinData(try await v1.send(.GET, "/StudentLocation"), "/v1/StudentLocation")
            Self.expectNoPinData(try await v1.send(.GET, "/StudentLocation?uniqueKey=key-1"), "uniqueKey")
            Self.expectNoPinData(try await v1.send(.GET, "/users/\(api.ada.key)"), "/v1/users")
            let forged = [("Cookie", "onthemap_session=not-a-session"), ("Authorization", "Bearer nope")]
            for header in forged {
                Self.expectNoPinData(try await site.send(.GET, "/api/locations.json", headers: [header]), "\(header)")
            }

            // The page and the map's public layers are still served, with no student in them.
            let page = try await site.send(.GET, "/")
            #expect(page.status == 200)
            #expect(page.text.contains("data-visibility=\"class\""))
            for word in Self.pinWords { #expect(!page.text.contains(word)) }
            #expect(try await site.send(.GET, "/map/basemap.json").status == 200)
            #expect(try await site.send(.GET, "/map/places.json?bbox=-10,35,30,60").status == 200)
            // The map's picture is served to anyone, as the signed-out one (the basemap only).
            var signedOutTags: Set<String> = []
            for headers in [[], forged] {
                let picture = try await site.send(.GET, "/map.png", headers: headers)
                #expect(picture.status == 200 && picture.header("Content-Type") == ["image/png"])
                #expect(picture.header("Cache-Control") == ["private, no-cache"])
                signedOutTags.formUnion(picture.header("ETag"))
            }
            #expect(signedOutTags.count == 1)

            // Signed in with the page's login: the session cookie is the whole site's.
            let login = try await v1.logIn(api.ada.email, api.ada.password)
            let session = try #require(login.cookieValue("onthemap_session"))
            let xsrf = try #require(login.cookieValue("XSRF-TOKEN"))
            let cookie = ("Cookie", "onthemap_session=\(session); XSRF-TOKEN=\(xsrf)")
            let pins = try await site.send(.GET, "/api/locations.json", headers: [cookie])
            #expect(pins.status == 200)
            #expect(pins.text.contains("First1") && pins.text.contains("Last5"))
            // The signed-in browser's picture is the class's, another picture with another tag.
            let picture = try await site.send(.GET, "/map.png", headers: [cookie])
            #expect(picture.status == 200 && picture.header("Content-Type") == ["image/png"])
            #expect(!picture.header("ETag").isEmpty && signedOutTags.isDisjoint(with: picture.header("ETag")))
            #expect(try await v1.send(.GET, "/StudentLocation", headers: [cookie]).status == 200)
            #expect(try await v1.send(.GET, "/users/\(api.grace.key)", headers: [cookie]).status == 200)

            // Logged out, the same cookie reads nothing.
            let logout = try await v1.send(.DELETE, "/session", headers: [cookie, ("X-XSRF-TOKEN", xsrf)])
            #expect(logout.status == 200)
            Self.expectNoPinData(try await site.send(.GET, "/api/locations.json", headers: [cookie]), "after logout")
        }
    }

    /// POSTs `body` to `/signin` (JSON unless `json` is false).
    static func signIn(_ site: RawHTTP, _ body: String, json: Bool = true) async throws -> RawAnswer {
        try await site.send(.POST, "/signin", body: body, json: json)
    }

    static func tokenBody(_ token: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: ["token": token])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// With the v1 API off, a sign-in link still signs a browser in, once, and `/signout` ends it;
    /// every bad link gets a sentence and no session cookie, and does not use up a good link.
    @Test(arguments: ServedBackend.allCases)
    func aSignInLinkOpensOnceEvenWithTheAPIOff(_ backend: ServedBackend) async throws {
        try await ServedClassAPI.with(backend, settings: Self.classOnly, apiServed: false) { api in
            let site = RawHTTP(baseURL: String(api.baseURL.dropLast("/v1".count)))
            #expect(try await site.send(.GET, "/v1/StudentLocation").status == 404)
            let signedOut = try await site.send(.GET, "/api/locations.json")
            Self.expectNoPinData(signedOut, "/api/locations.json")
            // No login form on this page: the sentence points to the bot only.
            #expect(
                (signedOut.json["error"] as? String)?.hasPrefix("The class map is for the class: send !map") == true)

            let links = SignInLinks(store: api.state)
            let token = try await links.issue(accountKey: api.ada.key)

            // The page a link opens holds a button, never the token (which stays in the fragment).
            let page = try await site.send(.GET, "/signin")
            #expect(page.status == 200)
            #expect(page.text.contains("id=\"signin-button\"") && !page.text.contains(token))
            #expect(try await site.send(.GET, "/map/signin.js").status == 200)

            // Bad inputs: each gets a sentence, sets no cookie, and leaves the good link usable.
            let account = String(token.split(separator: ".").first ?? "")
            let bad: [(String, Bool, Int)] = [
                (Self.tokenBody(token), false, 415),
                ("{not json", true, 400),
                ("{\"token\": 42}", true, 400),
                (Self.tokenBody("garbage"), true, 403),
                (Self.tokenBody("\(account).not-the-secret"), true, 403),
                (Self.tokenBody(""), true, 403),
                (String(repeating: "x", count: 10_000), true, 413),
            ]
            for (body, json, status) in bad {
                let answer = try await Self.signIn(site, body, json: json)
                #expect(answer.status == status, "\(body.prefix(30)): \(answer.status) \(answer.text)")
                #expect(answer.header("set-cookie").isEmpty)
                #expect(!(answer.json["error"] as? String ?? "").isEmpty, "\(body.prefix(30))")
            }

            let opened = try await Self.signIn(site, Self.tokenBody(token))
            #expect(opened.status == 200, "\(opened.text)")
            #expect(opened.json["firstName"] as? String == "Ada")
            let session = try #require(opened.cookieValue("onthemap_session"))
            #expect(opened.setCookies["onthemap_session"]?.contains("HttpOnly") == true)
            let pins = try await site.send(
                .GET, "/api/locations.json", headers: [("Cookie", "onthemap_session=\(session)")])
            #expect(pins.status == 200 && pins.text.contains("First1"))
            #expect(try await api.directory.session(id: session)?.accountKey == api.ada.key)

            // Signing out (the page's button when the API is off) needs the XSRF pair, then ends it.
            let xsrf = try #require(opened.cookieValue("XSRF-TOKEN"))
            let cookie = ("Cookie", "onthemap_session=\(session); XSRF-TOKEN=\(xsrf)")
            let unguarded = try await site.send(.POST, "/signout", headers: [cookie])
            #expect(unguarded.status == 403 && unguarded.header("set-cookie").isEmpty)
            #expect(try await api.directory.session(id: session) != nil)
            let ended = try await site.send(.POST, "/signout", headers: [cookie, ("X-XSRF-TOKEN", xsrf)])
            #expect(ended.status == 200)
            #expect(ended.setCookies["onthemap_session"]?.contains("Max-Age=0") == true)
            #expect(try await api.directory.session(id: session) == nil)
            Self.expectNoPinData(try await site.send(.GET, "/api/locations.json", headers: [cookie]), "signed out")

            let again = try await Self.signIn(site, Self.tokenBody(token))
            #expect(again.status == 403)
            #expect((again.json["error"] as? String)?.hasPrefix("This sign-in link was already used") == true)
            #expect(again.header("set-cookie").isEmpty)

            // A link given out eleven minutes ago is refused, and is gone afterwards.
            let old = SignInLinks(store: api.state, now: { Date().addingTimeInterval(-11 * 60) })
            let stale = try await old.issue(accountKey: api.grace.key)
            let expired = try await Self.signIn(site, Self.tokenBody(stale))
            #expect(expired.status == 403)
            #expect(
                (expired.json["error"] as? String)?.hasPrefix("This sign-in link is more than 10 minutes old") == true)
            #expect(expired.header("set-cookie").isEmpty)
            #expect(try await Self.signIn(site, Self.tokenBody(stale)).status == 403)
            #expect(try await api.state.state(SignInLinks.stateKey(accountKey: api.grace.key)) == nil)
        }
    }

    /// With `web.visibility: public` anyone reads the pins, as before.
    @Test func aPublicMapServesItsPinsToAnyone() async throws {
        try await ServedClassAPI.with(.sqlite) { api in
            let site = RawHTTP(baseURL: String(api.baseURL.dropLast("/v1".count)))
            let pins = try await site.send(.GET, "/api/locations.json")
            #expect(pins.status == 200 && pins.text.contains("First1"))
        }
    }
}
