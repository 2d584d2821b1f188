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

/// The outcome of ``Invocation/bindSession(_:check:)``.
public enum SessionBinding<Login: ExpiringLogin>: Sendable {
    /// Bound; `caveat`, when set, is a sentence the student must read (how long the login can last).
    case bound(BoundSession<Login>, caveat: String?)
    /// Not bound, for the reason given in words.
    case refused(String)
}

extension Invocation {
    /// Asks the network about the sender's connection (WHOIS), for ``bindSession(_:check:)``.
    /// Ask it as soon as a login begins: the answer must describe the connection that sent the command.
    /// Someone in a channel with the bot is watched there and costs no WHOIS (a line under the flood
    /// gate that a busy server may answer late); their session then lasts while the bot sees them.
    public func checkConnection() async -> ConnectionCheck {
        guard case .connection = SessionOwner(sender) else { return ConnectionCheck(mark: nil, lookup: .notAsked) }
        let mark = await registry.sightMark(of: sender.nick)
        if let seen = await transport.identity(ofNick: sender.nick),
            await transport.sharesChannel(withNick: sender.nick)
        {
            return ConnectionCheck(
                mark: mark, lookup: .found(user: seen.user, host: seen.host, account: seen.account, signedOnAt: nil))
        }
        return ConnectionCheck(mark: mark, lookup: await transport.lookUpConnection(ofNick: sender.nick))
    }

    /// Binds a session with `login` to the sender: to their services account when they have one, else
    /// to their connection as `check` found it, watched from now on (see ``SessionBook``). Refused when
    /// the connection is gone, or when the network gives the bot no way to see it end.
    public func bindSession<Login: ExpiringLogin>(
        _ login: Login, check: ConnectionCheck
    ) async -> SessionBinding<Login> {
        let sessions = self.sessions(storing: Login.self)
        guard let mark = check.mark else {
            return .bound(await sessions.bind(login, to: sender), caveat: nil)
        }
        switch check.lookup {
        case .notAsked:
            return .bound(await sessions.bind(login, to: sender), caveat: nil)
        case .nobody:
            return .refused("You seem to have disconnected while logging in; please log in again.")
        case .found(let user, let host, _, let signedOnAt):
            guard UserIdentity.sameUserName(user, sender.user), host?.lowercased() == sender.host?.lowercased() else {
                return .refused("Your connection changed while logging in; please log in again.")
            }
            var bound = await sessions.bind(
                login, to: sender, signedOnAt: signedOnAt, watch: .none, ifUnchangedSince: mark)
            let keeper = SessionKeeper(sessions: sessions, transport: transport)
            bound.watch = await keeper.watch(sender, since: mark)
            if signedOnAt != nil || bound.watch == .server { return .bound(bound, caveat: nil) }
            if bound.watch == .channel {
                return .bound(
                    bound,
                    caveat:
                        "I cannot see when you disconnect, so your login lasts only while you stay in a channel with me."
                )
            }
            await sessions.unbind(sender)
            return .refused(
                "I cannot see when you disconnect, so I can only keep you logged in while you are in a channel with me: join one, then log in again."
            )
        }
    }

    /// Asks the server when the connection of the sender's new connection-bound session signed on,
    /// when the login did not (someone in a channel with the bot costs no WHOIS at login): a session
    /// kept across a restart is only taken back by the connection that has that sign-on time. Nothing
    /// is recorded when the connection described is not the sender's (another user@host), or when
    /// the bot lost sight of the sender since `check` was made. Nor is anything asked while replies
    /// wait in the send queue: on a server's flood allowance a WHOIS per login would hold back every
    /// answer (a class logging in at once), so a session made then is not kept across a restart.
    public func learnSignOnTime<Login: ExpiringLogin>(storing type: Login.Type, check: ConnectionCheck) async {
        guard let mark = check.mark, case .found(_, _, _, nil) = check.lookup else { return }
        guard await transport.hasNothingQueued() else { return }
        guard
            case .found(let user, let host, _, let signedOnAt?) = await transport.lookUpConnection(ofNick: sender.nick),
            UserIdentity.sameUserName(user, sender.user), host?.lowercased() == sender.host?.lowercased()
        else { return }
        await sessions(storing: type).setSignedOn(signedOnAt, for: sender, ifUnchangedSince: mark)
    }

    /// Ends the sender's session (`!logout`); returns it so the caller can log out of the backend.
    public func endSession<Login: ExpiringLogin>(
        storing type: Login.Type
    ) async -> BoundSession<Login>? {
        guard let bound = await sessions(storing: type).unbind(sender) else { return nil }
        if case .connection = bound.owner { await transport.unwatchPresence(ofNick: bound.nick) }
        return bound
    }
}
