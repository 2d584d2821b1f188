import BotKit
import ClassKit
import OnTheMapService

/// The rules every lookup of other students on IRC follows (`!where`, `!near`, `!list`): who may
/// ask (`web.visibility`) and who hears the answer to a question asked in a channel
/// (`privacy.channel_answers`).
enum ClassLookups {
    /// The sentence a stranger gets when the class is for the class.
    static func signInSentence(_ call: Invocation) -> String {
        "The class map is for the class: log in first with /msg \(call.botNick) \(call.prefix)login <email> <password>, then ask again."
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
