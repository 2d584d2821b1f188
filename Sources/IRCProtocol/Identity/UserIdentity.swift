/// Who a user is, as far as the IRC server lets a client know: nick, user name, host and services
/// account.
public struct UserIdentity: Sendable, Hashable, CustomStringConvertible {
    public var nick: String
    /// User name (ident), when known.
    public var user: String?
    /// Host (possibly cloaked), when known.
    public var host: String?
    /// Services account the user is logged in to (from account-tag, extended-join, account-notify or
    /// WHOIS); `nil` when not logged in or unknown.
    public var account: String?

    public init(nick: String, user: String? = nil, host: String? = nil, account: String? = nil) {
        self.nick = nick
        self.user = user
        self.host = host
        self.account = account
    }

    /// `nick!user@host`, with `*` for a part that is not known (for logs).
    public var mask: String { "\(nick)!\(user ?? "*")@\(host ?? "*")" }

    /// The services account, when the user is logged in to one (`*` and an empty name mean not).
    public var loggedInAccount: String? {
        guard let account, !account.isEmpty, account != "*" else { return nil }
        return account
    }

    /// Whether two user names are the same user, whether or not each shows the `~` of an ident the
    /// server could not verify (a WHOIS and a message prefix may differ in it).
    public static func sameUserName(_ a: String?, _ b: String?) -> Bool {
        func bare(_ name: String?) -> Substring? { name.map { $0.drop { $0 == "~" } } }
        return bare(a) != nil && bare(a) == bare(b)
    }

    public var description: String {
        account.map { "\(mask) (account \($0))" } ?? mask
    }
}
