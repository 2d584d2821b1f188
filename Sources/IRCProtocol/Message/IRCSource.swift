/// A message source split into `nick!user@host`; a server name is held in ``nick``.
public struct IRCSource: Sendable, Hashable {
    /// The nick, or the whole source when it has neither `!` nor `@` (a server name).
    public var nick: String
    /// The user (ident) part after `!`, if present (may start with `~`).
    public var user: String?
    /// The host part after `@`, if present.
    public var host: String?

    public init(nick: String, user: String? = nil, host: String? = nil) {
        self.nick = nick
        self.user = user
        self.host = host
    }

    /// Splits `nick[!user][@host]`. The host starts at the first `@` after the `!` (or in the
    /// whole source without `!`); never fails.
    public init(parsing source: some StringProtocol) {
        let utf8 = source.utf8
        let bang = utf8.firstIndex(of: 0x21)
        let atSearchStart = bang ?? utf8.startIndex
        let at = utf8[atSearchStart...].firstIndex(of: 0x40)
        let nickEnd = bang ?? at ?? utf8.endIndex
        nick = String(decoding: utf8[utf8.startIndex..<nickEnd], as: UTF8.self)
        if let bang {
            let userStart = utf8.index(after: bang)
            user = String(decoding: utf8[userStart..<(at ?? utf8.endIndex)], as: UTF8.self)
        } else {
            user = nil
        }
        if let at {
            host = String(decoding: utf8[utf8.index(after: at)...], as: UTF8.self)
        } else {
            host = nil
        }
    }

    /// `nick!user@host`, omitting the missing parts.
    public var formatted: String {
        var result = nick
        if let user { result += "!" + user }
        if let host { result += "@" + host }
        return result
    }

    /// Whether this is probably a server rather than a user: no user/host and a `.` in the name.
    public var looksLikeServer: Bool {
        user == nil && host == nil && nick.utf8.contains(0x2E)
    }
}

extension IRCSource: CustomStringConvertible {
    public var description: String { formatted }
}
