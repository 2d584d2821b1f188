import Foundation
import HTTPTypes
import Hummingbird
import Localization
import OnTheMapService

/// The language a web request is answered in.
///
/// A page (the map, the sign-in page) is written in, first to last: the signed-in student's `!lang`
/// choice (kept with their account); the language the page's menu set for this browser (the `lang`
/// cookie, one of ``Language/supported`` by its exact tag, anything else ignored); the first
/// supported language of the browser's `Accept-Language`, by its weights; the configured default
/// (the top-level `language:`). A JSON answer (the v1 API, `/api/locations.json`, the sign-in
/// calls) is worded in its request's `Accept-Language`, else English: the page's scripts send the
/// page's own language there, so what they show reads as the page does.
public struct WebLanguages: Sendable {
    /// The cookie the page's language menu sets.
    public static let cookieName = "lang"
    /// How long the menu's choice is kept by the browser: a year.
    static let cookieMaxAge = 365 * 86_400

    public var catalogs: Catalogs
    /// The language of a page when nothing else chooses one, read at each request (the running
    /// bot's, which a config reload changes).
    public var defaultLanguage: @Sendable () -> Language
    /// The `!lang` choice of the student with this account key, nil when they made none (or it
    /// cannot be read just now).
    public var chosenByAccount: (@Sendable (String) async -> Language?)?

    public init(
        catalogs: Catalogs = .bundled, defaultLanguage: @escaping @Sendable () -> Language,
        chosenByAccount: (@Sendable (String) async -> Language?)? = nil
    ) {
        self.catalogs = catalogs
        self.defaultLanguage = defaultLanguage
        self.chosenByAccount = chosenByAccount
    }

    /// A fixed default language.
    public init(
        catalogs: Catalogs = .bundled, fallback: Language = .english,
        chosenByAccount: (@Sendable (String) async -> Language?)? = nil
    ) {
        self.init(catalogs: catalogs, defaultLanguage: { fallback }, chosenByAccount: chosenByAccount)
    }

    /// The language of a page when nothing else chooses one, now.
    public var fallback: Language { defaultLanguage() }

    /// The order of the choice, for a page: the student's own choice, the menu's cookie, the
    /// browser's `Accept-Language`, the default.
    public static func choose(
        studentChoice: Language?, cookie: String?, acceptLanguage: String?, fallback: Language
    ) -> Language {
        if let studentChoice { return studentChoice }
        if let cookie, let menu = menuLanguage(cookie) { return menu }
        if let acceptLanguage, let browser = Language(acceptLanguage: acceptLanguage) { return browser }
        return fallback
    }

    /// The language a menu value names: exactly one of the supported tags (in any case), nil for
    /// anything else ("pt", "es-MX", markup, an empty value).
    public static func menuLanguage(_ value: String) -> Language? {
        guard value.utf8.count <= 8 else { return nil }
        return Language.supported.first { $0.tag.lowercased() == value.lowercased() }
    }

    /// The language of a page for `request`; `accounts`: the directory whose sessions tell which
    /// student is signed in (nil: nobody can be).
    func pageLanguage(of request: Request, accounts: (any AccountDirectory)?) async -> Language {
        Self.choose(
            studentChoice: await studentChoice(of: request, accounts: accounts),
            cookie: APISessionCredentials.cookies(of: request)[Self.cookieName],
            acceptLanguage: request.headers[.acceptLanguage], fallback: fallback)
    }

    /// The `!lang` choice of the student signed in on `request`, nil when nobody is or they made none.
    func studentChoice(of request: Request, accounts: (any AccountDirectory)?) async -> Language? {
        guard let chosenByAccount, let accounts, let credentials = APISessionCredentials.presented(in: request),
            let session = try? await accounts.session(id: credentials.sessionId)
        else { return nil }
        return await chosenByAccount(session.accountKey)
    }

    /// The language of a JSON answer to `request`: its `Accept-Language`, else English.
    static func answerLanguage(of request: Request) -> Language {
        request.headers[.acceptLanguage].flatMap { Language(acceptLanguage: $0) } ?? .english
    }

    /// The words of a JSON answer to `request` (the shipped catalogues).
    static func answerPhrases(for request: Request) -> Phrasebook {
        Catalogs.bundled.phrasebook(answerLanguage(of: request))
    }

    /// The headers of an answer whose words depend on the request's language.
    static func languageHeaders(_ language: Language, varyOnCookie: Bool) -> HTTPFields {
        [
            .contentLanguage: language.tag,
            .vary: varyOnCookie ? "Accept-Language, Cookie" : "Accept-Language",
        ]
    }

    /// The `Set-Cookie` value that keeps `language` as this browser's choice.
    static func cookie(for language: Language, secure: Bool) -> String {
        "\(cookieName)=\(language.tag); Path=/; Max-Age=\(cookieMaxAge); SameSite=Lax; HttpOnly"
            + (secure ? "; Secure" : "")
    }
}
