/// A change in who uses which nick, as the client sees it: what a layer that binds anything to an IRC
/// identity (a login session) has to follow.
public enum IdentityEvent: Sendable, Hashable {
    /// A user the client shares a channel with changed nick.
    case nickChanged(from: String, to: String, user: String?, host: String?)
    /// A user the client shares a channel with left the network.
    case quit(nick: String, user: String?, host: String?)
    /// The server says `nick` logged in to `account` (nil: logged out of services).
    case accountChanged(nick: String, account: String?)
    /// The server changed the user name or host of the connection that uses `nick` (CHGHOST): a user
    /// the client shares a channel with, or one it watches with MONITOR under `extended-monitor`.
    case hostChanged(nick: String, user: String, host: String)
    /// The client no longer shares a channel with `nick` (they left, were kicked, or the client left):
    /// their QUIT or NICK would go unseen from now on.
    case lostSight(nick: String)
    /// A watched nick (MONITOR or WATCH) is used by nobody now: its user quit or changed nick.
    case offline(nick: String)
}
