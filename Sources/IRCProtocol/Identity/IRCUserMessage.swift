/// A PRIVMSG or NOTICE sent by a user, with the sender's identity.
public struct IRCUserMessage: Sendable, Hashable {
    /// The sender: nick, user and host from the message source, account from the `account` tag or else
    /// from what the client tracks.
    public var sender: UserIdentity
    /// The target as sent: a channel, or the client's nick for a private message.
    public var target: String
    /// The message text (possibly a CTCP request, see ``CTCP``).
    public var text: String
    /// `true` when sent to the client directly rather than to a channel.
    public var isPrivate: Bool
    /// The whole message (tags such as `time` included).
    public var message: IRCMessage

    public init(sender: UserIdentity, target: String, text: String, isPrivate: Bool, message: IRCMessage) {
        self.sender = sender
        self.target = target
        self.text = text
        self.isPrivate = isPrivate
        self.message = message
    }

    /// A PRIVMSG said by `sender` at `origin`, for a host that has no wire message (a console, a test).
    /// A private message's target is `*`: such a host need not know the nick it is addressed to.
    public init(sender: UserIdentity, origin: Origin, text: String) {
        let target = origin.channelName ?? "*"
        self.init(
            sender: sender, target: target, text: text, isPrivate: origin == .privateMessage,
            message: IRCMessage(source: sender.mask, command: "PRIVMSG", parameters: [target, text]))
    }

    /// Where the message was said.
    public var origin: Origin { isPrivate ? .privateMessage : .channel(target) }

    /// The id the server gave the message (the `msgid` tag), when it gave one.
    public var messageID: String? {
        guard let id = message.tags["msgid"], !id.isEmpty else { return nil }
        return id
    }

    /// Where a reply goes: the sender's nick for a private message, else the channel.
    public var replyTarget: String { isPrivate ? sender.nick : target }
}

/// Where a user's message was said.
public enum Origin: Sendable, Hashable {
    /// In a channel.
    case channel(String)
    /// In a private message to the client.
    case privateMessage

    /// The channel, when it was said in one.
    public var channelName: String? {
        if case .channel(let name) = self { return name }
        return nil
    }
}
