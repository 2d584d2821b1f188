import IRCProtocol

/// A plugin that logs in, without a command, a user the server vouches for as logged in to a
/// services account (see ``AccountTracking``), and ends such a login when the server no longer
/// vouches for it: the ``LoginGate`` whose sessions store its `Login` asks it before each command.
public protocol ServicesAccountSignIn<Login>: Plugin {
    associatedtype Login: ExpiringLogin
    /// The session the command of `sender` runs with: `found` (nil when the sender has none), unless
    /// the plugin ends it, or a session it binds in `book` when `vouchedAccount` (the services
    /// account the server vouches for as the sender's, nil when none) gives a login. Services
    /// account names compare under `caseMapping`.
    func session(
        for sender: UserIdentity, vouchedAccount: String?, found: BoundSession<Login>?, caseMapping: CaseMapping,
        book: SessionBook<Login>, context: PluginContext
    ) async -> BoundSession<Login>?
}

/// How the server tells the bot which services account a user is logged in to: what decides
/// whether the bot may believe the account a message comes with.
public enum AccountTracking: Sendable, Hashable {
    /// The server tags each message with its sender's account (`account-tag`): a message without
    /// the tag comes from someone logged in to none.
    case tagged
    /// The server reports logins and logouts of the users in the bot's channels (`account-notify`
    /// with `extended-join`): the account the bot tracks for someone in a shared channel is current.
    case notified
    /// The server says nothing the bot can keep current: no account is believed.
    case none

    /// The services account the server vouches for as the sender's of `line`, or nil. With
    /// ``notified``, only for a sender who shares a channel with the bot (`sharesChannel`).
    public func vouchedAccount(of line: IRCUserMessage, sharesChannel: Bool) -> String? {
        switch self {
        case .tagged:
            return UserIdentity(nick: line.sender.nick, account: line.message.tags["account"]).loggedInAccount
        case .notified:
            return sharesChannel ? line.sender.loggedInAccount : nil
        case .none:
            return nil
        }
    }
}
