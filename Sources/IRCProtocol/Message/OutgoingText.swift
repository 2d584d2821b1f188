/// A text a client sends: a PRIVMSG or NOTICE, which the connection sanitizes and splits into IRC
/// lines that fit.
public struct OutgoingText: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case privmsg, notice
    }

    public var kind: Kind
    public var target: String
    public var text: String
    /// The most IRC lines the text may become after splitting.
    public var maxLines: Int
    /// On whose behalf the lines go, for a send queue that shares its turns between askers (the nick
    /// whose command a channel reply answers); `nil` means the target.
    public var fairnessKey: String?
    /// Where the person the lines are for connects from (their host, an IPv6 address by its /64, or
    /// their services account: ``UserIdentity/key(by:caseMapping:)`` with `.network`), so that a
    /// queue shares its turns between places first and askers second; `nil` means a group of its own.
    public var fairnessGroup: String?
    /// The `msgid` of the message this text answers (a command said in a channel), so that a
    /// connection whose server passes client tags can mark its lines as replies to it (`+reply`);
    /// `nil` for texts that answer nothing, or several people at once.
    public var inReplyTo: String?
    /// The channel whose command a private text answers, so that a connection whose server passes
    /// client tags can mark it (`+channel-context`) and the reader's client shows it in that
    /// channel's window; `nil` for texts to a channel and answers to private commands.
    public var channelContext: String?

    public init(
        _ kind: Kind, to target: String, text: String, maxLines: Int = 10, fairnessKey: String? = nil,
        fairnessGroup: String? = nil, inReplyTo: String? = nil, channelContext: String? = nil
    ) {
        self.kind = kind
        self.target = target
        self.text = text
        self.maxLines = maxLines
        self.fairnessKey = fairnessKey
        self.fairnessGroup = fairnessGroup
        self.inReplyTo = inReplyTo
        self.channelContext = channelContext
    }
}
