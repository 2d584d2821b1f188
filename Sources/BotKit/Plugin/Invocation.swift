import IRCProtocol
import Localization
import NIOConcurrencyHelpers

/// One run of a command: who asked, where, with what argument, and how to answer.
///
/// Replies in a channel are addressed to the sender ("alice: …") and capped at
/// ``channelLineCap`` lines per invocation; the rest is dropped with a hint to ask privately.
public struct Invocation: Sendable {
    public let sender: UserIdentity
    public let origin: Origin
    /// The command's declared name (not the alias that was typed).
    public let commandName: String
    /// Everything after the command word, trimmed.
    public let argument: String
    /// The configured command prefix ("!").
    public let prefix: String
    /// The bot's nick when the line arrived.
    public let botNick: String
    /// The server's CASEMAPPING when the line arrived (for keys made of nicks, see
    /// ``UserIdentity/key(by:caseMapping:)``).
    public let caseMapping: CaseMapping
    /// Lines a command may put into a channel.
    public let channelLineCap: Int
    /// The id the server gave the line that asked (its `msgid`), when it gave one: channel answers
    /// are marked as replies to it (see ``OutgoingText/inReplyTo``).
    public let questionID: String?

    /// Every command the router knows (for `!help`).
    public let catalog: CommandCatalog
    /// What the bot says to the sender, in their language: the one they chose with `!lang`, else
    /// the channel's, else the default.
    public let phrases: Phrasebook
    /// The language of each channel (for lines to a whole channel, ``phrases(forChannel:)``).
    public let languages: ChannelLanguages
    /// The services account the server vouches for as the sender's (see ``AccountTracking``); nil
    /// when none, even if `sender.account` names one the bot cannot believe.
    public internal(set) var vouchedAccount: String?

    /// The router's number for this run of a command: what the ``SessionGate`` admitted the sender
    /// with is filed under it (see ``LoginGate/session(of:)``).
    public let commandID: Int

    let transport: any BotTransport
    let budget: ReplyBudget

    init(
        sender: UserIdentity, origin: Origin, commandName: String, argument: String, prefix: String,
        botNick: String, caseMapping: CaseMapping, commandID: Int,
        channelLineCap: Int, transport: any BotTransport, catalog: CommandCatalog, questionID: String? = nil,
        phrases: Phrasebook, languages: ChannelLanguages
    ) {
        self.questionID = questionID
        self.phrases = phrases
        self.languages = languages
        self.sender = sender
        self.origin = origin
        self.commandName = commandName
        self.argument = argument
        self.prefix = prefix
        self.botNick = botNick
        self.caseMapping = caseMapping
        self.commandID = commandID
        self.channelLineCap = channelLineCap
        self.transport = transport
        self.catalog = catalog
        self.budget = ReplyBudget()
    }

    /// The sender's language.
    public var language: Language { phrases.language }

    /// What the bot says to a whole channel, in the channel's language.
    public func phrases(forChannel channel: String) -> Phrasebook {
        phrases.catalogs.phrasebook(languages.language(of: channel, caseMapping: caseMapping))
    }

    /// True when the command was sent in a private message.
    public var isPrivate: Bool { origin == .privateMessage }

    /// The argument split on whitespace.
    public var words: [String] { argument.split(whereSeparator: \.isWhitespace).map(String.init) }

    /// Answers where the command was said: in the channel (addressed by nick, and marked as a reply
    /// to the asker's line where the server passes client tags) or privately.
    public func reply(_ text: String) async {
        await reply(lines: [text])
    }

    /// Answers with several lines; in a channel at most ``channelLineCap`` lines are sent in all
    /// (across every reply of this invocation), then one line says where to find the rest.
    public func reply(lines: [String]) async {
        switch origin {
        case .privateMessage:
            await transport.send(lines: lines.map { toSender(.privmsg, $0) })
        case .channel(let channel):
            let allowed = budget.take(lines.count, cap: channelLineCap)
            var outgoing = lines.prefix(allowed).map {
                OutgoingText(
                    .privmsg, to: channel, text: "\(sender.nick): \($0)", fairnessKey: sender.nick,
                    fairnessGroup: fairnessGroup, inReplyTo: questionID)
            }
            let dropped = lines.count - allowed
            if dropped > 0, budget.takeOverflowNotice() {
                let ask = "/msg \(botNick) \(prefix)\(commandName)\(argument.isEmpty ? "" : " …")"
                let hint = "\(sender.nick): " + phrases("reply.moreLines", ["count": dropped, "hint": ask])
                outgoing.append(
                    OutgoingText(
                        .privmsg, to: channel, text: hint, fairnessKey: sender.nick, fairnessGroup: fairnessGroup,
                        inReplyTo: questionID))
            }
            await transport.send(lines: outgoing)
        }
    }

    /// Answers in a private message, wherever the command was said.
    public func replyPrivately(_ text: String) async {
        await replyPrivately(lines: [text])
    }

    /// Several private lines.
    public func replyPrivately(lines: [String]) async {
        await transport.send(lines: lines.map { toSender(.privmsg, $0) })
    }

    /// A NOTICE to the sender.
    public func notice(_ text: String) async {
        await transport.send(toSender(.notice, text))
    }

    /// Where the sender connects from, for a send queue that shares its turns per host first: their
    /// host (an IPv6 address by its /64) or services account, never their nick or user name, so that
    /// many connections from one address take one turn together.
    var fairnessGroup: String { sender.key(by: .network, caseMapping: caseMapping) }

    /// A text to the sender; when the command was said in a channel, marked as answering it there
    /// (``OutgoingText/channelContext``).
    private func toSender(_ kind: OutgoingText.Kind, _ text: String) -> OutgoingText {
        OutgoingText(kind, to: sender.nick, text: text, fairnessGroup: fairnessGroup, channelContext: channel)
    }

    /// The channel the command was said in, or nil for a private one.
    public var channel: String? {
        if case .channel(let channel) = origin { return channel }
        return nil
    }

    /// What the network says about a nick now (user, host, services account), when known.
    public func identity(ofNick nick: String) async -> UserIdentity? {
        await transport.identity(ofNick: nick)
    }

    /// Waits until every line sent so far has left for the network; false when it may not have.
    public func waitUntilSent() async -> Bool {
        await transport.waitUntilSent()
    }

    /// Whether anyone may join `channel` (see ``BotTransport/isOpenChannel(_:)``).
    public func isOpenChannel(_ channel: String) async -> Bool {
        await transport.isOpenChannel(channel)
    }

    /// Says something in a channel, not addressed to anyone (announcements).
    public func say(_ text: String, in channel: String) async {
        await transport.send(OutgoingText(.privmsg, to: channel, text: text))
    }
}

/// Counts the channel lines of one invocation.
final class ReplyBudget: Sendable {
    private let state = NIOLockedValueBox<(used: Int, noticed: Bool)>((0, false))

    /// Takes up to `wanted` lines under `cap`; returns how many may be sent.
    func take(_ wanted: Int, cap: Int) -> Int {
        state.withLockedValue { s in
            let granted = max(0, min(wanted, cap - s.used))
            s.used += granted
            return granted
        }
    }

    /// True the first time only.
    func takeOverflowNotice() -> Bool {
        state.withLockedValue { s in
            defer { s.noticed = true }
            return !s.noticed
        }
    }
}
