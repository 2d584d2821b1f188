import ClassKit
import Foundation
import Hummingbird
import OnTheMapService

extension ClassAPI {
    /// The orders `GET /v1/StudentLocation` accepts.
    static let orders: Set<String> = ["-updatedAt", "updatedAt", "-createdAt", "createdAt"]
    /// The most pins one list answer holds, and the most read to sort by another order.
    static let maximumPageSize = 1_000
    static let maximumSorted = 10_000

    /// `GET /v1/StudentLocation?limit=&skip=&order=&uniqueKey=`.
    func list(_ request: Request) async -> Response {
        let query = request.uri.queryParameters
        var limit = 100
        if let text = query.get("limit") {
            guard let value = Int(text), value >= 0 else {
                return APIAnswer.codeError(.badRequest, "Invalid limit.", code: 102)
            }
            limit = min(value, Self.maximumPageSize)
        }
        var skip = 0
        if let text = query.get("skip") {
            guard let value = Int(text), value >= 0 else {
                return APIAnswer.codeError(.badRequest, "Invalid skip.", code: 102)
            }
            skip = min(value, Self.maximumSorted)
        }
        let order = query.get("order") ?? "-updatedAt"
        guard Self.orders.contains(order) else { return APIAnswer.codeError(.badRequest, "Invalid order.", code: 105) }
        do {
            if settings.readRequiresLogin, try await session(of: request) == nil {
                return APIAnswer.codeError(.unauthorized, "Log in first: POST /v1/session.")
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
            return unavailable(error, prefixed: false)
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
        let authenticated: DirectorySession
        do {
            guard let (session, _) = try await session(of: request) else {
                return APIAnswer.codeError(
                    .unauthorized,
                    "Log in first: POST /v1/session, then send its cookie or Authorization: Bearer <session id>.")
            }
            authenticated = session
        } catch {
            return unavailable(error, prefixed: false)
        }
        guard Self.isJSON(request) else {
            return APIAnswer.codeError(.unsupportedMediaType, "Send the pin as JSON (Content-Type: application/json).")
        }
        guard let data = await Self.body(of: request) else {
            return APIAnswer.codeError(.contentTooLarge, "The request body is too large.")
        }
        guard let body = try? JSONDecoder().decode(StudentLocationBody.self, from: data) else {
            return APIAnswer.codeError(.badRequest, "Failed to parse JSON body.", code: 142)
        }
        guard body.uniqueKey == authenticated.accountKey else {
            return APIAnswer.codeError(.forbidden, "A pin can only be saved for your own account.")
        }
        let pin: KeptPin
        switch await keptPin(body, session: authenticated) {
        case .success(let valid): pin = valid
        case .failure(let refusal): return refusal.answer
        }
        if let until = body.until {
            return await storeTrip(pin.draft, until: until, objectId: objectId, session: authenticated)
        }
        return await store(pin, objectId: objectId, session: authenticated)
    }

    /// A write with `until`: the checked place (`draft`, kept at the student's level) becomes the
    /// account's trip, shown instead of its
    /// home pin (which stays as it is) until the end of that day in the place's zone, as `!post
    /// <place> until <date>` does. Answers the contract's `updatedAt` and the trip as kept.
    func storeTrip(_ draft: PinDraft, until: String, objectId: String?, session: DirectorySession) async -> Response {
        guard let trips = services.trips else {
            return APIAnswer.codeError(
                .badRequest,
                "This class directory keeps one pin per student, so it has no trips: send the pin without until.")
        }
        do {
            guard let home = try await directory.location(ofAccount: session.accountKey) else {
                return APIAnswer.codeError(
                    .badRequest,
                    "A trip shows instead of your home pin, and you have none yet: post your home place first (without until)."
                )
            }
            if let objectId, objectId != home.objectId {
                return APIAnswer.codeError(.forbidden, "A trip is kept with your own pin: send it to that pin.")
            }
            let end: TripEnd
            do {
                end = try await services.tripEnd(until: until, shownAt: draft.coordinate, named: draft.mapString)
            } catch {
                switch error {
                case .noTimeZone:
                    return APIAnswer.codeError(
                        .badRequest,
                        "The time zone of \(draft.mapString) is not known, so the end of the trip's last day there cannot be told; try its nearest city."
                    )
                case .date(let refusal): return APIAnswer.codeError(.badRequest, refusal.description)
                }
            }
            let trip = try await services.privacyGate.keep(
                Trip(mapString: draft.mapString, coordinate: draft.coordinate, endsAt: end.endsAt),
                of: session.accountKey)
            let saved = try await trips.setTrip(trip, ofAccount: session.accountKey, session: session)
            await services.pinSavedOutsideIRC(saved)
            return APIAnswer.json([
                "updatedAt": APIAnswer.milliseconds(saved.updatedAt),
                "trip": ["mapString": trip.trip.mapString, "until": end.lastDay.isoText] as [String: Any],
            ])
        } catch ServiceError.rejectedInput(let reason) {
            return APIAnswer.codeError(.badRequest, reason)
        } catch ServiceError.sessionExpired {
            return APIAnswer.codeError(.unauthorized, "The session has expired; log in again.")
        } catch {
            return unavailable(error, prefixed: false)
        }
    }

    /// A refused write: its answer.
    struct Refusal: Error {
        var answer: Response
    }

    /// The pin to save: `!post`'s link rules, the directory's text rules for the names and place
    /// (control characters refused, not stripped), and the account's own name on the pin; kept at
    /// the student's level.
    func keptPin(_ body: StudentLocationBody, session: DirectorySession) async -> Result<KeptPin, Refusal> {
        let mediaURL: String
        switch LinkRules.validate(body.mediaURL) {
        case .success(let link): mediaURL = link
        case .failure(let problem):
            return .failure(Refusal(answer: APIAnswer.codeError(.badRequest, Self.sentence(problem))))
        }
        let profile: StudentProfile
        do {
            _ = try DirectoryInput.validateNames(firstName: body.firstName, lastName: body.lastName)
            profile = try await directory.profile(accountKey: session.accountKey, session: session)
        } catch ServiceError.rejectedInput(let reason) {
            return .failure(Refusal(answer: APIAnswer.codeError(.badRequest, reason)))
        } catch ServiceError.sessionExpired {
            return .failure(
                Refusal(answer: APIAnswer.codeError(.unauthorized, "The session has expired; log in again.")))
        } catch {
            return .failure(Refusal(answer: unavailable(error, prefixed: false)))
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
            return .failure(Refusal(answer: APIAnswer.codeError(.badRequest, "The pin is not valid.")))
        }
        // An app sends exact coordinates and the text typed: both are made no more precise than
        // the student chose (the nearest populated place, its region or its country) before storage.
        do {
            return .success(try await services.privacyGate.keep(draft).pin)
        } catch {
            return .failure(Refusal(answer: unavailable(error, prefixed: false)))
        }
    }

    /// Saves a checked pin (a POST for an account that has a pin replaces it: one pin per account),
    /// hands it to the class map and the announcer, and answers as the contract does.
    func store(_ pin: KeptPin, objectId: String?, session: DirectorySession) async -> Response {
        do {
            let saved: StudentLocation
            if let objectId {
                saved = try await directory.updateLocation(objectId: objectId, with: pin, session: session)
            } else {
                saved = try await directory.savePin(pin, session: session).0
            }
            await services.pinSavedOutsideIRC(saved)
            return objectId == nil
                ? APIAnswer.json(["createdAt": APIAnswer.milliseconds(saved.createdAt), "objectId": saved.objectId])
                : APIAnswer.json(["updatedAt": APIAnswer.milliseconds(saved.updatedAt)])
        } catch ServiceError.notFound {
            return APIAnswer.codeError(.notFound, "Object not found.", code: 101)
        } catch ServiceError.rejectedInput {
            // The pin was checked before: what the directory still refuses is another account's pin.
            return APIAnswer.codeError(.forbidden, "This pin belongs to another account.")
        } catch ServiceError.sessionExpired {
            return APIAnswer.codeError(.unauthorized, "The session has expired; log in again.")
        } catch {
            return unavailable(error, prefixed: false)
        }
    }

    /// `!post`'s sentence for a refused link, without its IRC commands.
    static func sentence(_ problem: LinkRules.Problem) -> String {
        switch problem {
        case .empty: return "The link (mediaURL) is empty."
        case .missingScheme(let suggestion): return "Links start with http:// or https:// — did you mean \(suggestion)?"
        default: return problem.sentence(prefix: "")
        }
    }

    // MARK: - Geocode

    /// `GET /v1/geocode?q=<place>`: the place finder `!post` uses, for a logged-in page. Answers
    /// `{"status": "found" | "offered" | "not_a_place" | "not_found", "results": [...]}`; a found
    /// place comes first, then its namesakes; offers are near matches to confirm.
    func geocode(_ request: Request) async -> Response {
        do {
            guard try await session(of: request) != nil else {
                return APIAnswer.codeError(.unauthorized, "Log in first: POST /v1/session.")
            }
        } catch {
            return unavailable(error, prefixed: false)
        }
        let query = (request.uri.queryParameters.get("q") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty, query.utf8.count <= 200, !DirectoryInput.containsControlCharacters(query) else {
            return APIAnswer.codeError(.badRequest, "Send a place of at most 200 bytes, like ?q=Seattle, WA.")
        }
        let resolution: PlaceResolution
        do {
            resolution = try await services.placeResolver.resolve(query)
        } catch {
            logger.warning("geocoding failed", metadata: ["error": "\(error)"])
            return APIAnswer.codeError(
                .serviceUnavailable, "The place finder is unavailable just now; try again later.")
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
