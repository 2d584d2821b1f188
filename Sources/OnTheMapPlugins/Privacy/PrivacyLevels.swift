import BotKit
import ClassKit
import Foundation
import Localization
import OnTheMapService

/// `!privacy`: shows what others see of the student and who may look; `!privacy <level>` sets the
/// precision their pin is kept at and re-stores the pin when the level is coarser than it;
/// `!privacy name …` is ``PrivacyNames``.
enum PrivacyLevels {
    static func privacy(_ call: Invocation, _ services: ClassServices) async throws {
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
                "The levels are \(PinPrecision.wordList): \(call.prefix)privacy region, for example.")
        }
        guard let bound = services.session(of: call) else {
            throw UserFacingError(
                "Log in first to choose your own level: /msg \(call.botNick) \(call.prefix)login <email> <password>.")
        }
        let policy = services.settings.privacy
        guard level >= policy.finestPrecision else {
            throw UserFacingError(
                "This class keeps pins no finer than \(describe(policy.finestPrecision)): choose \(allowedWords(policy))."
            )
        }
        let accountKey = bound.profile.accountKey
        try await services.call { try await services.privacyChoices.set(level, for: accountKey) }
        let pin = try await services.call { try await services.directory.location(ofAccount: accountKey) }
        guard let pin else {
            await call.reply("OK: your pin will be kept at \(describe(level)) when you post one.")
            return
        }
        let gate = services.privacyGate
        let current = await gate.precision(of: pin)
        let tripChanged = try await keepTripNoFiner(than: level, pin: pin, session: bound.session, services)
        guard await gate.isFiner(pin, than: level) else {
            // Not finer than the level: kept at it already (a region's point and name may be its
            // main town's too, so a pin read as the town's can be the region's as well).
            if tripChanged { await flushFinerPlace(of: pin, services) }
            await call.reply(
                level >= current
                    ? "OK: your pin is kept at \(describe(level)): others see \(Formatting.place(pin.mapString))."
                    : "OK: your next pin will be kept at \(describe(level)). The one you have stays at \(describe(current)) (\(Formatting.place(pin.mapString))): nothing finer was kept, so post again to change it: \(call.prefix)post <place>."
            )
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
            coarse.isWidened ? " " + widening(to: coarse.precision, minimum: gate.cityMinimumPopulation) : ""
        await call.reply(
            "OK: your pin is now kept at \(describe(coarse.precision)): others see \(Formatting.place(saved.mapString))\(widened); the finer place is no longer stored."
        )
    }

    /// Why a city-level pin shows a larger town than the student's, or their region: "(the nearest
    /// town of at least 15,000 people in your region)".
    static func widening(to precision: PinPrecision, minimum: Int) -> String {
        precision == .city
            ? "(the nearest town of at least \(Phrasebook.english.number(minimum)) people in your region)"
            : "(your region has no town of at least \(Phrasebook.english.number(minimum)) people)"
    }

    /// Keeps the trip of `pin` no finer than `level`, as its home pin: a lasting one finer than
    /// that is re-stored at the level (its end kept), an ended one is erased (it shows nowhere and
    /// cannot be saved again).
    /// Returns whether it changed the trip.
    @discardableResult
    static func keepTripNoFiner(
        than level: PinPrecision, pin: StudentLocation, session: DirectorySession, _ services: ClassServices
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
    static func flushFinerPlace(of pin: StudentLocation, _ services: ClassServices) async {
        try? await services.accounts?.flushErasures(pins: [pin.objectId])
    }

    /// Three lines: what others see of the asker (or the class's rule), who may look, how to change it.
    static func explanation(_ call: Invocation, _ services: ClassServices) async throws -> [String] {
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
                mine =
                    "Your pin shows \(Formatting.place(pin.mapString)) (\(describe(current))); pins you post are kept at \(describe(level))\(smallPlaces(at: level, policy))."
            } else {
                mine =
                    "You have no pin; the one you post will be kept at \(describe(level))\(smallPlaces(at: level, policy))."
            }
        } else {
            mine =
                "Pins are kept at \(describe(policy.defaultPrecision)) unless a student chooses otherwise: \(policy.defaultPrecision == .exact ? "the place as typed" : "never the street typed")\(smallPlaces(at: policy.defaultPrecision, policy))."
        }
        let who =
            policy.classOnly
            ? "Who sees them: only students signed in to this class (on IRC, on the web map and through its API); distances are never finer than a pin."
            : "Who sees them: anyone on IRC or with the map's address (the operator made this class public); distances are never finer than a pin."
        let change =
            "Change yours: \(call.prefix)privacy \(allowedWords(policy).replacingOccurrences(of: ", ", with: "|").replacingOccurrences(of: " or ", with: "|")); your name in full or as first name and last initial: \(call.prefix)privacy name full|first. What is kept about you: \(call.prefix)mydata; erase it all: \(call.prefix)forget."
        return [mine, who, change]
    }

    /// At city level with `privacy.city_min_population` on, the rule for small places, to end a
    /// sentence: "; a place of fewer than 15,000 people shows as the nearest town of at least that
    /// size in its region". Empty otherwise.
    static func smallPlaces(at level: PinPrecision, _ policy: PrivacyPolicy) -> String {
        guard level == .city, policy.cityMinimumPopulation > 0 else { return "" }
        return
            "; a place of fewer than \(Phrasebook.english.number(policy.cityMinimumPopulation)) people shows as the nearest town of at least that size in its region"
    }

    /// "city level (the town)", for a sentence.
    static func describe(_ level: PinPrecision) -> String {
        switch level {
        case .exact: "exact level (the place as typed)"
        case .city: "city level (the town)"
        case .region: "region level (state or province)"
        case .country: "country level"
        }
    }

    /// The levels a student may choose here, coarsest last: "city, region or country".
    static func allowedWords(_ policy: PrivacyPolicy) -> String {
        let levels = [PinPrecision.city, .region, .country, .exact].filter { $0 >= policy.finestPrecision }.map(
            \.rawValue)
        guard levels.count > 1 else { return levels.joined() }
        return levels.dropLast().joined(separator: ", ") + " or " + (levels.last ?? "")
    }
}
