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

    public init(session: DirectorySession, profile: StudentProfile, owner: SessionOwner, nick: String) {
        self.session = session
        self.profile = profile
        self.owner = owner
        self.nick = nick
    }
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
public actor SessionBook {
    private var caseMapping: CaseMapping
    private var byAccount: [String: BoundSession] = [:]
    private var byConnection: [String: BoundSession] = [:]
    private let clock: @Sendable () -> Date
    private nonisolated let executor: any SerialExecutor

    /// The book's jobs run on `executor` (the router's in the bot), on a private queue when nil.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    public init(
        caseMapping: CaseMapping = .rfc1459, clock: @escaping @Sendable () -> Date = { Date() },
        executor: (any SerialExecutor)? = nil
    ) {
        self.caseMapping = caseMapping
        self.clock = clock
        self.executor = executor ?? SerialQueueExecutor(label: "onthemap.sessions")
    }

    /// Follows the server's CASEMAPPING (sent in ISUPPORT after registration).
    public func setCaseMapping(_ mapping: CaseMapping) {
        guard mapping != caseMapping else { return }
        caseMapping = mapping
        byAccount = Dictionary(byAccount.values.map { (key(for: $0.owner), $0) }, uniquingKeysWith: { a, _ in a })
        byConnection = Dictionary(
            byConnection.values.map { (key(for: $0.owner), $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Binds a new session to the sender (replacing any earlier one of theirs).
    @discardableResult
    public func bind(_ session: DirectorySession, profile: StudentProfile, to sender: Sender) -> BoundSession {
        let owner = SessionOwner(sender)
        let bound = BoundSession(session: session, profile: profile, owner: owner, nick: sender.nick)
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
            return bound
        }
        return nil
    }

    /// Ends the sender's session; returns it so the caller can log out of the backend.
    @discardableResult
    public func unbind(_ sender: Sender) -> BoundSession? {
        guard let bound = session(for: sender) else { return nil }
        remove(bound)
        return bound
    }

    /// The nick `old` is now `new`: connection-bound sessions follow it, and every session
    /// remembers the new nick.
    public func nickChanged(from old: String, to new: String) {
        let oldFolded = caseMapping.lowercased(old)
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
        let folded = caseMapping.lowercased(nick)
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
        if let found = byConnection.values.first(where: { caseMapping.lowercased($0.nick) == folded }) {
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
