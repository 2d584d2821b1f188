import BotKit
import ClassKit
import Foundation
import Localization
import OnTheMapService

/// `!privacy name`: how the student's name shows to others; `!privacy name full|first` sets it and
/// keeps the pin again under that form at once (the pin's level unchanged), so the full last name
/// leaves the pin, the map, the API and the directory's files.
enum PrivacyNames {
    static func name(_ words: ArraySlice<String>, _ call: Invocation, _ services: PrivacyPlugin.Needs) async throws {
        guard let bound = services.session(of: call) else {
            throw UserFacingError(
                call.phrases("privacy.loginForName", ["login": "/msg \(call.botNick) \(call.prefix)login"]))
        }
        let phrases = call.phrases
        let command = call.prefix + "privacy name"
        let profile = bound.profile
        let accountKey = profile.accountKey
        let gate = services.privacyGate
        guard let word = words.first else {
            let form = try await services.call { try await gate.nameForm(of: accountKey) }
            await call.reply(
                phrases(
                    "privacy.name.current",
                    ["name": shown(profile, form), "form": describe(form, phrases), "command": command]))
            return
        }
        guard words.count == 1, let form = NameForm(word: word) else {
            throw UserFacingError(phrases("privacy.name.usage", ["command": command]))
        }
        try await services.call { try await services.privacyChoices.set(form, for: accountKey) }
        let pin = try await services.call { try await services.directory.location(ofAccount: accountKey) }
        guard let pin else {
            await call.reply(phrases("privacy.name.forNextPin", ["name": shown(profile, form)]))
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
        await call.reply(phrases("privacy.name.changed", ["name": Formatting.name(saved)]))
    }

    /// The student's name as others see it in `form`, safe to print.
    static func shown(_ profile: StudentProfile, _ form: NameForm) -> String {
        let names = profile.namesForPin
        let (first, last) = form.applied(first: names.first, last: names.last)
        return Formatting.clean(StudentLocation.fullName(first: first, last: last), maxBytes: 100, fallback: "student")
    }

    /// "in full", "first name and last initial".
    static func describe(_ form: NameForm, _ phrases: Phrasebook) -> String {
        switch form {
        case .full: phrases("privacy.name.full")
        case .first: phrases("privacy.name.first")
        }
    }
}
