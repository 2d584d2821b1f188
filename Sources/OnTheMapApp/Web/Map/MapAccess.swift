import Foundation
import Hummingbird
import Localization
import OnTheMapService

/// Who may read the class's pins on the web map (`web.visibility`), and how a browser signs in.
///
/// With `class`, `/api/locations.json` (the pins, their popups and the Table tab) answers only a
/// request that presents a live session of the directory: the cookie the page's login sets
/// (`POST /v1/session`) or the one a sign-in link sets (``SignInPage``); everyone else gets 401 and
/// one sentence saying how to sign in. The page, its scripts, the basemap and the city labels stay
/// public. With `public`, anyone may read the pins.
public struct MapAccess: Sendable {
    public var visibility: PrivacyPolicy.Visibility
    /// The directory whose sessions sign a browser in; nil when the backend keeps no accounts (the
    /// Udacity service): then nobody can sign in on the web, and a class-only map shows no pins.
    public var accounts: (any AccountDirectory)?
    /// The sign-in links the bot gives out on IRC; nil when the backend has no state store.
    public var signInLinks: SignInLinks?
    /// The private addresses of the students' own data feeds (`!mydata links`); nil when the
    /// backend has no state store.
    public var dataFeeds: DataFeedLinks?
    /// Whether the session cookies are marked `Secure` (the browser reaches the listener over HTTPS).
    public var secureCookies: Bool
    /// What a sign-out "everywhere" ends besides the browser's own session, given the account key:
    /// the running bot's `ClassServices.endEverySession(ofAccount:)` (the student's IRC logins on
    /// every network, their other browsers and API clients, an unused sign-in link); nil: the
    /// directory's sessions of the account only.
    public var endEverySession: (@Sendable (String) async -> Void)?

    public init(
        visibility: PrivacyPolicy.Visibility, accounts: (any AccountDirectory)?, signInLinks: SignInLinks?,
        dataFeeds: DataFeedLinks? = nil, secureCookies: Bool = false,
        endEverySession: (@Sendable (String) async -> Void)? = nil
    ) {
        self.visibility = visibility
        self.accounts = accounts
        self.signInLinks = signInLinks
        self.dataFeeds = dataFeeds
        self.secureCookies = secureCookies
        self.endEverySession = endEverySession
    }

    /// A map whose pins anyone may read (`web.visibility: public`).
    public static let anyone = MapAccess(visibility: .public, accounts: nil, signInLinks: nil)

    /// What a signed-out visitor reads instead of the pins, in `phrases`' language; `loginForm`: the
    /// page offers its own login (the v1 API is served beside the map).
    func signInSentence(loginForm: Bool, phrases: Phrasebook = .english) -> String {
        guard accounts != nil else { return phrases("web.map.signIn.noAccounts") }
        return loginForm ? phrases("web.map.signIn.formOrLink") : phrases("web.map.signIn.link")
    }

    /// Whether `request` may read the pins: always on a public map; on a class map only with a live
    /// session of the directory.
    func mayReadPins(_ request: Request) async throws -> Bool {
        guard visibility == .class else { return true }
        guard let accounts, let credentials = APISessionCredentials.presented(in: request) else { return false }
        return try await accounts.session(id: credentials.sessionId) != nil
    }

    /// Ends every session of `accountKey` for a sign-out "everywhere": through the running bot
    /// when there is one, else the directory's sessions of the account.
    func endEverySession(ofAccount accountKey: String, in accounts: any AccountDirectory) async throws {
        if let endEverySession {
            await endEverySession(accountKey)
        } else {
            _ = try await accounts.endSessions(accountKey: accountKey)
        }
    }
}
