import Foundation
import HTTPTypes
import Hummingbird
import Localization
import Logging
import NIOCore
import OnTheMapService

/// A student's own data on the web map: their pin as GeoJSON (``OwnPinsGeoJSON``) and their trips
/// as an iCalendar feed (``OwnTripsCalendar``), and nobody else's.
///
/// Routes: `/me/<token>/pins.geojson` and `/me/<token>/trips.ics`, the private addresses
/// `!mydata links` gives out (``DataFeedLinks``: a calendar app polls them without signing in);
/// `/me/pins.geojson` and `/me/trips.ics`, the same for the browser signed in on the class map
/// (its session cookie), whose page asks `/me/status.json` whether to offer them. A garbled, replaced or revoked token, or any other file under `/me/`, gets
/// 404 and one sentence; a signed-out browser 401 and one sentence; nothing changes. Every answer
/// is `Cache-Control: private, no-store` and `Referrer-Policy: no-referrer`, and a file is sent as
/// an attachment. No route logs its path, and the listener logs no request: a token is in no log.
public struct OwnDataFeeds: Sendable {
    /// What the feeds read of the class beyond the student's pin: the level a stored place is kept
    /// at, and the time zones a trip's days are counted in.
    public struct Places: Sendable {
        /// The level a stored place (its point and text) is kept at; nil when it cannot be told.
        public var precision: @Sendable (Coordinate, String) async -> PinPrecision?
        /// The IANA zones a place kept at this point and text may be in (empty when none is known).
        public var zones: @Sendable (Coordinate, String) async -> [String]

        public init(
            precision: @escaping @Sendable (Coordinate, String) async -> PinPrecision?,
            zones: @escaping @Sendable (Coordinate, String) async -> [String]
        ) {
            self.precision = precision
            self.zones = zones
        }

        /// Nothing known of places: no level and no zone.
        public static let unknown = Places(precision: { _, _ in nil }, zones: { _, _ in [] })
    }

    /// Which file a route serves.
    enum File: String, Sendable {
        case pins = "pins.geojson"
        case trips = "trips.ics"
    }

    /// The tokens of the private addresses; nil when the backend has no state store.
    let links: DataFeedLinks?
    /// The directory the pins and sessions are read from; nil when it keeps no accounts.
    let accounts: (any AccountDirectory)?
    let places: Places
    let languages: WebLanguages
    let now: @Sendable () -> Date
    let logger: Logger

    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        let feeds = self
        router.get("me/status.json") { request, _ in await feeds.status(request) }
        router.get("me/pins.geojson") { request, _ in await feeds.signedIn(request, .pins) }
        router.get("me/trips.ics") { request, _ in await feeds.signedIn(request, .trips) }
        router.get("me/:token/:file") { request, context in
            await feeds.byToken(request, token: context.parameters.get("token"), file: context.parameters.get("file"))
        }
        // Any other path under `/me/` is no feed either, and says so.
        for other in ["me", "me/:token", "me/:token/:file/**"] {
            router.get(RouterPath(other)) { request, _ in feeds.unknown(WebLanguages.answerPhrases(for: request)) }
        }
    }

    /// `GET /me/<token>/<file>`: the file of the account whose live token it is.
    func byToken(_ request: Request, token: String?, file: String?) async -> Response {
        let phrases = WebLanguages.answerPhrases(for: request)
        guard let links, let accounts, let token, let file = file.flatMap(File.init(rawValue:)) else {
            return unknown(phrases)
        }
        do {
            guard let accountKey = try await links.account(of: token) else { return unknown(phrases) }
            return try await answer(file, of: accountKey, in: accounts, request: request)
        } catch {
            return unavailable(error, phrases)
        }
    }

    /// `GET /me/status.json`: `{"signedIn": true}` when the session cookie is live (the page then
    /// offers the student's own files), else `{"signedIn": false}`; always 200, so a signed-out
    /// page asks without an error in the browser's console.
    func status(_ request: Request) async -> Response {
        var signedIn = false
        if let accounts, let credentials = APISessionCredentials.presented(in: request), credentials.viaCookie {
            signedIn = (try? await accounts.session(id: credentials.sessionId)) != nil
        }
        var headers = Self.privateHeaders
        headers[.contentType] = "application/json"
        return Response(
            status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "{\"signedIn\":\(signedIn)}")))
    }

    /// `GET /me/<file>`: the file of the student signed in with the session cookie.
    func signedIn(_ request: Request, _ file: File) async -> Response {
        let phrases = WebLanguages.answerPhrases(for: request)
        guard let accounts else { return unknown(phrases) }
        do {
            guard let credentials = APISessionCredentials.presented(in: request), credentials.viaCookie,
                let session = try await accounts.session(id: credentials.sessionId)
            else {
                return sentence(.unauthorized, phrases("feed.signedOut"), phrases)
            }
            return try await answer(file, of: session.accountKey, in: accounts, request: request)
        } catch {
            return unavailable(error, phrases)
        }
    }

    /// The file for `accountKey`, worded (the calendar's titles) in the student's `!lang` choice,
    /// else the request's language.
    func answer(_ file: File, of accountKey: String, in accounts: any AccountDirectory, request: Request) async throws
        -> Response
    {
        guard let record = try await accounts.accountRecord(.key(accountKey)) else {
            return unknown(WebLanguages.answerPhrases(for: request))
        }
        let pin = record.pin
        switch file {
        case .pins:
            var homeLevel = pin?.precision
            if homeLevel == nil, let pin { homeLevel = await places.precision(pin.coordinate, pin.mapString) }
            var tripLevel: PinPrecision?
            if let trip = pin?.trip { tripLevel = await places.precision(trip.coordinate, trip.mapString) }
            let body = try OwnPinsGeoJSON(pin: pin, homePrecision: homeLevel, tripPrecision: tripLevel).encoded()
            return attachment(body, type: OwnPinsGeoJSON.mediaType, name: "my-pin.geojson")
        case .trips:
            let language = WebLanguages.choose(
                studentChoice: await languages.chosenByAccount?(accountKey), cookie: nil,
                acceptLanguage: request.headers[.acceptLanguage], fallback: languages.fallback)
            let phrases = languages.catalogs.phrasebook(language)
            var events: [OwnTripsCalendar.Event] = []
            if let pin, let trip = pin.trip {
                let zone = await zone(of: trip)
                events.append(
                    OwnTripsCalendar.Event(
                        pinId: pin.objectId, trip: trip, setAt: pin.updatedAt, zone: zone,
                        summary: phrases("feed.tripSummary", ["place": trip.mapString])))
            }
            let calendar = OwnTripsCalendar(events: events, name: phrases("feed.calendarName"), stamp: now())
            return attachment(Data(calendar.text().utf8), type: OwnTripsCalendar.mediaType, name: "my-trips.ics")
        }
    }

    /// The zone the trip's days are counted in: of the zones its place may be in, the one where it
    /// ends at midnight (the zone its end was told in), else the first; nil when none is known.
    func zone(of trip: Trip) async -> TimeZone? {
        let zones = await places.zones(trip.coordinate, trip.mapString).compactMap(TimeZone.init(identifier:))
        return zones.first { zone in
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            return calendar.startOfDay(for: trip.endsAt) == trip.endsAt
        } ?? zones.first
    }

    /// The headers every answer of these routes has: not kept by any cache, no referrer sent on.
    static var privateHeaders: HTTPFields {
        [
            .cacheControl: "private, no-store",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            .xContentTypeOptions: "nosniff",
            .contentSecurityPolicy: "default-src 'none'; frame-ancestors 'none'",
        ]
    }

    func attachment(_ body: Data, type: String, name: String) -> Response {
        var headers = Self.privateHeaders
        headers[.contentType] = type
        headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// 404: no such feed (the same for garbage, a replaced or revoked token and another file).
    func unknown(_ phrases: Phrasebook) -> Response {
        sentence(.notFound, phrases("feed.unknown"), phrases)
    }

    /// 503: the directory could not be read (the cause logged, without the path).
    func unavailable(_ error: any Error, _ phrases: Phrasebook) -> Response {
        logger.warning("a student's own data could not be read", metadata: ["error": "\(error)"])
        return sentence(.serviceUnavailable, phrases("feed.unavailable"), phrases)
    }

    func sentence(_ status: HTTPResponse.Status, _ text: String, _ phrases: Phrasebook) -> Response {
        var headers = Self.privateHeaders
        headers[.contentType] = "text/plain; charset=utf-8"
        headers.append(contentsOf: WebLanguages.languageHeaders(phrases.language, varyOnCookie: false))
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
    }
}
