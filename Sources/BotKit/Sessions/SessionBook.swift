import Foundation
import IRCProtocol

/// What a ``SessionBook`` stores for each logged-in user: their login with a backend, which ends at
/// ``expiresAt``. The host decides what that is (the bot's plugins store a class-directory session
/// and profile).
public protocol ExpiringLogin: Sendable {
    /// When the login ends; the book drops it then.
    var expiresAt: Date { get }
    /// Whether an account-bound session of this login ends when its owner quits (one the server's
    /// word alone made, with no password: it lasts no longer than the connection it was made for).
    var endsWithConnection: Bool { get }
}

/// A login session of one IRC user, and who it belongs to.
public struct BoundSession<Login: ExpiringLogin>: Sendable {
    /// The login itself.
    public var login: Login
    /// The identity the session is bound to.
    public var owner: SessionOwner
    /// The nick its owner was last seen using (follows NICK changes).
    public var nick: String
    /// When the owner's connection signed on (the server's WHOIS), for a connection-bound session:
    /// another connection that later uses the same nick and user@host has another sign-on time.
    public var signedOnAt: Int?
    /// How the bot would learn that the owner's connection ended.
    public var watch: SessionWatch

    public init(login: Login, owner: SessionOwner, nick: String, signedOnAt: Int? = nil, watch: SessionWatch = .channel)
    {
        self.login = login
        self.owner = owner
        self.nick = nick
        self.signedOnAt = signedOnAt
        self.watch = watch
    }
}

extension BoundSession: Equatable where Login: Equatable {}
extension BoundSession: Hashable where Login: Hashable {}

/// How the bot would see a connection-bound session's owner leave.
public enum SessionWatch: Sendable, Hashable {
    /// The server reports when the owner's nick goes offline (MONITOR or WATCH).
    case server
    /// The bot shares a channel with the owner and sees their QUIT or NICK there.
    case channel
    /// It would not: before the session acts again, the owner's connection is checked (see
    /// ``SessionBook/reclaim(for:signedOnAt:user:host:watch:ifUnchangedSince:)``).
    case none
}

/// Who a session belongs to: a services account when the server reported one at login,
/// otherwise the exact nick together with user@host.
public enum SessionOwner: Sendable, Hashable, Codable {
    case account(String)
    case connection(nick: String, user: String, host: String)

    /// The owner for a sender: their services account when known, else nick + user@host.
    public init(_ sender: UserIdentity) {
        if let account = sender.loggedInAccount {
            self = .account(account)
        } else {
            self = .connection(nick: sender.nick, user: sender.user ?? "", host: sender.host ?? "")
        }
    }

    /// The owner's key in a book that follows `caseMapping` (see ``UserIdentity/key(by:caseMapping:)``).
    func key(_ caseMapping: CaseMapping) -> String {
        switch self {
        case .account(let name):
            UserIdentity(nick: "", account: name).key(by: .connection, caseMapping: caseMapping)
        case .connection(let nick, let user, let host):
            UserIdentity(nick: nick, user: user, host: host).key(by: .connection, caseMapping: caseMapping)
        }
    }
}

/// Where the bot's sight of a nick stands: compare two marks to know whether it lost sight in between
/// (see ``SessionBook/sightMark(of:)``).
public struct SightMark: Sendable, Hashable {
    fileprivate var nick: Int
    fileprivate var everyone: Int
}

/// A session book whatever its logins are: what the router and the bot's host tell it and ask it.
public protocol SessionRegistry: Actor {
    /// Every live session (for logs and health).
    var count: Int { get }
    /// Follows the server's CASEMAPPING (sent in ISUPPORT after registration).
    func setCaseMapping(_ mapping: CaseMapping)
    /// Keeps sessions in step with a change in who uses which nick.
    func follow(_ change: IdentityEvent)
    /// The bot's own connection ended.
    func connectionLost()
    /// Where the bot's sight of `nick` stands.
    func sightMark(of nick: String) -> SightMark
}

/// The sessions of every logged-in IRC user. Sessions follow nick changes, end on QUIT when
/// they are not bound to a services account, and never pass to someone who later takes a nick.
///
/// A connection-bound session acts only while the bot watches its owner without a gap (the server's
/// MONITOR/WATCH, or a shared channel). When the bot loses sight of the owner (the nick went offline,
/// they left the last shared channel, the bot's own connection dropped) the session is kept but
/// unwatched: before it acts again, the connection using the nick must prove to be the owner's (same
/// user@host and sign-on time), else the session ends.
public actor SessionBook<Login: ExpiringLogin>: SessionRegistry {
    private var caseMapping: CaseMapping
    private var byAccount: [String: BoundSession<Login>] = [:]
    private var byConnection: [String: BoundSession<Login>] = [:]
    /// Counts every loss of sight: per folded nick, and for everyone at once (the bot's reconnects).
    private var sightLosses: [String: Int] = [:]
    private var everyoneSightLosses = 0
    private let clock: @Sendable () -> Date
    /// Told after each change worth keeping across a restart (see ``onChange(_:)``).
    private var changeHandler: (@Sendable () -> Void)?

    public init(caseMapping: CaseMapping = .rfc1459, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.caseMapping = caseMapping
        self.clock = clock
    }

    /// Follows the server's CASEMAPPING (sent in ISUPPORT after registration).
    public func setCaseMapping(_ mapping: CaseMapping) {
        guard mapping != caseMapping else { return }
        caseMapping = mapping
        byAccount = Dictionary(byAccount.values.map { (key(for: $0.owner), $0) }, uniquingKeysWith: { a, _ in a })
        byConnection = Dictionary(
            byConnection.values.map { (key(for: $0.owner), $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Binds a new session with `login` to the sender (replacing any earlier one of theirs).
    /// `signedOnAt` and `watch` describe the sender's connection (see ``BoundSession``); with
    /// `ifUnchangedSince`, a loss of sight of the sender after that ``sightMark(of:)`` leaves the
    /// session unwatched.
    @discardableResult
    public func bind(
        _ login: Login, to sender: UserIdentity, signedOnAt: Int? = nil, watch: SessionWatch = .channel,
        ifUnchangedSince mark: SightMark? = nil
    ) -> BoundSession<Login> {
        let owner = SessionOwner(sender)
        let unchanged = mark.map { $0 == sightMark(of: sender.nick) } ?? true
        let bound = BoundSession(
            login: login, owner: owner, nick: sender.nick, signedOnAt: signedOnAt, watch: unchanged ? watch : .none)
        switch owner {
        case .account: byAccount[key(for: owner)] = bound
        case .connection: byConnection[key(for: owner)] = bound
        }
        changed()
        return bound
    }

    /// The live session of the sender, if any (expired ones are dropped).
    public func session(for sender: UserIdentity) -> BoundSession<Login>? {
        var candidates: [(String, Bool)] = []
        if let account = sender.loggedInAccount { candidates.append((key(for: .account(account)), true)) }
        candidates.append((connectionKey(of: sender), false))
        for (k, isAccount) in candidates {
            guard let bound = isAccount ? byAccount[k] : byConnection[k] else { continue }
            if bound.login.expiresAt <= clock() {
                if isAccount { byAccount[k] = nil } else { byConnection[k] = nil }
                continue
            }
            if !isAccount && bound.watch == .none { continue }
            return bound
        }
        return nil
    }

    /// The current ``SightMark`` of `nick`.
    public func sightMark(of nick: String) -> SightMark {
        SightMark(nick: sightLosses[caseMapping.lowercased(nick)] ?? 0, everyone: everyoneSightLosses)
    }

    /// Whether an unwatched connection-bound session might be the sender's: one bound to the sender's
    /// nick and user@host, or (after a nick change the bot did not see) to their user@host alone.
    public func hasUnwatchedSession(for sender: UserIdentity) -> Bool {
        !unwatchedCandidates(for: sender).isEmpty
    }

    /// Takes back an unwatched session for the sender, whose connection the server has just described
    /// (`signedOnAt`, `user`, `host`; nil `signedOnAt` when nobody uses the nick or the server does not
    /// say): the session bound to the sender's nick, or to their user@host under another nick (its
    /// owner changed nick unseen), whose connection it is — same user@host and sign-on time. It moves
    /// to the sender's nick; `watch` is how the bot watches it from now on, unless it lost sight of the
    /// sender since `mark`. A session that does not match stays unwatched: it never acts for another
    /// connection, and its owner, wherever they are now, can still take it back. Returns the session,
    /// or nil.
    public func reclaim(
        for sender: UserIdentity, signedOnAt: Int?, user: String?, host: String?, watch: SessionWatch,
        ifUnchangedSince mark: SightMark
    ) -> BoundSession<Login>? {
        let candidates = unwatchedCandidates(for: sender)
        var reclaimed: BoundSession<Login>?
        for (k, bound) in candidates {
            guard case .connection(_, let ownerUser, let ownerHost) = bound.owner else { continue }
            let matches =
                signedOnAt != nil && bound.signedOnAt == signedOnAt && UserIdentity.sameUserName(user, ownerUser)
                && host?.lowercased() == ownerHost.lowercased()
            if matches, reclaimed == nil {
                var moved = bound
                byConnection[k] = nil
                moved.owner = .connection(nick: sender.nick, user: ownerUser, host: ownerHost)
                moved.nick = sender.nick
                moved.watch = mark == sightMark(of: sender.nick) ? watch : .none
                byConnection[key(for: moved.owner)] = moved
                reclaimed = moved
            }
        }
        if reclaimed != nil { changed() }
        return reclaimed
    }

    /// Takes back, unchecked, the unwatched session bound to the sender's nick and user@host, for a
    /// transport that cannot ask the server who uses a nick (a console, a test transport).
    public func trustUnwatchedSession(of sender: UserIdentity) -> BoundSession<Login>? {
        let k = key(for: SessionOwner(sender))
        guard var bound = byConnection[k], bound.watch == .none, bound.login.expiresAt > clock() else { return nil }
        bound.watch = .channel
        byConnection[k] = bound
        return bound
    }

    /// Sets how the bot watches the connection-bound session of `sender`, unless it lost sight of
    /// them since `mark`.
    public func setWatch(_ watch: SessionWatch, for sender: UserIdentity, ifUnchangedSince mark: SightMark) {
        let k = key(for: SessionOwner(sender))
        guard byConnection[k] != nil else { return }
        byConnection[k]?.watch = mark == sightMark(of: sender.nick) ? watch : .none
    }

    /// The bot no longer shares a channel with `nick`: a session watched through a channel is unwatched.
    public func lostSight(ofNick nick: String) {
        let folded = loseSight(of: nick)
        for (k, bound) in byConnection where bound.watch == .channel && caseMapping.lowercased(bound.nick) == folded {
            byConnection[k]?.watch = .none
        }
    }

    /// The server says nobody uses `nick` now (MONITOR/WATCH): its sessions are unwatched (the owner
    /// quit, or changed nick; a check tells which if they come back).
    public func wentOffline(nick: String) {
        let folded = loseSight(of: nick)
        for (k, bound) in byConnection where caseMapping.lowercased(bound.nick) == folded {
            byConnection[k]?.watch = .none
        }
    }

    /// The bot's own connection ended: it saw nothing while it was away, so every connection-bound
    /// session is unwatched.
    public func connectionLost() {
        everyoneSightLosses += 1
        for k in byConnection.keys { byConnection[k]?.watch = .none }
    }

    /// Keeps sessions in step with the network: nick changes move them, a QUIT or a services logout
    /// ends them, and losing sight of a user (they left the last shared channel, or the server says
    /// their nick went offline) leaves their session to be checked before it acts again. The bot's
    /// own reconnects end none (see ``connectionLost()``).
    public func follow(_ change: IdentityEvent) {
        switch change {
        case .nickChanged(let old, let new, _, _):
            nickChanged(from: old, to: new)
        case .quit(let nick, let user, let host):
            userQuit(nick: nick, user: user, host: host)
        case .accountChanged(let nick, let account):
            // A services logout (ACCOUNT *) or switch ends the account-bound session.
            accountChanged(nick: nick, to: account)
        case .hostChanged(let nick, let user, let host):
            hostChanged(nick: nick, user: user, host: host)
        case .lostSight(let nick):
            lostSight(ofNick: nick)
        case .offline(let nick):
            wentOffline(nick: nick)
        }
    }

    // MARK: - Across restarts

    /// Calls `handler` after each change worth keeping across a restart: a session bound, ended or
    /// taken back, a nick change or a sign-on time learnt (not a change in how a session is watched).
    public func onChange(_ handler: @escaping @Sendable () -> Void) {
        changeHandler = handler
    }

    private func changed() { changeHandler?() }

    /// Every live session, unwatched ones included (what a restart should keep).
    public func snapshot() -> [BoundSession<Login>] {
        let now = clock()
        return (Array(byAccount.values) + Array(byConnection.values)).filter { $0.login.expiresAt > now }
    }

    /// Takes back sessions kept from before a restart; returns how many were taken. The bot saw
    /// nothing while it was down, so a connection-bound session comes back unwatched and acts only
    /// once the connection using its nick proves to be its owner's (same user@host and sign-on time,
    /// see ``reclaim(for:signedOnAt:user:host:watch:ifUnchangedSince:)``); one without a recorded
    /// sign-on time could never prove it and is not taken. An account-bound session acts again when
    /// the server says a sender is logged in to that account. Expired sessions, and owners that
    /// already have a session here, are skipped.
    @discardableResult
    public func restore(_ sessions: [BoundSession<Login>]) -> Int {
        let now = clock()
        var taken = 0
        for var bound in sessions where bound.login.expiresAt > now {
            let k = key(for: bound.owner)
            switch bound.owner {
            case .account:
                guard byAccount[k] == nil else { continue }
                byAccount[k] = bound
            case .connection:
                guard bound.signedOnAt != nil, byConnection[k] == nil else { continue }
                bound.watch = .none
                byConnection[k] = bound
            }
            taken += 1
        }
        if taken > 0 { changed() }
        return taken
    }

    /// Records when the connection of the sender's connection-bound session signed on (learnt after
    /// the login, when the login itself did not ask the server), unless the bot lost sight of the
    /// sender since `mark`: then the connection described may not be the one that logged in.
    public func setSignedOn(_ signedOnAt: Int, for sender: UserIdentity, ifUnchangedSince mark: SightMark) {
        let k = key(for: SessionOwner(sender))
        guard mark == sightMark(of: sender.nick), var bound = byConnection[k], bound.signedOnAt == nil else { return }
        bound.signedOnAt = signedOnAt
        byConnection[k] = bound
        changed()
    }

    private func loseSight(of nick: String) -> String {
        let folded = caseMapping.lowercased(nick)
        sightLosses[folded, default: 0] += 1
        return folded
    }

    private func unwatchedCandidates(for sender: UserIdentity) -> [(String, BoundSession<Login>)] {
        let now = clock()
        let user = sender.user ?? ""
        let host = (sender.host ?? "").lowercased()
        let ownKey = key(for: SessionOwner(sender))
        var found: [(String, BoundSession<Login>)] = []
        for (k, bound) in byConnection where bound.watch == .none {
            guard bound.login.expiresAt > now else {
                byConnection[k] = nil
                continue
            }
            guard case .connection(_, let ownerUser, let ownerHost) = bound.owner else { continue }
            if k == ownKey || (ownerUser == user && ownerHost.lowercased() == host) { found.append((k, bound)) }
        }
        // The session of the sender's own nick first.
        return found.filter { $0.0 == ownKey } + found.filter { $0.0 != ownKey }
    }

    /// Ends the sender's session; returns it so the caller can log out of the backend.
    @discardableResult
    public func unbind(_ sender: UserIdentity) -> BoundSession<Login>? {
        // A connection-bound session is found watched or not: the router checked the sender's
        // connection before the command that ends it ran.
        guard let bound = session(for: sender) ?? byConnection[connectionKey(of: sender)] else { return nil }
        remove(bound)
        changed()
        return bound
    }

    /// Ends every session whose login `matches` (all of an account's, when it is erased), watched
    /// or not; returns the ended ones.
    @discardableResult
    public func unbindAll(where matches: (Login) -> Bool) -> [BoundSession<Login>] {
        let gone = (Array(byAccount.values) + Array(byConnection.values)).filter { matches($0.login) }
        for bound in gone { remove(bound) }
        if !gone.isEmpty { changed() }
        return gone
    }

    /// Ends every session bound to the services account `account` (compared under the book's
    /// casemapping) whose login `matches`, and returns the ended ones.
    @discardableResult
    public func unbindAll(boundTo account: String, where matches: (Login) -> Bool) -> [BoundSession<Login>] {
        let owner = key(for: .account(account))
        let gone = byAccount.filter { $0.key == owner && matches($0.value.login) }.map(\.value)
        for bound in gone { remove(bound) }
        if !gone.isEmpty { changed() }
        return gone
    }

    /// The casemapping the book compares nicks and accounts under.
    public var currentCaseMapping: CaseMapping { caseMapping }

    /// The nick `old` is now `new`: connection-bound sessions follow it, and every session
    /// remembers the new nick.
    public func nickChanged(from old: String, to new: String) {
        let oldFolded = loseSight(of: old)
        var renamed = false
        for (k, var bound) in byAccount where caseMapping.lowercased(bound.nick) == oldFolded {
            bound.nick = new
            byAccount[k] = bound
            renamed = true
        }
        let moved = byConnection.filter { _, bound in caseMapping.lowercased(bound.nick) == oldFolded }
        for (k, var bound) in moved {
            byConnection[k] = nil
            if case .connection(_, let user, let host) = bound.owner {
                bound.owner = .connection(nick: new, user: user, host: host)
            }
            bound.nick = new
            byConnection[key(for: bound.owner)] = bound
        }
        if renamed || !moved.isEmpty { changed() }
    }

    /// The user left the network: sessions not bound to an account end, and account-bound ones
    /// whose login ``ExpiringLogin/endsWithConnection``. Returns the ended ones.
    /// With `user` and `host` (from the QUIT's source), only a session of that very connection ends:
    /// someone else who held the nick while the bot was away cannot end its owner's session.
    @discardableResult
    public func userQuit(nick: String, user: String? = nil, host: String? = nil) -> [BoundSession<Login>] {
        let folded = loseSight(of: nick)
        let gone = byConnection.filter { _, bound in
            guard caseMapping.lowercased(bound.nick) == folded else { return false }
            guard let user, let host, case .connection(_, let ownerUser, let ownerHost) = bound.owner else {
                return true
            }
            return ownerUser == user && ownerHost.lowercased() == host.lowercased()
        }
        for k in gone.keys { byConnection[k] = nil }
        let goneWithConnection = byAccount.filter { _, bound in
            bound.login.endsWithConnection && caseMapping.lowercased(bound.nick) == folded
        }
        for k in goneWithConnection.keys { byAccount[k] = nil }
        if !gone.isEmpty || !goneWithConnection.isEmpty { changed() }
        return Array(gone.values) + Array(goneWithConnection.values)
    }

    /// The server says `nick` logged out of services (`ACCOUNT *`) or switched to another
    /// account: the account-bound sessions last used under that nick end, so a services logout is
    /// a logout here too. Connection-bound sessions are not affected. Returns the ended ones.
    @discardableResult
    public func accountChanged(nick: String, to account: String?) -> [BoundSession<Login>] {
        let folded = caseMapping.lowercased(nick)
        let newKey = UserIdentity(nick: nick, account: account).loggedInAccount.map { key(for: .account($0)) }
        let gone = byAccount.filter { k, bound in caseMapping.lowercased(bound.nick) == folded && k != newKey }
        for k in gone.keys { byAccount[k] = nil }
        if !gone.isEmpty { changed() }
        return Array(gone.values)
    }

    /// The server changed the user name or host of the connection that uses `nick` (CHGHOST): a
    /// watched connection-bound session of that nick is that connection's, so it follows it to its
    /// new user@host (its next command comes from there). An unwatched one does not: the nick may be
    /// someone else's by now, and its owner proves their connection as before. Returns whether a
    /// session followed.
    @discardableResult
    public func hostChanged(nick: String, user: String, host: String) -> Bool {
        let folded = caseMapping.lowercased(nick)
        let moved = byConnection.filter { _, bound in
            bound.watch != .none && caseMapping.lowercased(bound.nick) == folded
        }
        for (k, var bound) in moved {
            byConnection[k] = nil
            bound.owner = .connection(nick: bound.nick, user: user, host: host)
            byConnection[key(for: bound.owner)] = bound
        }
        if !moved.isEmpty { changed() }
        return !moved.isEmpty
    }

    /// Every live session (for logs and health).
    public var count: Int { byAccount.count + byConnection.count }

    /// The session of whoever uses `nick` now (for `!near nick`, `!where nick`), if any.
    /// A session bound to a services account counts only while `account` (what the server says
    /// of the nick's account now) still matches it.
    public func session(ofNick nick: String, account: String? = nil) -> BoundSession<Login>? {
        let folded = caseMapping.lowercased(nick)
        if let found = byConnection.values.first(where: {
            $0.watch != .none && caseMapping.lowercased($0.nick) == folded
        }) {
            return found
        }
        guard let account = UserIdentity(nick: nick, account: account).loggedInAccount else { return nil }
        return byAccount[key(for: .account(account))]
    }

    private func remove(_ bound: BoundSession<Login>) {
        switch bound.owner {
        case .account: byAccount[key(for: bound.owner)] = nil
        case .connection: byConnection[key(for: bound.owner)] = nil
        }
    }

    private func key(for owner: SessionOwner) -> String { owner.key(caseMapping) }

    /// The key of the sender's connection-bound session (whether or not they have an account).
    private func connectionKey(of sender: UserIdentity) -> String {
        key(for: .connection(nick: sender.nick, user: sender.user ?? "", host: sender.host ?? ""))
    }
}
