import IRCProtocol

/// Where the router sends replies: the IRC client in production, a recorder in tests, the
/// terminal in console mode.
public protocol BotTransport: Sendable {
    func send(_ line: OutgoingText) async
    /// Sends several lines in order, in one go where the transport can (one write to the network).
    func send(lines: [OutgoingText]) async
    /// The bot's current nick (for "BotNick: command" and "/msg BotNick …" hints).
    func currentNick() async -> String
    /// What the network says about a nick now (user, host, services account), when known.
    func identity(ofNick nick: String) async -> UserIdentity?
    /// Waits until every line sent so far has left for the network (not just been queued); false
    /// when it may not have (the connection stopped first, or the wait was cancelled).
    func waitUntilSent() async -> Bool
    /// Whether no line waits in the send queue now (the server's flood allowance is unspent).
    func hasNothingQueued() async -> Bool
    /// Asks the network about the connection that uses `nick` now (WHOIS).
    func lookUpConnection(ofNick nick: String) async -> ConnectionLookup
    /// Asks the network to report when nobody uses `nick` any more (MONITOR, WATCH); false when it
    /// cannot. Reports arrive as the transport's owner feeds them to ``SessionRegistry/follow(_:)``.
    func watchPresence(ofNick nick: String) async -> Bool
    /// Stops ``watchPresence(ofNick:)``.
    func unwatchPresence(ofNick nick: String) async
    /// Whether the bot shares a channel with `nick` now (it then sees their QUIT and NICK).
    func sharesChannel(withNick nick: String) async -> Bool
    /// How the server tells the bot who is logged in to which services account now.
    func accountTracking() async -> AccountTracking
    /// Whether anyone on the network may join `channel` and read what the bot says there: true
    /// unless the server said the channel has a key (`+k`) or is invite-only (`+i`). A channel
    /// whose modes are not known (yet) counts as open, so that nothing is said there that an
    /// open channel must not hear.
    func isOpenChannel(_ channel: String) async -> Bool
}

/// What the network says about the connection that uses a nick now.
public enum ConnectionLookup: Sendable, Hashable {
    /// The transport cannot ask (a console, a test transport): sessions are taken as they are.
    case notAsked
    /// Nobody uses the nick, or the network did not answer.
    case nobody
    /// The connection's user@host, services account, and sign-on time when the network says.
    case found(user: String?, host: String?, account: String?, signedOnAt: Int?)
}
