import ClassKit
import Foundation
import Hummingbird
import Localization
import OnTheMapService

extension ClassAPI {
    /// The orders `GET /v1/StudentLocation` accepts.
    static let orders: Set<String> = ["-updatedAt", "updatedAt", "-createdAt", "createdAt"]
    /// The most pins one list answer holds, and the most read to sort by another order.
    static let maximumPageSize = 1_000
    static let maximumSorted = 10_000

    /// `GET /v1/StudentLocation?limit=&skip=&order=&uniqueKey=`.
    func list(_ request: Request) async -> Response {
        let phrases = WebLanguages.answerPhrases(for: request)
        let query = request.uri.queryParameters
        var limit = 100
        if let text = query.get("limit") {
            guard let value = Int(text), value >= 0 else {
                return APIAnswer.codeError(
                    .badRequest, phrases("web.api.invalidLimit"), code: 102, language: phrases.language)
            }
            limit = min(value, Self.maximumPageSize)
        }
        var skip = 0
        if let text = query.get("skip") {
            guard let value = Int(text), value >= 0 else {
                return APIAnswer.codeError(
                    .badRequest, phrases("web.api.invalidSkip"), code: 102, language: phrases.language)
            }
            skip = min(value, Self.maximumSorted)
        }
        let order = query.get("order") ?? "-updatedAt"
        guard Self.orders.contains(order) else {
            return APIAnswer.codeError(
                .badRequest, phrases("web.api.invalidOrder"), code: 105, language: phrases.language)
        }
        do {
            if settings.readRequiresLogin, try await session(of: request) == nil {
                return APIAnswer.codeError(.unauthorized, phrases("web.api.logInFirst"), language: phrases.language)
            }
            let pins: [StudentLocation]
            if let uniqueKey = query.get("uniqueKey") {
                let own = try await directory.location(ofAccount: uniqueKey).map { [$0] } ?? []
                pins = Array(own.dropFirst(skip).prefix(limit))
            } else if order == "-updatedAt" {
                pins = try await directory.recentLocations(limit: limit, skip: skip)
            } else {
                let all = try await directory.recentLocations(limit: Self.maximumSorted, skip: 0)
                pins = Array(Self.sorted(all, by: order).dropFirst(skip).prefix(limit))
            }
            return APIAnswer.json(["results": pins.map(Self.record)])
        } catch {
            return unavailable(error, prefixed: false, phrases)
        }
    }

    /// `pins` (newest update first, as the directory reads them) in `order`; ties keep that order.
    static func sorted(_ pins: [StudentLocation], by order: String) -> [StudentLocation] {
        let descending = order.hasPrefix("-")
        let byCreation = order.hasSuffix("createdAt")
        let indexed = pins.enumerated().map { (index: $0.offset, pin: $0.element) }
        return indexed.sorted { a, b in
            let (x, y) = byCreation ? (a.pin.createdAt, b.pin.createdAt) : (a.pin.updatedAt, b.pin.updatedAt)
            if x != y { return descending ? x > y : x < y }
            return descending ? a.index < b.index : a.index > b.index
        }.map(\.pin)
    }

    /// A pin as the contract lists it.
    static func record(_ pin: StudentLocation) -> [String: Any] {
        [
            "objectId": pin.objectId, "uniqueKey": pin.uniqueKey, "firstName": pin.firstName,
            "lastName": pin.lastName, "mapString": pin.mapString, "mediaURL": pin.mediaURL,
            "latitude": pin.coordinate.latitude, "longitude": pin.coordinate.longitude,
            "createdAt": APIAnswer.milliseconds(pin.createdAt), "updatedAt": APIAnswer.milliseconds(pin.updatedAt),
        ]
    }

    /// `POST /v1/StudentLocation` (objectId nil) and `PUT /v1/StudentLocation/<objectId>`.
    func save(_ request: Request, objectId: String?) async -> Response {
        let phrases = WebLanguages.answerPhrases(for: request)
        let authenticated: DirectorySession
        do {
            guard let (session, _) = try await session(of: request) else {
                return APIAnswer.codeError(
                    .unauthorized, phrases("web.api.logInFirstBearer"), language: phrases.language)
            }
            authenticated = session
        } catch {
            return unavailable(error, prefixed: false, phrases)
        }
        guard Self.isJSON(request) else {
            return APIAnswer.codeError(.unsupportedMediaType, phrases("web.api.pinNotJSON"), language: phrases.language)
        }
        guard let data = await Self.body(of: request) else {
            return APIAnswer.codeError(.contentTooLarge, phrases("web.api.tooLarge"), language: phrases.language)
        }
        guard let body = try? JSONDecoder().decode(StudentLocationBody.self, from: data) else {
            return APIAnswer.codeError(.badRequest, phrases("web.api.badJSON"), code: 142, language: phrases.language)
        }
        guard body.uniqueKey == authenticated.accountKey else {
            return APIAnswer.codeError(.forbidden, phrases("web.api.ownAccountOnly"), language: phrases.language)
        }
        let pin: KeptPin
        switch await keptPin(body, session: authenticated, phrases: phrases) {
        case .success(let valid): pin = valid
        case .failure(let refusal): return refusal.answer
        }
        if let until = body.until {
            return await storeTrip(
                pin.draft, until: until, objectId: objectId, session: authenticated, phrases: phrases)
        }
        return await store(pin, objectId: objectId, session: authenticated, phrases: phrases)
    }

    /// A write with `until`: the checked place (`draft`, kept at the student's level) becomes the
    /// account's trip, shown instead of its
    /// home pin (which stays as it is) until the end of that day in the place's zone, as `!post
    /// <place> until <date>` does. Answers the contract's `updatedAt` and the trip as kept.
    func storeTrip(
        _ draft: PinDraft, until: String, objectId: String?, session: DirectorySession, phrases: Phrasebook
    ) async -> Response {
        guard let trips = services.trips else {
            return APIAnswer.codeError(.badRequest, phrases("web.api.noTrips"), language: phrases.language)
        }
        do {
            guard let home = try await directory.location(ofAccount: session.accountKey) else {
                return APIAnswer.codeError(.badRequest, phrases("web.api.tripWithoutHome"), language: phrases.language)
            }
            if let objectId, objectId != home.objectId {
                return APIAnswer.codeError(.forbidden, phrases("web.api.tripOwnPin"), language: phrases.language)
            }
            let end: TripEnd
            do {
                end = try await services.tripEnd(
                    until: until, shownAt: draft.coordinate, named: draft.mapString, language: phrases.language)
            } catch {
                switch error {
                case .noTimeZone:
                    return APIAnswer.codeError(
                        .badRequest, phrases("web.api.tripNoTimeZone", ["place": draft.mapString]),
                        language: phrases.language)
                case .date(let refusal):
                    return APIAnswer.codeError(
                        .badRequest, refusal.sentence(in: phrases), language: phrases.language)
                }
            }
            let trip = try await services.privacyGate.keep(
                Trip(mapString: draft.mapString, coordinate: draft.coordinate, endsAt: end.endsAt),
                of: session.accountKey)
            let saved = try await trips.setTrip(trip, ofAccount: session.accountKey, session: session)
            await services.outsidePins.saved(saved)
            return APIAnswer.json([
                "updatedAt": APIAnswer.milliseconds(saved.updatedAt),
                "trip": ["mapString": trip.trip.mapString, "until": end.lastDay.isoText] as [String: Any],
            ])
        } catch ServiceError.rejectedInput(let reason) {
            return APIAnswer.codeError(.badRequest, reason)
        } catch ServiceError.sessionExpired {
            return APIAnswer.codeError(.unauthorized, phrases("web.api.sessionExpired"), language: phrases.language)
        } catch {
            return unavailable(error, prefixed: false, phrases)
        }
    }

    /// A refused write: its answer.
    struct Refusal: Error {
        var answer: Response
    }

    /// The pin to save: `!post`'s link rules, the directory's text rules for the names and place
    /// (control characters refused, not stripped), and the account's own name on the pin; kept at
    /// the student's level.
    func keptPin(
        _ body: StudentLocationBody, session: DirectorySession, phrases: Phrasebook
    ) async -> Result<KeptPin, Refusal> {
        let mediaURL: String
        switch LinkRules.validate(body.mediaURL) {
        case .success(let link): mediaURL = link
        case .failure(let problem):
            return .failure(
                Refusal(
                    answer: APIAnswer.codeError(
                        .badRequest, Self.sentence(problem, phrases), language: phrases.language)))
        }
        let profile: StudentProfile
        do {
            _ = try DirectoryInput.validateNames(firstName: body.firstName, lastName: body.lastName)
            profile = try await directory.profile(accountKey: session.accountKey, session: session)
        } catch ServiceError.rejectedInput(let reason) {
            return .failure(Refusal(answer: APIAnswer.codeError(.badRequest, reason)))
        } catch ServiceError.sessionExpired {
            return .failure(
                Refusal(
                    answer: APIAnswer.codeError(
                        .unauthorized, phrases("web.api.sessionExpired"), language: phrases.language)))
        } catch {
            return .failure(Refusal(answer: unavailable(error, prefixed: false, phrases)))
        }
        let draft = PinDraft(
            uniqueKey: session.accountKey,
            firstName: profile.namesForPin.first,
            lastName: profile.namesForPin.last, mapString: body.mapString.trimmingCharacters(in: .whitespaces),
            mediaURL: mediaURL, coordinate: Coordinate(latitude: body.latitude, longitude: body.longitude))
        do {
            try DirectoryInput.validatePin(draft)
        } catch ServiceError.rejectedInput(let reason) {
            return .failure(Refusal(answer: APIAnswer.codeError(.badRequest, reason)))
        } catch {
            return .failure(
                Refusal(
                    answer: APIAnswer.codeError(.badRequest, phrases("web.api.pinInvalid"), language: phrases.language))
            )
        }
        // An app sends exact coordinates and the text typed: both are made no more precise than
        // the student chose (the nearest populated place, its region or its country) before storage.
        do {
            return .success(try await services.privacyGate.keep(draft).pin)
        } catch {
            return .failure(Refusal(answer: unavailable(error, prefixed: false, phrases)))
        }
    }

    /// Saves a checked pin (a POST for an account that has a pin replaces it: one pin per account),
    /// hands it to the class map and the announcer, and answers as the contract does.
    func store(_ pin: KeptPin, objectId: String?, session: DirectorySession, phrases: Phrasebook) async -> Response {
        do {
            let saved: StudentLocation
            if let objectId {
                saved = try await directory.updateLocation(objectId: objectId, with: pin, session: session)
            } else {
                saved = try await directory.savePin(pin, session: session).0
            }
            await services.outsidePins.saved(saved)
            return objectId == nil
                ? APIAnswer.json(["createdAt": APIAnswer.milliseconds(saved.createdAt), "objectId": saved.objectId])
                : APIAnswer.json(["updatedAt": APIAnswer.milliseconds(saved.updatedAt)])
        } catch ServiceError.notFound {
            return APIAnswer.codeError(
                .notFound, phrases("web.api.objectNotFound"), code: 101, language: phrases.language)
        } catch ServiceError.rejectedInput {
            // The pin was checked before: what the directory still refuses is another account's pin.
            return APIAnswer.codeError(.forbidden, phrases("web.api.otherAccountsPin"), language: phrases.language)
        } catch ServiceError.sessionExpired {
            return APIAnswer.codeError(.unauthorized, phrases("web.api.sessionExpired"), language: phrases.language)
        } catch {
            return unavailable(error, prefixed: false, phrases)
        }
    }

    /// The sentence for a refused link (`!post`'s rules, without its IRC commands), in `phrases`'
    /// language.
    static func sentence(_ problem: LinkRules.Problem, _ phrases: Phrasebook) -> String {
        switch problem {
        case .empty: return phrases("web.api.link.empty")
        case .missingScheme(let suggestion): return phrases("web.api.link.missingScheme", ["suggestion": suggestion])
        case .unreadableCharacters: return phrases("web.api.link.unreadableCharacters")
        // The rest name no IRC command: the bot's own sentence.
        case .tooLong, .unsupportedScheme, .missingHost, .credentials, .hiddenCharacters, .malformed:
            return problem.sentence(prefix: "", in: phrases)
        }
    }

    // MARK: - Geocode

    /// `GET /v1/geocode?q=<place>`: the place finder `!post` uses, for a logged-in page. Answers
    /// `{"status": "found" | "offered" | "not_a_place" | "not_found", "results": [...]}`; a found
    /// place comes first, then its namesakes; offers are near matches to confirm.
    func geocode(_ request: Request) async -> Response {
        let phrases = WebLanguages.answerPhrases(for: request)
        do {
            guard try await session(of: request) != nil else {
                return APIAnswer.codeError(.unauthorized, phrases("web.api.logInFirst"), language: phrases.language)
            }
        } catch {
            return unavailable(error, prefixed: false, phrases)
        }
        let query = (request.uri.queryParameters.get("q") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty, query.utf8.count <= 200, !DirectoryInput.containsControlCharacters(query) else {
            return APIAnswer.codeError(.badRequest, phrases("web.api.geocodeQuery"), language: phrases.language)
        }
        let resolution: PlaceResolution
        do {
            resolution = try await services.placeResolver.resolve(query)
        } catch {
            logger.warning("geocoding failed", metadata: ["error": "\(error)"])
            return APIAnswer.codeError(
                .serviceUnavailable, phrases("web.api.geocodeUnavailable"), language: phrases.language)
        }
        let answer: (status: String, places: [PlaceCandidate])
        switch resolution {
        case .found(let place, let namesakes): answer = ("found", [place] + namesakes)
        case .offered(let offers): answer = ("offered", offers)
        case .notAPlace: answer = ("not_a_place", [])
        case .notFound: answer = ("not_found", [])
        }
        return APIAnswer.json(["status": answer.status, "results": answer.places.prefix(5).map(Self.place)])
    }

    static func place(_ candidate: PlaceCandidate) -> [String: Any] {
        var place: [String: Any] = [
            "name": candidate.displayName, "latitude": candidate.coordinate.latitude,
            "longitude": candidate.coordinate.longitude,
        ]
        if let country = candidate.country { place["country"] = country }
        return place
    }
}
