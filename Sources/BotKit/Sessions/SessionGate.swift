import IRCProtocol
import NIOConcurrencyHelpers

/// Who may act as a logged-in user. The router asks it before each command whether the sender may
/// act (``admit(_:sender:vouchedAccount:caseMapping:plugins:transport:context:)``), and the host
/// tells its ``registry`` what the network says of who uses which nick and when sight is lost.
public protocol SessionGate: Sendable {
    /// The sessions behind the gate, as the host keeps them in step with the network.
    var registry: any SessionRegistry { get }
    /// Whether `sender` holds a session that may act now, for the command the router numbered `id`:
    /// a connection-bound session whose connection the bot lost sight of is checked first, and the
    /// services-account sign-ins among `plugins` may log the sender in or out. What was admitted
    /// stays filed under `id` until ``release(_:)``.
    func admit(
        _ id: Int, sender: UserIdentity, vouchedAccount: String?, caseMapping: CaseMapping, plugins: [any Plugin],
        transport: any BotTransport, context: PluginContext
    ) async -> Bool
    /// The command `id` finished: forget what it was admitted with.
    func release(_ id: Int)
}

/// The gate of a ``SessionBook`` of `Login`s: the host that makes the router with it hands the same
/// gate to its plugins, which read the session a command runs with through ``session(of:)``, typed.
public final class LoginGate<Login: ExpiringLogin>: SessionGate {
    /// Who is logged in.
    public let book: SessionBook<Login>
    /// The session each running command was admitted with, by command number.
    private let admitted = NIOLockedValueBox<[Int: BoundSession<Login>]>([:])

    /// Run before a sender who holds a session is admitted: brings the book up to date with what
    /// changed elsewhere (an account erased or unlinked by another process).
    private let catchUp: (@Sendable () async -> Void)?

    public init(book: SessionBook<Login> = SessionBook(), catchUp: (@Sendable () async -> Void)? = nil) {
        self.book = book
        self.catchUp = catchUp
    }

    public var registry: any SessionRegistry { book }

    public func admit(
        _ id: Int, sender: UserIdentity, vouchedAccount: String?, caseMapping: CaseMapping, plugins: [any Plugin],
        transport: any BotTransport, context: PluginContext
    ) async -> Bool {
        if let catchUp {
            let holdsSession = await book.session(for: sender) != nil
            if holdsSession {
                await catchUp()
            } else if await book.hasUnwatchedSession(for: sender) {
                await catchUp()
            }
        }
        var session = await SessionKeeper(sessions: book, transport: transport).session(for: sender)
        for case let signIn as any ServicesAccountSignIn<Login> in plugins {
            session = await signIn.session(
                for: sender, vouchedAccount: vouchedAccount, found: session, caseMapping: caseMapping, book: book,
                context: context)
        }
        guard let session else { return false }
        admitted.withLockedValue { $0[id] = session }
        return true
    }

    public func release(_ id: Int) {
        _ = admitted.withLockedValue { $0.removeValue(forKey: id) }
    }

    /// The session the sender of `call` was admitted with (as it was when the command began), or
    /// nil when they had none.
    public func session(of call: Invocation) -> BoundSession<Login>? {
        admitted.withLockedValue { $0[call.commandID] }
    }
}

extension LoginGate {
    /// Asks the network about the sender's connection (WHOIS), for ``bindSession(_:for:check:)``.
    /// Ask it as soon as a login begins: the answer must describe the connection that sent the command.
    /// Someone in a channel with the bot is watched there and costs no WHOIS (a line under the flood
    /// gate that a busy server may answer late); their session then lasts while the bot sees them.
    public func checkConnection(of call: Invocation) async -> ConnectionCheck {
        let (sender, transport) = (call.sender, call.transport)
        guard case .connection = SessionOwner(sender) else { return ConnectionCheck(mark: nil, lookup: .notAsked) }
        let mark = await book.sightMark(of: sender.nick)
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
    public func bindSession(_ login: Login, for call: Invocation, check: ConnectionCheck) async -> SessionBinding<Login>
    {
        let (sender, transport, sessions) = (call.sender, call.transport, book)
        guard let mark = check.mark else {
            return .bound(await sessions.bind(login, to: sender), caveat: nil)
        }
        switch check.lookup {
        case .notAsked:
            return .bound(await sessions.bind(login, to: sender), caveat: nil)
        case .nobody:
            return .refused(call.phrases("login.disconnectedMeanwhile"))
        case .found(let user, let host, _, let signedOnAt):
            guard UserIdentity.sameUserName(user, sender.user), host?.lowercased() == sender.host?.lowercased() else {
                return .refused(call.phrases("login.connectionChanged"))
            }
            var bound = await sessions.bind(
                login, to: sender, signedOnAt: signedOnAt, watch: .none, ifUnchangedSince: mark)
            let keeper = SessionKeeper(sessions: sessions, transport: transport)
            bound.watch = await keeper.watch(sender, since: mark)
            if signedOnAt != nil || bound.watch == .server { return .bound(bound, caveat: nil) }
            if bound.watch == .channel {
                return .bound(bound, caveat: call.phrases("login.keptWhileInChannel"))
            }
            await sessions.unbind(sender)
            return .refused(call.phrases("login.needsSharedChannel"))
        }
    }

    /// Asks the server when the connection of the sender's new connection-bound session signed on,
    /// when the login did not (someone in a channel with the bot costs no WHOIS at login): a session
    /// kept across a restart is only taken back by the connection that has that sign-on time. Nothing
    /// is recorded when the connection described is not the sender's (another user@host), or when
    /// the bot lost sight of the sender since `check` was made. Nor is anything asked while replies
    /// wait in the send queue: on a server's flood allowance a WHOIS per login would hold back every
    /// answer (a class logging in at once), so a session made then is not kept across a restart.
    public func learnSignOnTime(of call: Invocation, check: ConnectionCheck) async {
        let (sender, transport) = (call.sender, call.transport)
        guard let mark = check.mark, case .found(_, _, _, nil) = check.lookup else { return }
        guard await transport.hasNothingQueued() else { return }
        guard
            case .found(let user, let host, _, let signedOnAt?) = await transport.lookUpConnection(ofNick: sender.nick),
            UserIdentity.sameUserName(user, sender.user), host?.lowercased() == sender.host?.lowercased()
        else { return }
        await book.setSignedOn(signedOnAt, for: sender, ifUnchangedSince: mark)
    }

    /// Ends the sender's session (`!logout`); returns it so the caller can log out of the backend.
    public func endSession(of call: Invocation) async -> BoundSession<Login>? {
        guard let bound = await book.unbind(call.sender) else { return nil }
        if case .connection = bound.owner { await call.transport.unwatchPresence(ofNick: bound.nick) }
        return bound
    }
}
