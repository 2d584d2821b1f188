/// Who sent a line, as far as the IRC server lets the bot know.
public struct Sender: Sendable, Hashable {
    public var nick: String
    public var user: String?
    public var host: String?
    /// The services account (from account-tag, extended-join or account-notify), when known.
    public var account: String?

    public init(nick: String, user: String? = nil, host: String? = nil, account: String? = nil) {
        self.nick = nick
        self.user = user
        self.host = host
        self.account = account
    }

    /// `nick!user@host` for logs.
    public var mask: String { "\(nick)!\(user ?? "*")@\(host ?? "*")" }
}

/// Where a line was said.
public enum Origin: Sendable, Hashable {
    /// In a channel.
    case channel(String)
    /// In a private message to the bot.
    case privateMessage

    public var channelName: String? {
        if case .channel(let name) = self { return name }
        return nil
    }
}

/// A PRIVMSG as the router sees it.
public struct IncomingLine: Sendable, Hashable {
    public var sender: Sender
    public var origin: Origin
    public var text: String

    public init(sender: Sender, origin: Origin, text: String) {
        self.sender = sender
        self.origin = origin
        self.text = text
    }
}
