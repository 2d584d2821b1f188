import BotKit
import ClassKit
import OnTheMapService
import Localization

/// The rules every lookup of other students on IRC follows (`!where`, `!near`, `!list`): who may
/// ask (`web.visibility`) and who hears the answer to a question asked in a channel
/// (`privacy.channel_answers`, and `privacy.open_channel` for a channel anyone may join).
enum ClassLookups {
    /// The sentence a stranger gets when the class is for the class.
    static func signInSentence(_ call: Invocation) -> String {
        call.phrases("lookup.classOnly", ["hint": "/msg \(call.botNick) \(call.prefix)login"])
    }

    /// Throws ``signInSentence(_:)`` when only the class may look (`web.visibility: class`) and
    /// the asker has not logged in with `!login`.
    static func requireClassMember(_ call: Invocation, _ services: ClassServices) throws {
        guard services.settings.privacy.classOnly, services.session(of: call) == nil else { return }
        throw UserFacingError(signInSentence(call))
    }

    /// Whether the answer to this call goes to the asker alone although it was asked in a
    /// channel (`privacy.channel_answers: private`).
    static func answersPrivately(_ call: Invocation, _ services: ClassServices) -> Bool {
        !call.isPrivate && services.settings.privacy.channelAnswers == .private
    }

    /// Whether the channel the command was said in hears students' names only: anyone may join it
    /// (see ``BotTransport/isOpenChannel(_:)``) while the class is for the class and
    /// `privacy.open_channel` is `names`.
    static func withholdsPlaces(_ call: Invocation, _ services: ClassServices) async -> Bool {
        guard case .channel(let channel) = call.origin, services.settings.privacy.withholdsPlacesInOpenChannels
        else { return false }
        return await call.isOpenChannel(channel)
    }

    /// Whether the full answer to this call goes to the asker alone (asked privately, answered
    /// privately by setting, or asked in a channel that hears names only): it may then be longer
    /// than a channel's few lines.
    static func answersAskerAlone(_ call: Invocation, _ services: ClassServices) async -> Bool {
        if call.isPrivate || answersPrivately(call, services) { return true }
        return await withholdsPlaces(call, services)
    }

    /// Answers `lines`, which say where the students `names` are (places, links, local times):
    /// like ``answer(_:_:lines:)``, except in a channel that hears names only
    /// (``withholdsPlaces(_:_:)``), where one line names them and the asker, who is logged in
    /// (a lookup of classmates needs it while the class is for the class), gets `lines` by notice.
    static func answer(_ call: Invocation, _ services: ClassServices, lines: [String], naming names: [String]) async {
        guard !answersPrivately(call, services), await withholdsPlaces(call, services) else {
            await answer(call, services, lines: lines)
            return
        }
        await call.reply(namesOnly(names, phrases: call.phrases))
        for line in lines { await call.notice(line) }
    }

    /// The channel's line when it hears names only: "Ada Lovelace, Alan Turing — I sent you where
    /// by notice (this channel is open to anyone, so places stay out of it)."
    static func namesOnly(_ names: [String], phrases: Phrasebook) -> String {
        var unique: [String] = []
        for name in names where !unique.contains(name) { unique.append(name) }
        let shown = unique.prefix(5).joined(separator: ", ") + (unique.count > 5 ? ", …" : "")
        return unique.isEmpty
            ? phrases("lookup.sentByNotice") : phrases("lookup.namesSentByNotice", ["names": shown])
    }

    /// Answers `lines`: where the command was said, or by notice to the asker when
    /// ``answersPrivately(_:_:)``.
    static func answer(_ call: Invocation, _ services: ClassServices, lines: [String]) async {
        if answersPrivately(call, services) {
            for line in lines { await call.notice(line) }
        } else {
            await call.reply(lines: lines)
        }
    }
}
