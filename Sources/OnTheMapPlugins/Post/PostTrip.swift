import BotKit
import ClassKit
import Foundation
import IRCProtocol
import OnTheMapService
import Localization

/// `!post <place> until <date>`: a trip, shown instead of the home pin until the end of that day
/// in the trip place's zone; `!unpost trip` ends it early.
extension PostPlugin {
    /// The place and the date of `!post <place> until <date>` (the last " until " splits them);
    /// nil when the text is no trip.
    static func tripParts(of argument: String) -> (place: String, until: String)? {
        guard
            let range = argument.range(
                of: #"\s+until\s+"#, options: [.regularExpression, .caseInsensitive, .backwards])
        else { return nil }
        let place = argument[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
        let until = argument[range.upperBound...].trimmingCharacters(in: .whitespaces)
        guard !place.isEmpty, !until.isEmpty else { return nil }
        return (place, until)
    }

    /// The directory's trips, or the sentence that says it has none (the Udacity-compatible API
    /// keeps one pin per student).
    func tripDirectory(_ call: Invocation) throws -> any TripDirectory {
        guard let trips = services.trips else { throw UserFacingError(call.phrases("post.noTrips")) }
        return trips
    }

    /// Saves a trip to `typedPlace` ending with the day `until` names there, and says so.
    func postTrip(place typedPlace: String, until: String, bound: StudentSession, call: Invocation) async throws {
        let trips = try tripDirectory(call)
        let prefix = call.prefix
        let phrases = call.phrases
        let example = phrases(
            "post.tripExample", ["post": prefix + "post", "date": phrases.shortDate(day: 24, month: 12)])
        let accountKey = bound.profile.accountKey
        let typed = try Self.cleanedPlace(typedPlace, call: call)
        let place: PlaceCandidate
        switch try await services.resolvePlace(typed) {
        case .found(let found, _):
            place = found
        case .offered(let offers):
            throw UserFacingError(
                phrases(
                    "post.tripDidYouMean",
                    ["places": PlaceWording.offers(offers, phrases: phrases), "post": prefix + "post"]))
        case .notAPlace(let kind):
            throw UserFacingError(PlaceWording.notAPlace(kind, typed: typed, example: example, phrases: call.phrases))
        case .notFound:
            throw UserFacingError(PlaceWording.notFound(typed, example: example, phrases: call.phrases))
        }
        // A date that is no date is told first (whatever the zone, "31 Feb" is none); the end
        // itself is read below, from the place as kept.
        do {
            _ = try TripEndDateParser.parse(
                until, now: services.now(), in: TimeZone(secondsFromGMT: 0) ?? .current, language: phrases.language)
        } catch {
            switch error {
            case .unreadable, .noSuchDay: throw UserFacingError(error.sentence(in: phrases))
            case .past, .alreadyEnded, .tooFarAhead: break  // told by the place's own calendar below
            }
        }
        guard try await services.call({ try await services.directory.location(ofAccount: accountKey) }) != nil
        else {
            throw UserFacingError(phrases("post.tripNeedsHome", ["post": prefix + "post", "example": example]))
        }
        // Made no more precise than the student chose, like a home pin.
        let level = try await services.call { try await services.privacyGate.level(of: accountKey) }
        var mapString = typed
        var shown = place
        if level != .exact {
            shown = await services.privacyGate.shown(place, at: level)
            mapString = TextSanitizer.truncated(
                Formatting.clean(shown.displayName, maxBytes: 200), maxBytes: DirectoryInput.maximumMapStringBytes)
        }
        // Its end is read from the place as kept, never the finer one typed.
        let end: TripEnd
        do {
            end = try await services.tripEnd(
                until: until, shownAt: shown.coordinate, named: mapString, language: phrases.language)
        } catch {
            switch error {
            case .noTimeZone:
                throw UserFacingError(
                    phrases("post.tripNoTimeZone", ["place": PlaceWording.place(place, phrases: phrases)]))
            case .date(let refusal): throw UserFacingError(refusal.sentence(in: phrases))
            }
        }
        let kept = await services.privacyGate.keep(
            Trip(mapString: mapString, coordinate: shown.coordinate, endsAt: end.endsAt), at: level)
        let trip = kept.trip
        let saved = try await services.call {
            try await trips.setTrip(kept, ofAccount: accountKey, session: bound.session)
        }
        await services.classMap.record(saved)
        await call.reply(
            phrases(
                "post.tripSaved",
                [
                    "place": Formatting.place(mapString, phrases: phrases),
                    "date": phrases.shortDate(day: end.lastDay.day, month: end.lastDay.month),
                ]))
        // Announced once, like a new pin (see `finish`).
        if !(await services.ledger.claim([saved]).isEmpty) {
            for channel in services.settings.announceChannels {
                let namesOnly = await NamesOnlyWording.withholdsPlaces(
                    in: channel, services, isOpen: call.isOpenChannel)
                let heard = call.phrases(forChannel: channel)
                let text =
                    namesOnly
                    ? NamesOnlyWording.away(saved, lastDay: end.lastDay, phrases: heard)
                    : Formatting.line([
                        TripWording.away(saved, trip: trip, lastDay: end.lastDay, phrases: heard),
                        Formatting.link(saved.mediaURL),
                    ])
                await call.say(text, in: channel)
            }
            await services.ledger.handedOver([saved])
        }
        services.pinWakeups.wakeAll()
    }

    /// `!unpost trip`: ends the student's trip now; their home pin shows again.
    func endTrip(_ call: Invocation) async throws {
        guard let bound = services.session(of: call) else { return }
        let trips = try tripDirectory(call)
        let accountKey = bound.profile.accountKey
        let ended = try await services.call {
            try await trips.endTrip(ofAccount: accountKey, session: bound.session)
        }
        let pin = try await services.call { try await services.directory.location(ofAccount: accountKey) }
        guard let pin else {
            throw UserFacingError(call.phrases("post.noPinNoTrip"))
        }
        await services.classMap.record(pin)
        guard let ended, ended.isActive(at: services.now()) else {
            throw UserFacingError(
                call.phrases("post.noTripToEnd", ["place": Formatting.place(pin.mapString, phrases: call.phrases)]))
        }
        await call.reply(
            call.phrases("post.tripEnded", ["place": Formatting.place(pin.mapString, phrases: call.phrases)]))
    }
}
