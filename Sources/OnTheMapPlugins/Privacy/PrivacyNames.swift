import BotKit
import ClassKit
import Foundation
import OnTheMapService

/// `!privacy name`: how the student's name shows to others; `!privacy name full|first` sets it and
/// keeps the pin again under that form at once (the pin's level unchanged), so the full last name
/// leaves the pin, the map, the API and the directory's files.
enum PrivacyNames {
    static func name(_ words: ArraySlice<String>, _ call: Invocation, _ services: ClassServices) async throws {
        guard let bound = services.session(of: call) else {
            throw UserFacingError(
                "Log in first to choose how your name shows: /msg \(call.botNick) \(call.prefix)login <email> <password>."
            )
        }
        let profile = bound.profile
        let accountKey = profile.accountKey
        let gate = services.privacyGate
        guard let word = words.first else {
            let form = try await services.call { try await gate.nameForm(of: accountKey) }
            await call.reply(
                "Others see your name as \(shown(profile, form)) (\(describe(form))). "
                    + "Change it: \(call.prefix)privacy name full|first.")
            return
        }
        guard words.count == 1, let form = NameForm(word: word) else {
            throw UserFacingError(
                "Usage: \(call.prefix)privacy name full (your whole name) or \(call.prefix)privacy name first (your first name and last initial)."
            )
        }
        try await services.call { try await services.privacyChoices.set(form, for: accountKey) }
        let pin = try await services.call { try await services.directory.location(ofAccount: accountKey) }
        guard let pin else {
            await call.reply("OK: others will see your name as \(shown(profile, form)) when you post a pin.")
            return
        }
        // The pin again under the account's own names in the new form, at the level it is kept at.
        var named = pin
        (named.firstName, named.lastName) = profile.namesForPin
        let level = await gate.precision(of: pin)
        let kept = try await services.call { try await gate.keep(named, at: level).pin }
        let saved = try await services.call {
            try await services.directory.updateLocation(objectId: pin.objectId, with: kept, session: bound.session)
        }
        await services.classMap.record(saved)
        await PrivacyLevels.flushFinerPlace(of: pin, services)
        await call.reply(
            "OK: others now see you as \(Formatting.name(saved)) on IRC, on the map and through its API; "
                + "your account keeps your full name, which only you see.")
    }

    /// The student's name as others see it in `form`, safe to print.
    static func shown(_ profile: StudentProfile, _ form: NameForm) -> String {
        let names = profile.namesForPin
        let (first, last) = form.applied(first: names.first, last: names.last)
        return Formatting.clean(StudentLocation.fullName(first: first, last: last), maxBytes: 100, fallback: "student")
    }

    /// "in full", "first name and last initial".
    static func describe(_ form: NameForm) -> String {
        switch form {
        case .full: "in full"
        case .first: "first name and last initial"
        }
    }
}
