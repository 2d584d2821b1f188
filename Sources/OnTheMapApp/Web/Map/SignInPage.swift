import Foundation
import HTTPTypes
import Hummingbird
import Localization
import Logging
import NIOCore
import OnTheMapService

/// Opens the sign-in links the bot gives a student in answer to a private `!map`
/// (`<web.public_url>/signin#<token>`, see ``SignInLinks``).
///
/// Why the token is in the fragment and the page asks for a click: chat clients fetch the links
/// they show to draw a preview, and some mail or chat scanners fetch them too. A GET that used the
/// link up would let such a fetch burn it, or sign the scanner in. So `GET /signin` is a static page
/// (the fragment never reaches the server, so no log holds the token), and its script
/// (`signin.js`) posts the token only when the student presses the button: preview bots neither
/// run the script nor press buttons. `POST /signin` takes JSON only, which a cross-site HTML form
/// cannot send. A good link is used up before the session opens; it sets the same session cookie
/// as the page's login, and the script then goes to the map. A used, replaced, expired or garbled
/// link gets one sentence and changes nothing. `POST /signout` ends such a session when the page
/// has no v1 logout to use.
///
/// The page is written in the browser's language (``WebLanguages``), and each answer of the calls
/// in the request's `Accept-Language` (the script sends the page's).
struct SignInPage: Sendable {
    let access: MapAccess
    /// `signin.html`, its words named by catalogue key (``WebPageText``).
    let page: String
    let script: Data
    let securityHeaders: HTTPFields
    let languages: WebLanguages
    let logger: Logger

    /// The largest body read: a token is under 150 characters.
    static let maximumBodyBytes = 4 * 1024

    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        let signIn = self
        router.get("signin") { request, _ in
            let language = await signIn.languages.pageLanguage(of: request, accounts: signIn.access.accounts)
            return signIn.respond(
                Data(signIn.renderPage(in: language).utf8), type: "text/html; charset=utf-8", cache: "no-store",
                language: language)
        }
        router.get("map/signin.js") { _, _ in
            signIn.respond(signIn.script, type: "text/javascript; charset=utf-8", cache: "max-age=300")
        }
        router.post("signin") { request, _ in await signIn.redeem(request) }
        router.post("signout") { request, _ in await signIn.signOut(request) }
    }

    /// The sign-in page in `language`.
    func renderPage(in language: Language) -> String {
        let text = WebPageText(phrases: languages.catalogs.phrasebook(language))
        return text.render(page)
            .replacingOccurrences(of: "{{LANG}}", with: language.tag)
            .replacingOccurrences(of: "{{PAGE_TEXT}}", with: text.scriptBlock(prefixes: ["web.signin."]))
    }

    /// `POST /signout`: ends the session of the browser's cookie (the page's "Sign out" when the v1
    /// API, whose logout the page otherwise uses, is off); `POST /signout?everywhere=1` ends every
    /// session of its student too, their IRC logins included (``MapAccess/endEverySession``). Like
    /// that logout, it needs the XSRF token in both the `XSRF-TOKEN` cookie and the `X-XSRF-TOKEN`
    /// header.
    func signOut(_ request: Request) async -> Response {
        let phrases = WebLanguages.answerPhrases(for: request)
        guard let accounts = access.accounts, let credentials = APISessionCredentials.presented(in: request),
            credentials.viaCookie
        else {
            return failure(.forbidden, phrases("web.signout.notSignedIn"), phrases)
        }
        guard credentials.hasXSRFPair(in: request) else {
            return failure(.forbidden, phrases("web.signout.xsrf"), phrases)
        }
        let everywhere = request.uri.queryParameters.get("everywhere") == "1"
        do {
            let student = everywhere ? try await accounts.session(id: credentials.sessionId)?.accountKey : nil
            try await accounts.logOut(
                DirectorySession(accountKey: "", sessionId: credentials.sessionId, expiresAt: Date()))
            if let student { try await access.endEverySession(ofAccount: student, in: accounts) }
        } catch {
            logger.warning("a web session could not be ended", metadata: ["error": "\(error)"])
            return failure(.serviceUnavailable, phrases("web.signout.unavailable"), phrases)
        }
        var headers = HTTPFields()
        for cookie in APISessionCredentials.endCookies(secure: access.secureCookies) {
            headers.append(HTTPField(name: .setCookie, value: cookie))
        }
        return APIAnswer.json(["signedOut": true, "everywhere": everywhere], headers: headers)
    }

    private struct Body: Decodable {
        var token: String
    }

    /// `POST /signin` with `{"token": "<token>"}`.
    func redeem(_ request: Request) async -> Response {
        let phrases = WebLanguages.answerPhrases(for: request)
        guard (request.headers[.contentType] ?? "").lowercased().hasPrefix("application/json") else {
            return failure(.unsupportedMediaType, phrases("web.signin.notJSON"), phrases)
        }
        guard let accounts = access.accounts, let links = access.signInLinks else {
            return failure(.notFound, phrases("web.signin.noAccounts"), phrases)
        }
        let usedOrUnknown = phrases("web.signin.usedOrUnknown")
        var request = request
        guard let buffer = try? await request.collectBody(upTo: Self.maximumBodyBytes) else {
            return failure(.contentTooLarge, usedOrUnknown, phrases)
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(buffer.readableBytesView)) else {
            return failure(.badRequest, usedOrUnknown, phrases)
        }
        do {
            let accountKey: String
            switch try await links.redeem(body.token) {
            case .unknown: return failure(.forbidden, usedOrUnknown, phrases)
            case .expired: return failure(.forbidden, phrases("web.signin.expired"), phrases)
            case .account(let key): accountKey = key
            }
            guard let session = try await accounts.openSession(accountKey: accountKey) else {
                return failure(.forbidden, phrases("web.signin.accountGone"), phrases)
            }
            let profile = try await accounts.profile(accountKey: accountKey, session: session)
            var headers = HTTPFields()
            for cookie in APISessionCredentials.startCookies(
                for: session, now: Date(), secure: access.secureCookies)
            {
                headers.append(HTTPField(name: .setCookie, value: cookie))
            }
            // What the page's posting scene keeps of the student (as after its own login).
            return APIAnswer.json(
                ["key": accountKey, "firstName": profile.firstName, "lastName": profile.lastName], headers: headers)
        } catch {
            logger.warning("a sign-in link could not be opened", metadata: ["error": "\(error)"])
            return failure(.serviceUnavailable, phrases("web.signin.unavailable"), phrases)
        }
    }

    func failure(_ status: HTTPResponse.Status, _ message: String, _ phrases: Phrasebook) -> Response {
        APIAnswer.json(
            ["error": message], status: status,
            headers: WebLanguages.languageHeaders(phrases.language, varyOnCookie: false))
    }

    func respond(_ body: Data, type: String, cache: String, language: Language? = nil) -> Response {
        var headers = securityHeaders
        headers[.contentType] = type
        headers[.cacheControl] = cache
        if let language { headers.append(contentsOf: WebLanguages.languageHeaders(language, varyOnCookie: true)) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
