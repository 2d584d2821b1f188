import ClassKit
import Foundation
import HTTPTypes
import Hummingbird
import IRCProtocol
import Localization
import Logging
import OnTheMapService

/// The On The Map v1 API (`udacity-api.md`) served from the bot's own directory (SQLite or
/// PostgreSQL) under `/v1` on the web listener, for the seeds' apps, the web page and other bots:
///
/// - `POST /v1/session`, `DELETE /v1/session`, `GET /v1/users/<key>`;
/// - `GET /v1/StudentLocation`, `POST /v1/StudentLocation`, `PUT /v1/StudentLocation/<objectId>`;
/// - `GET /v1/geocode?q=`: the bot's place finder, for a page that posts.
///
/// Logins go through the class's login throttle (keyed by the client's address) and the
/// directory's password rules, exactly as `!login`. A write needs a session (cookie or bearer),
/// saves only that session's own account's pin, and follows `!post`'s link and text rules; the pin
/// then reaches the class map and the announcer at once.
public struct ClassAPI: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Whether reads (pins, profiles) need a session too.
        public var readRequiresLogin: Bool
        /// Whether cookies are marked `Secure` (the browser reaches the listener over HTTPS).
        public var secureCookies: Bool
        /// Whether a trusted proxy forwards to the listener: the client's address is then the last
        /// `X-Forwarded-For` entry (the one the proxy added).
        public var behindProxy: Bool
        /// Whether `POST /v1/session` takes passwords (`plugins.login.passwords`); false refuses
        /// every password login before anything is checked.
        public var passwords: Bool

        public init(
            readRequiresLogin: Bool = false, secureCookies: Bool = false, behindProxy: Bool = false,
            passwords: Bool = true
        ) {
            self.readRequiresLogin = readRequiresLogin
            self.secureCookies = secureCookies
            self.behindProxy = behindProxy
            self.passwords = passwords
        }
    }

    /// The largest request body read (a login or a pin is a few hundred bytes).
    static let maximumBodyBytes = 16 * 1024

    /// What the served API uses of the class: the directory and its trips, the privacy gate every
    /// pin and trip passes, what takes a pin saved here (the class map, the announcers), the place
    /// finder, the login throttle shared with `!login`, every network's sessions (a logout ends
    /// them all), and the time zones and clock a trip's end is read with.
    public struct Needs: PassesPrivacyGate, EndsTrips {
        public let directory: any StudentDirectory
        public let trips: (any TripDirectory)?
        public let privacyGates: PrivacyGates
        public let outsidePins: OutsidePins
        public let placeResolver: PlaceResolver
        public let loginThrottle: LoginThrottle
        public let networks: EveryNetwork
        public let timeZones: PinTimeZones
        public let now: @Sendable () -> Date

        /// The capabilities of `services`, the network's assembly, that the API uses.
        public init(_ services: ClassServices) {
            self.directory = services.directory
            self.trips = services.trips
            self.privacyGates = services.privacyGates
            self.outsidePins = services.outsidePins
            self.placeResolver = services.placeResolver
            self.loginThrottle = services.loginThrottle
            self.networks = services.everyNetworkReach
            self.timeZones = services.timeZones
            self.now = services.now
        }
    }

    let services: Needs
    let accounts: any AccountDirectory
    let settings: Settings
    let logger: Logger

    /// `accounts` is the directory whose sessions the API checks (the one `services` reads pins from).
    public init(services: Needs, accounts: any AccountDirectory, settings: Settings, logger: Logger) {
        self.services = services
        self.accounts = accounts
        self.settings = settings
        self.logger = logger
    }

    var directory: any StudentDirectory { services.directory }

    /// Adds the `/v1` routes to `router`.
    public func addRoutes<Context: RemoteAddressRequestContext>(to router: Router<Context>) {
        let api = self
        let v1 = router.group("v1")
        v1.post("session") { request, context in await api.logIn(request, clientKey: api.clientKey(request, context)) }
        v1.delete("session") { request, _ in await api.logOut(request) }
        v1.get("users/:key") { request, context in
            await api.user(request, key: Self.decoded(context.parameters.get("key")))
        }
        v1.get("StudentLocation") { request, _ in await api.list(request) }
        v1.post("StudentLocation") { request, _ in await api.save(request, objectId: nil) }
        v1.put("StudentLocation/:objectId") { request, context in
            await api.save(request, objectId: Self.decoded(context.parameters.get("objectId")))
        }
        v1.get("geocode") { request, _ in await api.geocode(request) }
    }

    /// A path parameter as the client meant it (the router leaves percent-encoding in place).
    static func decoded(_ parameter: String?) -> String {
        guard let parameter else { return "" }
        return parameter.removingPercentEncoding ?? parameter
    }

    // MARK: - Who is asking

    /// What the login throttle counts this client's failures against: its network, as `!login`
    /// counts a host (`h:` and an IPv4 address, or an IPv6 address's /64).
    func clientKey<Context: RemoteAddressRequestContext>(_ request: Request, _ context: Context) -> String {
        var address = context.remoteAddress?.ipAddress ?? ""
        if settings.behindProxy, let forwarded = request.headers[values: .init("X-Forwarded-For")!].last {
            let last = forwarded.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            if !last.isEmpty { address = last }
        }
        return "h:" + UserIdentity.networkKey(ofHost: String(address.prefix(64)))
    }

    /// The live session the request presents, or nil (none, unknown or expired).
    func session(of request: Request) async throws -> (DirectorySession, APISessionCredentials)? {
        guard let credentials = APISessionCredentials.presented(in: request),
            let session = try await accounts.session(id: credentials.sessionId)
        else { return nil }
        return (session, credentials)
    }

    /// Whether the request says its body is JSON (what a cross-site HTML form cannot send).
    static func isJSON(_ request: Request) -> Bool {
        (request.headers[.contentType] ?? "").lowercased().hasPrefix("application/json")
    }

    /// The request body, or nil when it is larger than ``maximumBodyBytes``.
    static func body(of request: Request) async -> Data? {
        var request = request
        guard let buffer = try? await request.collectBody(upTo: maximumBodyBytes) else { return nil }
        return Data(buffer.readableBytesView)
    }

    // MARK: - Session

    private struct LoginBody: Decodable {
        struct Credentials: Decodable {
            var username: String
            var password: String
        }
        var udacity: Credentials
    }

    /// `POST /v1/session`.
    func logIn(_ request: Request, clientKey: String) async -> Response {
        let phrases = WebLanguages.answerPhrases(for: request)
        guard settings.passwords else {
            return APIAnswer.statusError(.forbidden, phrases("web.api.passwordsOff"), language: phrases.language)
        }
        // JSON only: a cross-site form (which can send text/plain) cannot log a browser in.
        guard Self.isJSON(request) else {
            return APIAnswer.statusError(
                .unsupportedMediaType, phrases("web.api.loginNotJSON"), language: phrases.language)
        }
        guard let body = await Self.body(of: request) else {
            return APIAnswer.statusError(.contentTooLarge, phrases("web.api.tooLarge"), language: phrases.language)
        }
        guard let login = try? JSONDecoder().decode(LoginBody.self, from: body) else {
            return APIAnswer.json(
                ["status": 400, "error": phrases("web.api.badJSON")], status: .badRequest,
                headers: WebLanguages.languageHeaders(phrases.language, varyOnCookie: false))
        }
        let (email, password) = (login.udacity.username, login.udacity.password)
        let throttle = services.loginThrottle
        if let refusal = await throttle.check(identity: clientKey, origin: clientKey, email: email) {
            return Self.tooManyAttempts(refusal, phrases)
        }
        let session: DirectorySession
        do {
            session = try await directory.logIn(email: email, password: password)
        } catch ServiceError.invalidCredentials {
            if let refusal = await throttle.recordFailure(identity: clientKey, origin: clientKey, email: email) {
                return Self.tooManyAttempts(refusal, phrases)
            }
            return APIAnswer.statusError(.forbidden, phrases("web.api.badCredentials"), language: phrases.language)
        } catch ServiceError.rejectedInput(let reason) {
            return APIAnswer.statusError(.badRequest, reason)
        } catch {
            return unavailable(error, prefixed: true, phrases)
        }
        await throttle.recordSuccess(identity: clientKey, email: email)
        var headers = HTTPFields()
        for cookie in APISessionCredentials.startCookies(for: session, now: Date(), secure: settings.secureCookies) {
            headers.append(HTTPField(name: .setCookie, value: cookie))
        }
        return APIAnswer.json(
            [
                "account": ["registered": true, "key": session.accountKey] as [String: Any],
                "session": ["id": session.sessionId, "expiration": APIAnswer.microseconds(session.expiresAt)],
            ], prefixed: true, headers: headers)
    }

    /// `DELETE /v1/session`: ends the session presented; `DELETE /v1/session?everywhere=1` ends
    /// every session of its student too (`EveryNetwork.endEverySession(ofAccount:)`: their IRC
    /// logins on every network, other browsers and API clients, an unused sign-in link). A cookie
    /// session must also carry its XSRF token in both the `XSRF-TOKEN` cookie and the
    /// `X-XSRF-TOKEN` header.
    func logOut(_ request: Request) async -> Response {
        let phrases = WebLanguages.answerPhrases(for: request)
        guard let credentials = APISessionCredentials.presented(in: request) else {
            return APIAnswer.statusError(.forbidden, phrases("web.api.noSession"), language: phrases.language)
        }
        if credentials.viaCookie, !credentials.hasXSRFPair(in: request) {
            return APIAnswer.statusError(.forbidden, phrases("web.api.xsrf"), language: phrases.language)
        }
        let everywhere = request.uri.queryParameters.get("everywhere") == "1"
        do {
            let student = everywhere ? try await session(of: request)?.0.accountKey : nil
            try await directory.logOut(
                DirectorySession(accountKey: "", sessionId: credentials.sessionId, expiresAt: Date()))
            if let student { await services.networks.endEverySession(ofAccount: student) }
        } catch {
            return unavailable(error, prefixed: true, phrases)
        }
        var headers = HTTPFields()
        for cookie in APISessionCredentials.endCookies(secure: settings.secureCookies) {
            headers.append(HTTPField(name: .setCookie, value: cookie))
        }
        return APIAnswer.json(
            ["session": ["id": credentials.sessionId, "expiration": APIAnswer.microseconds(Date())]],
            prefixed: true, headers: headers)
    }

    /// `GET /v1/users/<key>`: the profile, flat, behind the prefix; to anyone but the student, the
    /// name in the form they chose (`!privacy name`).
    func user(_ request: Request, key: String) async -> Response {
        let phrases = WebLanguages.answerPhrases(for: request)
        do {
            let asker = try await session(of: request)
            if settings.readRequiresLogin, asker == nil {
                return APIAnswer.statusError(.unauthorized, phrases("web.api.logInFirst"), language: phrases.language)
            }
            let profile = try await directory.profile(accountKey: key, session: nil)
            var (first, last) = (profile.firstName, profile.lastName)
            if asker?.0.accountKey != key {
                (first, last) = try await services.privacyGate.nameForm(of: key).applied(first: first, last: last)
            }
            return APIAnswer.json(
                [
                    "key": profile.accountKey, "first_name": first, "last_name": last,
                    "nickname": profile.nickname ?? first, "_registered": true,
                ], prefixed: true)
        } catch ServiceError.notFound {
            return APIAnswer.statusError(.notFound, phrases("web.api.userNotFound"), language: phrases.language)
        } catch {
            return unavailable(error, prefixed: true, phrases)
        }
    }

    // MARK: - Failures

    static func tooManyAttempts(_ refusal: LoginThrottle.Refusal, _ phrases: Phrasebook) -> Response {
        var headers = HTTPFields()
        headers[.retryAfter] = String(max(1, refusal.seconds))
        return APIAnswer.statusError(
            .tooManyRequests, phrases("web.api.tooManyLogins", ["count": max(1, refusal.seconds)]), headers: headers,
            language: phrases.language)
    }

    /// The directory could not answer: 503, the cause logged (never shown: it may name files).
    func unavailable(_ error: any Error, prefixed: Bool, _ phrases: Phrasebook) -> Response {
        logger.warning("API request failed", metadata: ["error": "\(error)"])
        let message = phrases("web.api.unavailable")
        return prefixed
            ? APIAnswer.statusError(.serviceUnavailable, message, language: phrases.language)
            : APIAnswer.codeError(.serviceUnavailable, message, language: phrases.language)
    }
}
