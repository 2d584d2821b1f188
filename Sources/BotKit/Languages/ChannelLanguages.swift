import IRCProtocol
import Localization

/// The language of lines for a whole channel (announcements, greetings) and the first guess for
/// everyone who chose none (`!lang`): a channel's own (`irc.channels[].language`), else the
/// network's or the bot's default.
public struct ChannelLanguages: Sendable, Equatable {
    /// The language of private answers and of channels without one of their own.
    public var fallback: Language
    /// Channel name (as configured; compared under the server's casemapping) → its language.
    public var byChannel: [String: Language]

    public init(fallback: Language = .english, byChannel: [String: Language] = [:]) {
        self.fallback = fallback
        self.byChannel = byChannel
    }

    /// The language of `channel` (nil: a private conversation), `channel` compared under `caseMapping`.
    public func language(of channel: String?, caseMapping: CaseMapping) -> Language {
        guard let channel else { return fallback }
        return byChannel.first { caseMapping.equals($0.key, channel) }?.value ?? fallback
    }
}

/// The language each user chose with `!lang`: by services account or class login when they have
/// one (kept), else for their connection.
public protocol LanguageChoices: Sendable {
    /// What `sender` chose, or nil when they chose nothing (the channel's or default language applies).
    func chosenLanguage(of sender: UserIdentity, caseMapping: CaseMapping) async -> Language?
}
