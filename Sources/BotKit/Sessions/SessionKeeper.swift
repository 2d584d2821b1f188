import IRCProtocol

/// Keeps login sessions that are bound to an IRC connection with that connection: checks the
/// connection before an unwatched session acts again, and watches it after a login.
struct SessionKeeper<Login: ExpiringLogin>: Sendable {
    let sessions: SessionBook<Login>
    let transport: any BotTransport

    /// The sender's session, when they have one that may act now. An unwatched connection-bound
    /// session is checked first (WHOIS: same user@host and sign-on time) and ends when the nick is
    /// used by another connection now.
    func session(for sender: UserIdentity) async -> BoundSession<Login>? {
        if let live = await sessions.session(for: sender) { return live }
        guard await sessions.hasUnwatchedSession(for: sender) else { return nil }
        let mark = await sessions.sightMark(of: sender.nick)
        switch await transport.lookUpConnection(ofNick: sender.nick) {
        case .notAsked:
            return await sessions.trustUnwatchedSession(of: sender)
        case .nobody:
            return await sessions.reclaim(
                for: sender, signedOnAt: nil, user: nil, host: nil, watch: .none, ifUnchangedSince: mark)
        case .found(let user, let host, _, let signedOnAt):
            guard
                var bound = await sessions.reclaim(
                    for: sender, signedOnAt: signedOnAt, user: user, host: host, watch: .none,
                    ifUnchangedSince: mark)
            else { return nil }
            bound.watch = await watch(sender, since: mark)
            return bound
        }
    }

    /// Watches the sender's connection from now on: through a shared channel (it costs no line),
    /// else the server's MONITOR or WATCH, else not at all. Each state is recorded before it is set
    /// up, so a loss of sight reported meanwhile is never overwritten.
    func watch(_ sender: UserIdentity, since mark: SightMark) async -> SessionWatch {
        await sessions.setWatch(.channel, for: sender, ifUnchangedSince: mark)
        if await transport.sharesChannel(withNick: sender.nick) { return .channel }
        await sessions.setWatch(.server, for: sender, ifUnchangedSince: mark)
        if await transport.watchPresence(ofNick: sender.nick) { return .server }
        await sessions.setWatch(.none, for: sender, ifUnchangedSince: mark)
        return .none
    }
}

/// What the network said about the sender's connection as a login began (see
/// ``Invocation/checkConnection()``).
public struct ConnectionCheck: Sendable {
    let mark: SightMark?
    let lookup: ConnectionLookup
}

/// The outcome of ``LoginGate/bindSession(_:for:check:)``.
public enum SessionBinding<Login: ExpiringLogin>: Sendable {
    /// Bound; `caveat`, when set, is a sentence the student must read (how long the login can last).
    case bound(BoundSession<Login>, caveat: String?)
    /// Not bound, for the reason given in words.
    case refused(String)
}
