import BotKit
import ClassKit
import Foundation
import Localization
import OnTheMapService

/// `!privacy`: shows what others see of the student and who may look; `!privacy <level>` sets the
/// precision their pin is kept at and re-stores the pin when the level is coarser than it;
/// `!privacy name …` is ``PrivacyNames``.
enum PrivacyLevels {
    static func privacy(_ call: Invocation, _ services: PrivacyPlugin.Needs) async throws {
        let phrases = call.phrases
        let words = call.words
        guard let word = words.first else {
            await call.reply(lines: try await explanation(call, services))
            return
        }
        if word.lowercased() == "name" {
            try await PrivacyNames.name(words.dropFirst(), call, services)
            return
        }
        guard words.count == 1, let level = PinPrecision(word: word) else {
            throw UserFacingError(
                phrases("privacy.levels", ["levels": PinPrecision.wordList, "example": call.prefix + "privacy region"]))
        }
        guard let bound = services.session(of: call) else {
            throw UserFacingError(
                phrases("privacy.loginForLevel", ["login": "/msg \(call.botNick) \(call.prefix)login"]))
        }
        let policy = services.settings.privacy
        guard level >= policy.finestPrecision else {
            throw UserFacingError(
                phrases(
                    "privacy.noFinerThan",
                    ["level": describe(policy.finestPrecision, phrases), "choices": allowedWords(policy, phrases)]))
        }
        let accountKey = bound.profile.accountKey
        try await services.call { try await services.privacyChoices.set(level, for: accountKey) }
        let pin = try await services.call { try await services.directory.location(ofAccount: accountKey) }
        guard let pin else {
            await call.reply(phrases("privacy.levelForNextPin", ["level": describe(level, phrases)]))
            return
        }
        let gate = services.privacyGate
        let current = await gate.precision(of: pin)
        let tripChanged = try await keepTripNoFiner(than: level, pin: pin, session: bound.session, services)
        guard await gate.isFiner(pin, than: level) else {
            // Not finer than the level: kept at it already (a region's point and name may be its
            // main town's too, so a pin read as the town's can be the region's as well).
            if tripChanged { await flushFinerPlace(of: pin, services) }
            let values: [String: any PhraseValue] = [
                "level": describe(level, phrases), "current": describe(current, phrases),
                "place": Formatting.place(pin.mapString, phrases: phrases), "post": call.prefix + "post",
            ]
            await call.reply(phrases(level >= current ? "privacy.keptAt" : "privacy.nextPinAt", values))
            return
        }
        let coarse = try await services.call { try await gate.keep(pin, at: level) }
        let saved = try await services.call {
            try await services.directory.updateLocation(
                objectId: pin.objectId, with: coarse.pin, session: bound.session)
        }
        await services.classMap.record(saved)
        await flushFinerPlace(of: pin, services)
        let widened =
            coarse.isWidened
            ? " " + widening(to: coarse.precision, minimum: gate.cityMinimumPopulation, phrases) : ""
        await call.reply(
            phrases(
                "privacy.nowKeptAt",
                [
                    "level": describe(coarse.precision, phrases),
                    "place": Formatting.place(saved.mapString, phrases: phrases),
                    "widened": widened,
                ]))
    }

    /// Why a city-level pin shows a larger town than the student's, or their region: "(the nearest
    /// town of at least 15,000 people in your region)".
    static func widening(to precision: PinPrecision, minimum: Int, _ phrases: Phrasebook) -> String {
        phrases(precision == .city ? "privacy.widenedToTown" : "privacy.widenedToRegion", ["count": minimum])
    }

    /// Keeps the trip of `pin` no finer than `level`, as its home pin: a lasting one finer than
    /// that is re-stored at the level (its end kept), an ended one is erased (it shows nowhere and
    /// cannot be saved again).
    /// Returns whether it changed the trip.
    @discardableResult
    static func keepTripNoFiner(
        than level: PinPrecision, pin: StudentLocation, session: DirectorySession, _ services: PrivacyPlugin.Needs
    ) async throws -> Bool {
        guard let trip = pin.trip, let trips = services.trips,
            await services.privacyGate.isFiner(than: level, at: trip.coordinate, named: trip.mapString)
        else { return false }
        let saved: StudentLocation?
        if trip.isActive(at: services.now()) {
            let kept = try await services.call { try await services.privacyGate.keep(pin, at: level, trip: trip).pin }
            saved = try await services.call {
                try await services.directory.updateLocation(objectId: pin.objectId, with: kept, session: session)
            }
        } else {
            _ = try await services.call {
                try await trips.endTrip(ofAccount: pin.uniqueKey, session: session)
            }
            saved = try await services.call { try await services.directory.location(ofAccount: pin.uniqueKey) }
        }
        if let saved { await services.classMap.record(saved) }
        return true
    }

    /// Makes the finer place a pin was just re-stored from leave the directory's files before the
    /// student hears that it is no longer stored (see `AccountDirectory.flushErasures(pins:)`). A
    /// failure is left to the storage's own checkpoints and vacuums.
    static func flushFinerPlace(of pin: StudentLocation, _ services: PrivacyPlugin.Needs) async {
        try? await services.accounts?.flushErasures(pins: [pin.objectId])
    }

    /// Three lines: what others see of the asker (or the class's rule), who may look, how to change it.
    static func explanation(_ call: Invocation, _ services: PrivacyPlugin.Needs) async throws -> [String] {
        let phrases = call.phrases
        let policy = services.settings.privacy
        let mine: String
        if let bound = services.session(of: call) {
            let accountKey = bound.profile.accountKey
            let level = try await services.call { try await services.privacyGate.level(of: accountKey) }
            if let pin = try await services.call({ try await services.directory.location(ofAccount: accountKey) }) {
                let gate = services.privacyGate
                var current = await gate.precision(of: pin)
                // A pin that is already what the student's coarser level makes of it (a region that
                // shares its main town's point and name) is kept at that level.
                if level > current, await !gate.isFiner(pin, than: level) { current = level }
                mine = phrases(
                    "privacy.yourPin",
                    [
                        "place": Formatting.place(pin.mapString, phrases: phrases),
                        "current": describe(current, phrases),
                        "level": describe(level, phrases), "small": smallPlaces(at: level, policy, phrases),
                    ])
            } else {
                mine = phrases(
                    "privacy.noPinYet",
                    ["level": describe(level, phrases), "small": smallPlaces(at: level, policy, phrases)])
            }
        } else {
            mine = phrases(
                policy.defaultPrecision == .exact ? "privacy.classRuleExact" : "privacy.classRule",
                [
                    "level": describe(policy.defaultPrecision, phrases),
                    "small": smallPlaces(at: policy.defaultPrecision, policy, phrases),
                ])
        }
        let who = phrases(policy.classOnly ? "privacy.whoClass" : "privacy.whoPublic")
        let levels = [PinPrecision.city, .region, .country, .exact].filter { $0 >= policy.finestPrecision }
            .map(\.rawValue).joined(separator: "|")
        let change = phrases(
            "privacy.howToChange",
            [
                "privacy": call.prefix + "privacy", "levels": levels, "mydata": call.prefix + "mydata",
                "forget": call.prefix + "forget",
            ])
        return [mine, who, change]
    }

    /// At city level with `privacy.city_min_population` on, the rule for small places, to end a
    /// sentence: "; a place of fewer than 15,000 people shows as the nearest town of at least that
    /// size in its region". Empty otherwise.
    static func smallPlaces(at level: PinPrecision, _ policy: PrivacyPolicy, _ phrases: Phrasebook) -> String {
        guard level == .city, policy.cityMinimumPopulation > 0 else { return "" }
        return phrases("privacy.smallPlaces", ["count": policy.cityMinimumPopulation])
    }

    /// "city level (the town)", for a sentence.
    static func describe(_ level: PinPrecision, _ phrases: Phrasebook) -> String {
        switch level {
        case .exact: phrases("privacy.level.exact")
        case .city: phrases("privacy.level.city")
        case .region: phrases("privacy.level.region")
        case .country: phrases("privacy.level.country")
        }
    }

    /// The levels a student may choose here, coarsest last: "city, region or country" (the option
    /// words, as typed).
    static func allowedWords(_ policy: PrivacyPolicy, _ phrases: Phrasebook) -> String {
        let levels = [PinPrecision.city, .region, .country, .exact].filter { $0 >= policy.finestPrecision }.map(
            \.rawValue)
        guard levels.count > 1 else { return levels.joined() }
        return phrases(
            "privacy.orList", ["list": levels.dropLast().joined(separator: ", "), "last": levels.last ?? ""])
    }
}
