/// What the client knows about a user: nick, user name, host and services account.
public struct UserIdentity: Sendable, Hashable, CustomStringConvertible {
    public var nick: String
    /// User name (ident), when known.
    public var user: String?
    /// Host (possibly cloaked), when known.
    public var host: String?
    /// Services account the user is logged in to; `nil` when not logged in or unknown.
    public var account: String?

    public init(nick: String, user: String? = nil, host: String? = nil, account: String? = nil) {
        self.nick = nick
        self.user = user
        self.host = host
        self.account = account
    }

    /// `nick!user@host` with the parts that are known.
    public var hostmask: String {
        var text = nick
        if let user { text += "!" + user }
        if let host { text += "@" + host }
        return text
    }

    public var description: String {
        account.map { "\(hostmask) (account \($0))" } ?? hostmask
    }
}

/// One member of a channel with its membership prefixes (e.g. `@`).
public struct ChannelMember: Sendable, Hashable {
    public var nick: String
    /// Prefix symbols, highest first (`"@+"` with multi-prefix).
    public var prefixes: String

    public init(nick: String, prefixes: String = "") {
        self.nick = nick
        self.prefixes = prefixes
    }
}
