import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import BotTesting
import Localization
import SQLiteDirectory
import Testing

@testable import OnTheMapApp
@testable import OnTheMapService

/// Which language a web page and a JSON answer are written in.
@Suite struct WebLanguagesTests {
    /// The order: the student's own `!lang`, then the menu's cookie, then `Accept-Language`, then
    /// the configured default.
    @Test func aStudentsChoiceComesFirstThenTheCookieThenTheBrowserThenTheDefault() {
        func choose(_ student: Language?, _ cookie: String?, _ header: String?) -> Language {
            WebLanguages.choose(studentChoice: student, cookie: cookie, acceptLanguage: header, fallback: .german)
        }
        #expect(choose(.french, "ja", "es") == .french)
        #expect(choose(nil, "ja", "es") == .japanese)
        #expect(choose(nil, nil, "es-MX,en;q=0.5") == .spanish)
        #expect(choose(nil, nil, "en;q=0.2, pt-BR;q=0.9") == .brazilianPortuguese)
        #expect(choose(nil, nil, nil) == .german)
        #expect(choose(nil, nil, "ko, zh;q=0.8") == .german, "no supported language: the default")
        #expect(choose(nil, "pt-br", nil) == .brazilianPortuguese, "a tag in another case is the same tag")
    }

    /// A cookie that is not exactly one of the six tags is ignored: the browser's language holds.
    @Test(arguments: ["", "xx", "pt", "es-MX", "<script>", "es;q=1", "en\"", String(repeating: "e", count: 300)])
    func aBadCookieIsIgnored(_ cookie: String) {
        #expect(WebLanguages.menuLanguage(cookie) == nil)
        #expect(
            WebLanguages.choose(studentChoice: nil, cookie: cookie, acceptLanguage: "fr", fallback: .english)
                == .french)
    }

    /// A served page: `<html lang>`, `Content-Language` and `Vary` follow the choice; a signed-in
    /// student's `!lang` wins over the menu's cookie, and the menu refuses a language it does not
    /// offer without setting anything.
    @Test func thePageFollowsTheChoiceAndTheMenuRefusesAnUnknownLanguage() async throws {
        let folder = try TemporaryDirectory(prefix: "web-languages")
        let accounts = try SQLiteStudentDirectory(path: folder.file("class.sqlite"))
        let jane = try await accounts.addAccount(
            email: "jane@class.test", password: "jane-Secret-Pw-1", firstName: "Jane", lastName: "Doe")
        let session = try await accounts.logIn(email: "jane@class.test", password: "jane-Secret-Pw-1")
        // Jane said `!lang fr` on IRC; nobody else chose a language.
        let chosen: @Sendable (String) async -> Language? = { $0 == jane.accountKey ? .french : nil }
        let map = WebMap(
            feed: MapPinFeed(maxAge: .zero, load: { [] }), geocoder: FixedGeocoder(places: [:]),
            assets: try WebMap.Assets.bundled(),
            access: MapAccess(visibility: .public, accounts: accounts, signInLinks: nil),
            languages: WebLanguages(fallback: .german, chosenByAccount: chosen), logger: .init(label: "test.web"))
        let app = Application(
            router: WebMapServer(host: "127.0.0.1", port: 0, webMap: map, logger: .init(label: "t"))
                .makeRouter())
        try await app.test(.router) { client in
            func page(_ headers: HTTPFields) async throws -> (String, HTTPFields) {
                try await client.execute(uri: "/", method: .get, headers: headers) { response in
                    (String(buffer: response.body), response.headers)
                }
            }
            let (spanish, headers) = try await page([.acceptLanguage: "es-ES,es;q=0.9,en;q=0.5"])
            #expect(spanish.contains("<html lang=\"es\">"))
            #expect(spanish.contains(">Mapa</button>"))
            #expect(headers[.contentLanguage] == "es")
            #expect(headers[.vary] == "Accept-Language, Cookie")
            #expect(spanish.contains("<option value=\"es\" lang=\"es\" selected>español</option>"))

            let (byCookie, _) = try await page([.acceptLanguage: "es", .cookie: "lang=ja"])
            #expect(byCookie.contains("<html lang=\"ja\">"))
            let (badCookie, _) = try await page([.acceptLanguage: "es", .cookie: "lang=<b>x</b>"])
            #expect(badCookie.contains("<html lang=\"es\">"))
            #expect(!badCookie.contains("<b>x</b>"))
            let (fallback, _) = try await page([:])
            #expect(fallback.contains("<html lang=\"de\">"))
            let (student, _) = try await page([
                .acceptLanguage: "es", .cookie: "lang=ja; onthemap_session=\(session.sessionId)",
            ])
            #expect(student.contains("<html lang=\"fr\">"), "the student's !lang wins")
            let (stranger, _) = try await page([.cookie: "lang=ja; onthemap_session=someone-else"])
            #expect(stranger.contains("<html lang=\"ja\">"))

            try await client.execute(
                uri: "/language", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "lang=pt-BR")
            ) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.setCookie]?.hasPrefix("lang=pt-BR; Path=/;") == true)
            }
            // Jane's own choice on IRC holds: the menu says so, in French, and keeps nothing.
            try await client.execute(
                uri: "/language", method: .post,
                headers: [
                    .contentType: "application/x-www-form-urlencoded",
                    .cookie: "onthemap_session=\(session.sessionId)",
                ],
                body: ByteBuffer(string: "lang=ja")
            ) { response in
                #expect(response.status == .conflict)
                #expect(response.headers[.setCookie] == nil)
                #expect(response.headers[.contentLanguage] == "fr")
                #expect(
                    String(buffer: response.body)
                        == Catalogs.bundled.phrasebook(.french)(
                            "web.language.chosenOnIRC", ["language": "français"]))
            }
            // Another site's form cannot change it.
            for site in ["cross-site", "same-site"] {
                try await client.execute(
                    uri: "/language", method: .post,
                    headers: [
                        .contentType: "application/x-www-form-urlencoded", .acceptLanguage: "de",
                        HTTPField.Name("Sec-Fetch-Site")!: site,
                    ],
                    body: ByteBuffer(string: "lang=pt-BR")
                ) { response in
                    #expect(response.status == .forbidden, "\(site)")
                    #expect(response.headers[.setCookie] == nil, "\(site)")
                    #expect(
                        String(buffer: response.body)
                            == Catalogs.bundled.phrasebook(.german)("web.language.crossSite"))
                }
            }
            for forged in ["lang=xx", "lang=%3Cscript%3E", "language=es", ""] {
                try await client.execute(
                    uri: "/language", method: .post,
                    headers: [.contentType: "application/x-www-form-urlencoded", .acceptLanguage: "es"],
                    body: ByteBuffer(string: forged)
                ) { response in
                    #expect(response.status == .badRequest, "\(forged)")
                    #expect(response.headers[.setCookie] == nil, "\(forged)")
                    #expect(
                        String(buffer: response.body) == Catalogs.bundled.phrasebook(.spanish)("web.language.unknown"))
                }
            }
        }
    }

    /// A page's words are escaped like everything else put in it; only the markup the page itself
    /// gives for a placeholder stays markup, and the scripts' data block cannot close its element.
    @Test func aPagesWordsAreEscapedAndItsDataBlockStaysData() throws {
        let catalogs = Catalogs(
            source: MessageCatalog(
                language: .english,
                messages: ["web.page.x": .text("A {name} in {place} & </script>")]),
            translations: [:])
        let text = WebPageText(phrases: catalogs.phrasebook(.english))
        let html = text.render(
            "<p>{{t:web.page.x}}</p>", values: ["name": "<b>Mallory</b>"],
            markup: ["place": "<strong id=\"p\"></strong>"])
        #expect(html == "<p>A &lt;b&gt;Mallory&lt;/b&gt; in <strong id=\"p\"></strong> &amp; &lt;/script&gt;</p>")
        let block = text.scriptBlock(prefixes: ["web.page."])
        #expect(!block.contains("<") && !block.contains(">") && !block.contains("&"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(block.utf8)) as? [String: Any])
        #expect((object["messages"] as? [String: String])?["web.page.x"] == "A {name} in {place} & </script>")
        #expect(object["locale"] as? String == "en-001")
    }

    /// The v1 API words its errors in the request's `Accept-Language` (English without one); the
    /// status, the JSON shape and its machine-readable fields stay as they are.
    @Test func anAPIErrorIsInTheRequestsLanguageWithTheSameShape() {
        let phrases = Catalogs.bundled.phrasebook(.german)
        let answer = APIAnswer.codeError(.badRequest, phrases("web.api.invalidLimit"), code: 102, language: .german)
        #expect(answer.status == .badRequest)
        #expect(answer.headers[.contentLanguage] == "de")
        #expect(phrases("web.api.invalidLimit") != Phrasebook.english("web.api.invalidLimit"))
        #expect(Phrasebook.english("web.api.invalidLimit") == "Invalid limit.")
    }
}
