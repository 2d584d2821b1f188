import Foundation
import IRCProtocol
import OnTheMapService

/// A login session of one IRC user with the backend, and who it belongs to.
public struct BoundSession: Sendable, Hashable {
    public var session: DirectorySession
    public var profile: StudentProfile
    /// The identity the session is bound to.
    public var owner: SessionOwner
    /// The nick its owner was last seen using (follows NICK changes).
    public var nick: String
    /// When the owner's connection signed on (the server's WHOIS), for a connection-bound session:
    /// another connection that later uses the same nick and user@host has another sign-on time.
    public var signedOnAt: Int?
    /// How the bot would learn that the owner's connection ended.
    public var watch: SessionWatch

    public init(
        session: DirectorySession, profile: StudentProfile, owner: SessionOwner, nick: String,
        signedOnAt: Int? = nil, watch: SessionWatch = .channel
    ) {
        self.session = session
        self.profile = profile
        self.owner = owner
        self.nick = nick
        self.signedOnAt = signedOnAt
        self.watch = watch
    }
}

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
public enum SessionOwner: Sendable, Hashable {
    case account(String)
    case connection(nick: String, user: String, host: String)

    /// The owner for a sender: their services account when known, else nick + user@host.
    public init(_ sender: Sender) {
        if let account = sender.account, !account.isEmpty, account != "*" {
            self = .account(account)
        } else {
            self = .connection(nick: sender.nick, user: sender.user ?? "", host: sender.host ?? "")
        }
    }
}

/// The sessions of every logged-in IRC user. Sessions follow nick changes, end on QUIT when
/// they are not bound to a services account, and never pass to someone who later takes a nick.
///
/// A connection-bound session acts only while the bot watches its owner without a gap (the server's
/// MONITOR/WATCH, or a shared channel). When the bot loses sight of the owner (the nick went offline,
/// they left the last shared channel, the bot's own connection dropped) the session is kept but
/// unwatched: before it acts again, the connection using the nick must prove to be the owner's (same
/// user@host and sign-on time), else the session ends.
public actor SessionBook {
    private var caseMapping: CaseMapping
    private var byAccount: [String: BoundSession] = [:]
    private var byConnection: [String: BoundSession] = [:]
    /// Counts every loss of sight: per folded nick, and for everyone at once (the bot's reconnects).
    private var sightLosses: [String: Int] = [:]
    private var everyoneSightLosses = 0
    private let clock: @Sendable () -> Date

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

    /// Binds a new session to the sender (replacing any earlier one of theirs). `signedOnAt` and
    /// `watch` describe the sender's connection (see ``BoundSession``); with `ifUnchangedSince`, a
    /// loss of sight of the sender after that ``sightMark(of:)`` leaves the session unwatched.
    @discardableResult
    public func bind(
        _ session: DirectorySession, profile: StudentProfile, to sender: Sender, signedOnAt: Int? = nil,
        watch: SessionWatch = .channel, ifUnchangedSince mark: SightMark? = nil
    ) -> BoundSession {
        let owner = SessionOwner(sender)
        let unchanged = mark.map { $0 == sightMark(of: sender.nick) } ?? true
        let bound = BoundSession(
            session: session, profile: profile, owner: owner, nick: sender.nick, signedOnAt: signedOnAt,
            watch: unchanged ? watch : .none)
        switch owner {
        case .account: byAccount[key(for: owner)] = bound
        case .connection: byConnection[key(for: owner)] = bound
        }
        return bound
    }

    /// The live session of the sender, if any (expired ones are dropped).
    public func session(for sender: Sender) -> BoundSession? {
        let candidates: [(String, Bool)] = {
            var keys: [(String, Bool)] = []
            if let account = sender.account, !account.isEmpty, account != "*" {
                keys.append((key(for: .account(account)), true))
            }
            keys.append(
                (
                    key(
                        for: SessionOwner.connection(
                            nick: sender.nick, user: sender.user ?? "", host: sender.host ?? "")), false
                ))
            return keys
        }()
        for (k, isAccount) in candidates {
            guard let bound = isAccount ? byAccount[k] : byConnection[k] else { continue }
            if bound.session.expiresAt <= clock() {
                if isAccount { byAccount[k] = nil } else { byConnection[k] = nil }
                continue
            }
            if !isAccount && bound.watch == .none { continue }
            return bound
        }
        return nil
    }

    /// Where the bot's sight of `nick` stands: compare two marks to know whether it lost sight in between.
    public struct SightMark: Sendable, Hashable {
        fileprivate var nick: Int
        fileprivate var everyone: Int
    }

    /// The current ``SightMark`` of `nick`.
    public func sightMark(of nick: String) -> SightMark {
        SightMark(nick: sightLosses[caseMapping.lowercased(nick)] ?? 0, everyone: everyoneSightLosses)
    }

    /// Whether an unwatched connection-bound session might be the sender's: one bound to the sender's
    /// nick and user@host, or (after a nick change the bot did not see) to their user@host alone.
    public func hasUnwatchedSession(for sender: Sender) -> Bool {
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
        for sender: Sender, signedOnAt: Int?, user: String?, host: String?, watch: SessionWatch,
        ifUnchangedSince mark: SightMark
    ) -> BoundSession? {
        let candidates = unwatchedCandidates(for: sender)
        var reclaimed: BoundSession?
        for (k, bound) in candidates {
            guard case .connection(_, let ownerUser, let ownerHost) = bound.owner else { continue }
            let matches =
                signedOnAt != nil && bound.signedOnAt == signedOnAt && Self.sameUser(user, ownerUser)
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
        return reclaimed
    }

    /// Takes back, unchecked, the unwatched session bound to the sender's nick and user@host, for a
    /// transport that cannot ask the server who uses a nick (a console, a test transport).
    public func trustUnwatchedSession(of sender: Sender) -> BoundSession? {
        let k = key(for: SessionOwner(sender))
        guard var bound = byConnection[k], bound.watch == .none, bound.session.expiresAt > clock() else { return nil }
        bound.watch = .channel
        byConnection[k] = bound
        return bound
    }

    /// Sets how the bot watches the connection-bound session of `sender`, unless it lost sight of
    /// them since `mark`.
    public func setWatch(_ watch: SessionWatch, for sender: Sender, ifUnchangedSince mark: SightMark) {
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

    /// Whether two user names are the same user, whether or not each shows the `~` of an ident the
    /// server could not verify (a WHOIS and a message prefix may differ in it).
    static func sameUser(_ a: String?, _ b: String?) -> Bool {
        func bare(_ name: String?) -> Substring? { name.map { $0.drop { $0 == "~" } } }
        return bare(a) != nil && bare(a) == bare(b)
    }

    private func loseSight(of nick: String) -> String {
        let folded = caseMapping.lowercased(nick)
        sightLosses[folded, default: 0] += 1
        return folded
    }

    private func unwatchedCandidates(for sender: Sender) -> [(String, BoundSession)] {
        let now = clock()
        let user = sender.user ?? ""
        let host = (sender.host ?? "").lowercased()
        let ownKey = key(for: SessionOwner(sender))
        var found: [(String, BoundSession)] = []
        for (k, bound) in byConnection where bound.watch == .none {
            guard bound.session.expiresAt > now else {
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
    public func unbind(_ sender: Sender) -> BoundSession? {
        // A connection-bound session is found watched or not: the router checked the sender's
        // connection before the command that ends it ran.
        let connectionKey = key(for: .connection(nick: sender.nick, user: sender.user ?? "", host: sender.host ?? ""))
        guard let bound = session(for: sender) ?? byConnection[connectionKey] else { return nil }
        remove(bound)
        return bound
    }

    /// The nick `old` is now `new`: connection-bound sessions follow it, and every session
    /// remembers the new nick.
    public func nickChanged(from old: String, to new: String) {
        let oldFolded = loseSight(of: old)
        for (k, var bound) in byAccount where caseMapping.lowercased(bound.nick) == oldFolded {
            bound.nick = new
            byAccount[k] = bound
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
    }

    /// The user left the network: sessions not bound to an account end. Returns the ended ones.
    /// With `user` and `host` (from the QUIT's source), only a session of that very connection ends:
    /// someone else who held the nick while the bot was away cannot end its owner's session.
    @discardableResult
    public func userQuit(nick: String, user: String? = nil, host: String? = nil) -> [BoundSession] {
        let folded = loseSight(of: nick)
        let gone = byConnection.filter { _, bound in
            guard caseMapping.lowercased(bound.nick) == folded else { return false }
            guard let user, let host, case .connection(_, let ownerUser, let ownerHost) = bound.owner else {
                return true
            }
            return ownerUser == user && ownerHost.lowercased() == host.lowercased()
        }
        for k in gone.keys { byConnection[k] = nil }
        return Array(gone.values)
    }

    /// The server says `nick` logged out of services (`ACCOUNT *`) or switched to another
    /// account: the account-bound sessions last used under that nick end, so a services logout is
    /// a logout here too. Connection-bound sessions are not affected. Returns the ended ones.
    @discardableResult
    public func accountChanged(nick: String, to account: String?) -> [BoundSession] {
        let folded = caseMapping.lowercased(nick)
        let newKey = account.flatMap { $0.isEmpty || $0 == "*" ? nil : key(for: .account($0)) }
        let gone = byAccount.filter { k, bound in caseMapping.lowercased(bound.nick) == folded && k != newKey }
        for k in gone.keys { byAccount[k] = nil }
        return Array(gone.values)
    }

    /// Every live session (for logs and health).
    public var count: Int { byAccount.count + byConnection.count }

    /// The session of whoever uses `nick` now (for `!near nick`, `!where nick`), if any.
    /// A session bound to a services account counts only while `account` (what the server says
    /// of the nick's account now) still matches it.
    public func session(ofNick nick: String, account: String? = nil) -> BoundSession? {
        let folded = caseMapping.lowercased(nick)
        if let found = byConnection.values.first(where: {
            $0.watch != .none && caseMapping.lowercased($0.nick) == folded
        }) {
            return found
        }
        guard let account, !account.isEmpty, account != "*" else { return nil }
        return byAccount[key(for: .account(account))]
    }

    private func remove(_ bound: BoundSession) {
        switch bound.owner {
        case .account: byAccount[key(for: bound.owner)] = nil
        case .connection: byConnection[key(for: bound.owner)] = nil
        }
    }

    private func key(for owner: SessionOwner) -> String {
        switch owner {
        case .account(let name): "a:" + caseMapping.lowercased(name)
        case .connection(let nick, let user, let host):
            "c:" + caseMapping.lowercased(nick) + "!" + user + "@" + host.lowercased()
        }
    }
}
