import IRCProtocol
import Localization

/// What becomes of a command line addressed to the bot, decided before anything is sent (see
/// ``CommandRouter/admit(_:entry:line:facts:settings:)``).
public enum Admission: Sendable {
    /// The command runs.
    case run(CommandCatalog.Entry)
    /// The command does not run, and the sender is told why.
    case refuse(Refusal)
    /// Nothing runs and nothing is said (a sender being ignored for flooding, a busy host told
    /// already, a channel line that names no command).
    case ignore
}

/// Why a command does not run, and the one sentence that tells the sender.
public struct Refusal: Sendable, Equatable {
    public enum Reason: String, Sendable, Hashable {
        /// The sender sends commands too fast, and is ignored for a while from now.
        case flooding
        /// Too many commands come from the sender's address.
        case busyHost
        /// No command has the word the line names.
        case unknownCommand
        /// A private line that names no command: a pointer to `!help`.
        case chatLine
        /// An owner command from someone else.
        case ownersOnly
        /// A command that takes a password, said in a channel.
        case secretInChannel
        /// A command said where it does not work (private messages only, channels only).
        case wrongPlace
        /// The command's plugin is turned off in that channel.
        case turnedOff
        /// The command ran too recently (its ``RateLimit``).
        case tooSoon
        /// A command for logged-in users, from someone who is not.
        case notLoggedIn
    }

    /// How the sentence reaches the sender.
    public enum Delivery: Sendable, Equatable {
        /// Where the line was said (in a channel, addressed to the sender), as this kind of message.
        case reply(OutgoingText.Kind)
        /// A notice to the sender's nick.
        case noticeToSender
        /// Said in this channel as it is (the sentence names the sender).
        case channel(String)
    }

    public var reason: Reason
    public var sentence: String
    public var delivery: Delivery

    public init(_ reason: Reason, _ sentence: String, _ delivery: Delivery = .reply(.privmsg)) {
        self.reason = reason
        self.sentence = sentence
        self.delivery = delivery
    }
}

extension CommandRouter {
    /// What an admission reads besides the line and the router's settings.
    struct AdmissionFacts: Sendable {
        /// The bot's nick now (for "/msg BotNick …" hints).
        var botNick: String
        var caseMapping: CaseMapping
        /// Whether the sender is one of the bot's owners (never held back by the limits).
        var senderIsOwner: Bool
        /// The router's clock now.
        var now: Duration
        /// The sender's language (their choice, else the channel's or the default).
        var phrases: Phrasebook
    }

    /// Whether the command `parsed` names (`entry`, nil when none) runs for `line`: the flood rule and
    /// the host budget (every line addressed to the bot counts against them, an unknown command's
    /// too; owners are never held back, a busy owner must still be able to `!quit`), then the
    /// command's declarations (owners only, secret arguments, where it works), the plugins turned off
    /// in the channel, and the command's rate limit, in that order. Sends nothing: the only state it
    /// changes is what the limits in `settings` remember of this attempt.
    static func admit(
        _ parsed: CommandLineParser.Parsed, entry: CommandCatalog.Entry?, line: IRCUserMessage,
        facts: AdmissionFacts, settings: inout Settings
    ) -> Admission {
        let sender = line.sender
        let mapping = facts.caseMapping
        let phrases = facts.phrases
        if !facts.senderIsOwner {
            switch settings.userLimits?.floodGuard.register(limitKey(for: sender, caseMapping: mapping), at: facts.now)
            {
            case .allow?, nil: break
            case .ignore?: return .ignore
            case .startIgnoring(let duration)?:
                return .refuse(
                    Refusal(
                        .flooding,
                        phrases("router.flooding", ["duration": describe(duration, in: phrases)]),
                        .noticeToSender))
            }
            // However many connections and user names one address uses, they share one budget.
            switch settings.userLimits?.hostBudget.register(placeKey(for: sender, caseMapping: mapping), at: facts.now)
            {
            case .allow?, nil: break
            case .refuse(let retryAfter, let tell)?:
                guard tell else { return .ignore }
                return .refuse(
                    Refusal(
                        .busyHost, phrases("router.busyHost", ["duration": describe(retryAfter, in: phrases)]),
                        .noticeToSender))
            }
        }
        let prefix = settings.prefix
        guard let entry else { return unknown(parsed, prefix: prefix, phrases: phrases) }
        let command = entry.command
        let name = prefix + command.name
        if command.requiresOwner && !facts.senderIsOwner {
            return .refuse(Refusal(.ownersOnly, phrases("router.ownersOnly", ["command": name])))
        }
        let hint = "/msg \(facts.botNick) \(name)"
        if command.hasSecretArguments, case .channel(let channel) = line.origin {
            return .refuse(
                Refusal(
                    .secretInChannel,
                    phrases("router.secretInChannel", ["nick": sender.nick, "hint": hint]),
                    .channel(channel)))
        }
        guard command.allowed.allows(line.origin) else {
            let text =
                command.allowed == .privateMessage
                ? phrases(
                    "router.privateOnly", ["command": name, "hint": hint + (command.takesArguments ? " …" : "")])
                : phrases("router.channelOnly", ["command": name])
            return .refuse(Refusal(.wrongPlace, text))
        }
        if case .channel(let channel) = line.origin,
            settings.disabledPlugins.contains(where: {
                mapping.equals($0.key, channel) && $0.value.contains(entry.pluginName)
            })
        {
            return .refuse(
                Refusal(.turnedOff, phrases("router.turnedOff", ["command": name, "channel": channel, "hint": hint])))
        }
        if let limit = command.rateLimit,
            let wait = waitBeforeRunning(command.name, limit, line: line, facts: facts, limits: &settings.userLimits)
        {
            return .refuse(
                Refusal(
                    .tooSoon, phrases("router.tooSoon", ["duration": describe(wait, in: phrases), "command": name])))
        }
        return .run(entry)
    }

    /// The answer to a line that names no command: a NOTICE, which by convention is never
    /// answered automatically, so another program's automatic reply cannot start a loop with it.
    /// Nothing for a channel line that does not name the bot.
    private static func unknown(_ parsed: CommandLineParser.Parsed, prefix: String, phrases: Phrasebook) -> Admission {
        guard parsed.addressed else { return .ignore }
        if parsed.bare {
            // A private chat line that is not a command: a gentle pointer, not an error.
            return .refuse(
                Refusal(.chatLine, phrases("router.chatLine", ["help": prefix + "help"]), .reply(.notice)))
        }
        let word = TextSanitizer.untrusted(parsed.word, maxBytes: 32)
        return .refuse(
            Refusal(
                .unknownCommand, phrases("router.unknownCommand", ["word": word, "help": prefix + "help"]),
                .reply(.notice)))
    }

    /// How long the sender must wait before `command` may run again, or nil when it may run now
    /// (and that run is recorded); nil for everyone without limits.
    private static func waitBeforeRunning(
        _ command: String, _ limit: RateLimit, line: IRCUserMessage, facts: AdmissionFacts,
        limits: inout UserLimits?
    ) -> Duration? {
        let key: String
        let interval: Duration
        let user = limitKey(for: line.sender, caseMapping: facts.caseMapping)
        switch limit {
        case .perUser(let every):
            (key, interval) = ("u|\(command)|\(user)", every)
        case .perVenue(let every):
            let venue = line.origin.channelName.map { facts.caseMapping.lowercased($0) } ?? "pm:" + user
            (key, interval) = ("v|\(command)|\(venue)", every)
        }
        return limits?.cooldowns.check(key, every: interval, at: facts.now)
    }

    /// Whose limits a command counts against: the services account when known, else user@host
    /// (a nick change does not escape a limit, and students behind one school NAT or web gateway,
    /// who differ in their user names, do not share one), else the nick.
    static func limitKey(for sender: UserIdentity, caseMapping: CaseMapping) -> String {
        sender.key(by: .userAtHost, caseMapping: caseMapping)
    }

    /// Where a sender connects from, for the host budget and the send queue's turns: the services
    /// account when known, else the host (an IPv6 address by its /64), else the nick.
    static func placeKey(for sender: UserIdentity, caseMapping: CaseMapping) -> String {
        sender.key(by: .network, caseMapping: caseMapping)
    }
}
