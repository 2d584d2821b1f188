import BotKit
import Foundation
import IRCProtocol
import Logging
import OnTheMapService

/// The students' sessions, kept in the directory's state store so that a restart (a deploy, a crash)
/// does not log everyone out. One per bot (see ``ClassServices/sessionArchive``); it works only on a
/// directory that keeps its own accounts (SQLite, PostgreSQL): on the Udacity API sessions stay in
/// memory.
///
/// What is kept for each session is only what taking it back needs: whom it is bound to (the
/// services account, or nick, user@host and the connection's sign-on time), the account key, when
/// it ends, and the SHA-256 digest of the backend session id, the same digest the directory's own
/// `sessions` table holds. The session id itself and the password are never stored: at restore the
/// directory replaces the session by one with a new id (``AccountDirectory/resumeSession(digest:accountKey:)``),
/// so a copy of the database hands out no live session. The profile is read again from the
/// directory.
///
/// The identity rules stay those of ``SessionBook``: a connection-bound session comes back
/// unwatched and acts only for the connection that proves to be its owner's (same user@host and
/// sign-on time, asked with WHOIS); one whose sign-on time was never learnt is not kept. An
/// account-bound session acts again when the server says a sender uses that services account.
public actor SessionArchive {
    /// One kept session.
    struct Kept: Codable, Sendable, Equatable {
        var owner: SessionOwner
        var nick: String
        var signedOnAt: Int?
        var accountKey: String
        /// The SHA-256 digest of the backend session id (``SessionToken/digest(_:)``).
        var sessionDigest: String
        /// Seconds since 1970.
        var expiresAt: Double
    }

    /// The state-store key of `instance`'s sessions.
    public static func stateKey(instance: String?) -> String {
        StateKey.of("sessions", instance: instance)
    }

    private let state: KeptState<[Kept]>
    private let accounts: (any AccountDirectory)?
    private let now: @Sendable () -> Date
    private var book: SessionBook<StudentLogin>?

    /// `accounts` is the directory that keeps the sessions (nil: nothing is kept); `beforeWrite`
    /// runs before each write (see ``KeptState``).
    public init(
        accounts: (any AccountDirectory)?, store: (any BotStateStore)?, instance: String?,
        now: @escaping @Sendable () -> Date, beforeWrite: (@Sendable () async -> Void)? = nil
    ) {
        self.accounts = accounts
        self.state = KeptState(
            key: Self.stateKey(instance: instance), store: accounts == nil ? nil : store, beforeWrite: beforeWrite)
        self.now = now
    }

    /// Takes back into `book` the sessions kept before the restart (once per bot; later calls do
    /// nothing), then keeps `book`'s sessions from now on. Returns how many came back.
    @discardableResult
    public func restore(into book: SessionBook<StudentLogin>, logger: Logger) async -> Int {
        guard self.book == nil, let accounts else { return 0 }
        self.book = book
        await book.onChange { [weak self] in
            guard let self else { return }
            Task { await self.save() }
        }
        let kept: [Kept]
        do {
            switch try await state.load() {
            case .value(let value): kept = value
            case .nothing: kept = []
            case .unreadable:
                logger.warning("kept sessions could not be read; they are dropped", metadata: ["key": "\(state.key)"])
                kept = []
            }
        } catch {
            logger.warning(
                "kept sessions could not be read; students log in again, and none is kept until the store answers",
                metadata: ["error": "\(error)"])
            return 0
        }
        var revived: [StudentSession] = []
        for entry in kept where Date(timeIntervalSince1970: entry.expiresAt) > now() {
            if case .connection = entry.owner, entry.signedOnAt == nil { continue }
            do {
                guard
                    let session = try await accounts.resumeSession(
                        digest: entry.sessionDigest, accountKey: entry.accountKey)
                else { continue }
                let profile = try await accounts.profile(accountKey: entry.accountKey, session: session)
                revived.append(
                    StudentSession(
                        login: StudentLogin(session: session, profile: profile), owner: entry.owner, nick: entry.nick,
                        signedOnAt: entry.signedOnAt, watch: .none))
            } catch {
                logger.warning(
                    "a kept session could not be taken back", metadata: ["error": "\(error)"])
            }
        }
        let taken = await book.restore(revived)
        await save()
        logger.info("sessions kept across the restart", metadata: ["restored": "\(taken)", "kept": "\(kept.count)"])
        return taken
    }

    /// Writes the sessions the book holds now (after ``restore(into:logger:)``; before it, nothing).
    @discardableResult
    public func save() async -> Bool {
        guard let book else { return false }
        return await state.save { await Self.keptForm(of: book.snapshot()) }
    }

    /// Ends every session of account `accountKey` in the book (an erased account), keeps the
    /// rest, and returns the ended ones; none before ``restore(into:logger:)``.
    @discardableResult
    public func endSessions(ofAccount accountKey: String) async -> [StudentSession] {
        guard let book else { return [] }
        let ended = await book.unbindAll { $0.session.accountKey == accountKey }
        if !ended.isEmpty { await save() }
        return ended
    }

    /// The IRC identities the kept sessions in `text` of account `accountKey` belong to.
    public static func identities(in text: String, accountKey: String) -> [UserIdentity] {
        guard let list = try? JSONDecoder().decode([Kept].self, from: Data(text.utf8)) else { return [] }
        return list.filter { $0.accountKey == accountKey }.map { identity(owner: $0.owner, nick: $0.nick) }
    }

    /// The identity of a session's owner, last seen as `nick`.
    public static func identity(owner: SessionOwner, nick: String) -> UserIdentity {
        switch owner {
        case .account(let name): UserIdentity(nick: nick, account: name)
        case .connection(let nick, let user, let host): UserIdentity(nick: nick, user: user, host: host)
        }
    }

    /// The kept sessions `text` holds without those of account `accountKey`; nil when it holds
    /// none (or cannot be read).
    public static func scrub(_ text: String, accountKey: String) -> String? {
        guard let list = try? JSONDecoder().decode([Kept].self, from: Data(text.utf8)),
            list.contains(where: { $0.accountKey == accountKey })
        else { return nil }
        return KeptJSON.encode(list.filter { $0.accountKey != accountKey })
    }

    /// What is kept of `sessions`: each one that a restart can take back (not those made through a
    /// services account's link).
    static func keptForm(of sessions: [StudentSession]) -> [Kept] {
        sessions.compactMap { bound in
            if case .connection = bound.owner, bound.signedOnAt == nil { return nil }
            // A session a services account's link made is made again at the next command.
            if bound.login.servicesAccount != nil { return nil }
            return Kept(
                owner: bound.owner, nick: bound.nick, signedOnAt: bound.signedOnAt,
                accountKey: bound.session.accountKey, sessionDigest: SessionToken.digest(bound.session.sessionId),
                expiresAt: bound.session.expiresAt.timeIntervalSince1970)
        }.sorted { ($0.expiresAt, $0.accountKey) < ($1.expiresAt, $1.accountKey) }
    }
}
