import Foundation

/// The account and session rules of the directories that keep their own accounts (SQLite,
/// PostgreSQL), over an ``AccountStorage`` that only runs SQL:
///
/// - A failed login costs the same whatever failed: an unknown or malformed email gets a dummy
///   verification of the same rounds as a real one, so timing does not tell which emails exist.
/// - A successful login re-hashes the password when its stored hash has fewer rounds than the
///   hasher's, and starts a session of ``LocalDirectoryOptions/sessionLifetime``.
/// - A session given to an operation must be known, unexpired and its account's (otherwise
///   `.sessionExpired`; an expired one is deleted); a session may only save its own account's pin.
///   A nil session is a trusted caller (the operator's tools, tests).
///
/// Session and account times are kept to the millisecond, which every store holds exactly.
public struct AccountPolicy<Storage: AccountStorage>: Sendable {
    public let storage: Storage
    public let options: LocalDirectoryOptions

    public init(storage: Storage, options: LocalDirectoryOptions) {
        self.storage = storage
        self.options = options
    }

    /// The current time to the millisecond.
    private func now() -> Date { Self.toTheMillisecond(options.clock()) }

    private static func toTheMillisecond(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    // MARK: - Sessions

    /// Logs in; throws `.rejectedInput` for an empty email or password, `.invalidCredentials` for
    /// any other failure (after the same work as a wrong password).
    public func logIn(email: String, password: String) async throws -> DirectorySession {
        try DirectoryInput.requireCredentials(email: email, password: password)
        let hasher = options.passwordHasher
        guard let normalized = try? DirectoryInput.normalizedEmail(email),
            let credentials = try await storage.credentials(email: normalized)
        else {
            await hasher.dummyVerifyInBackground(password)
            throw ServiceError.invalidCredentials
        }
        guard await hasher.verifyInBackground(password, against: credentials.passwordHash) else {
            throw ServiceError.invalidCredentials
        }
        let replacementHash =
            hasher.needsRehash(credentials.passwordHash) ? try await hasher.hashInBackground(password) : nil
        let sessionId = SessionToken.make()
        let now = now()
        let session = StoredSession(
            tokenDigest: SessionToken.digest(sessionId), accountKey: credentials.accountKey, createdAt: now,
            expiresAt: Self.toTheMillisecond(now.addingTimeInterval(options.sessionLifetime)))
        try await storage.startSession(session, replacementHash: replacementHash)
        return DirectorySession(accountKey: session.accountKey, sessionId: sessionId, expiresAt: session.expiresAt)
    }

    /// Ends the session; an unknown one is not an error.
    public func logOut(_ session: DirectorySession) async throws {
        try await storage.deleteSession(digest: SessionToken.digest(session.sessionId))
    }

    /// Ends every session of the account: its IRC logins, the map's browsers and the API's
    /// clients. Returns how many there were.
    public func endSessions(accountKey: String) async throws -> Int {
        try await storage.deleteSessions(accountKey: accountKey)
    }

    /// The live session with this id (its account and expiry), or nil when the id is unknown or
    /// its session expired (an expired one is deleted). Only the digest of `sessionId` is looked up.
    public func liveSession(id sessionId: String) async throws -> DirectorySession? {
        guard !sessionId.isEmpty, sessionId.utf8.count <= 256 else { return nil }
        let digest = SessionToken.digest(sessionId)
        guard let stored = try await storage.session(digest: digest) else { return nil }
        guard stored.expiresAt > now() else {
            try await storage.deleteSession(digest: digest)
            return nil
        }
        return DirectorySession(accountKey: stored.accountKey, sessionId: sessionId, expiresAt: stored.expiresAt)
    }

    /// Takes over the live session whose id has the digest `digest` (one the bot kept across a
    /// restart, where only the digest is kept): it is replaced by a session with a new id and the
    /// same account, start and end, so the id itself is never stored anywhere. Nil when no such
    /// session is live for `accountKey` (it ended, expired, or the password was changed).
    public func resumeSession(digest: String, accountKey: String) async throws -> DirectorySession? {
        guard let stored = try await storage.session(digest: digest), stored.accountKey == accountKey else {
            return nil
        }
        guard stored.expiresAt > now() else {
            try await storage.deleteSession(digest: digest)
            return nil
        }
        let sessionId = SessionToken.make()
        let renewed = StoredSession(
            tokenDigest: SessionToken.digest(sessionId), accountKey: accountKey, createdAt: stored.createdAt,
            expiresAt: stored.expiresAt)
        try await storage.startSession(renewed, replacementHash: nil)
        try await storage.deleteSession(digest: digest)
        return DirectorySession(accountKey: accountKey, sessionId: sessionId, expiresAt: stored.expiresAt)
    }

    /// Starts a session of the usual lifetime for the account `accountKey` without its password,
    /// for a caller that has already proved who the student is (a sign-in link the bot gave the
    /// student privately on IRC). Nil when there is no such account (it was removed meanwhile).
    public func openSession(accountKey: String) async throws -> DirectorySession? {
        guard !accountKey.isEmpty, try await storage.hasAccount(key: accountKey) else { return nil }
        let sessionId = SessionToken.make()
        let now = now()
        let session = StoredSession(
            tokenDigest: SessionToken.digest(sessionId), accountKey: accountKey, createdAt: now,
            expiresAt: Self.toTheMillisecond(now.addingTimeInterval(options.sessionLifetime)))
        try await storage.startSession(session, replacementHash: nil)
        return DirectorySession(accountKey: accountKey, sessionId: sessionId, expiresAt: session.expiresAt)
    }

    /// Throws `.sessionExpired` unless `session` is nil or live and its account's; deletes it
    /// when it has expired.
    public func requireLive(_ session: DirectorySession?) async throws {
        guard let session else { return }
        let digest = SessionToken.digest(session.sessionId)
        guard let stored = try await storage.session(digest: digest), stored.accountKey == session.accountKey else {
            throw ServiceError.sessionExpired
        }
        guard stored.expiresAt > now() else {
            try await storage.deleteSession(digest: digest)
            throw ServiceError.sessionExpired
        }
    }

    /// Checks that `draft` may be saved with `session`: a valid pin, with a trip that ends in the
    /// future when it has one (`.rejectedInput`), a live session (`.sessionExpired`), and the
    /// session's own account (`.rejectedInput`).
    public func requireMaySave(_ draft: PinDraft, session: DirectorySession?) async throws {
        try DirectoryInput.validatePin(draft)
        if let trip = draft.trip { try DirectoryInput.validateTrip(trip, now: options.clock()) }
        try await requireLive(session)
        try Self.requireOwner(draft.uniqueKey, session: session)
    }

    /// Checks that `trip` may be set on the pin of `uniqueKey` with `session`: a valid trip that
    /// ends in the future (`.rejectedInput`), a live session (`.sessionExpired`) of that very
    /// account (`.rejectedInput`); nil is a trusted caller.
    public func requireMaySetTrip(_ trip: Trip, uniqueKey: String, session: DirectorySession?) async throws {
        try DirectoryInput.validateTrip(trip, now: options.clock())
        try await requireLive(session)
        if let session, session.accountKey != uniqueKey {
            throw ServiceError.rejectedInput("A trip can only be set for your own account.")
        }
    }

    /// Checks that the trip of `uniqueKey` may be ended with `session`: a live session
    /// (`.sessionExpired`) of that very account (`.rejectedInput`); nil is a trusted caller.
    public func requireMayEndTrip(uniqueKey: String, session: DirectorySession?) async throws {
        try await requireLive(session)
        if let session, session.accountKey != uniqueKey {
            throw ServiceError.rejectedInput("Only your own trip can be ended.")
        }
    }

    /// Checks that the pin of `uniqueKey` may be removed with `session`: a live session
    /// (`.sessionExpired`) of that very account (`.rejectedInput`); nil is a trusted caller.
    public func requireMayRemove(uniqueKey: String, session: DirectorySession?) async throws {
        try await requireLive(session)
        if let session, session.accountKey != uniqueKey {
            throw ServiceError.rejectedInput("Only your own pin can be removed.")
        }
    }

    /// Throws `.rejectedInput` when `session` belongs to another account than `uniqueKey`.
    public static func requireOwner(_ uniqueKey: String, session: DirectorySession?) throws {
        if let session, session.accountKey != uniqueKey {
            throw ServiceError.rejectedInput("A pin can only be saved for your own account.")
        }
    }

    // MARK: - Accounts

    /// Adds an account with a new key and the password hashed; throws `.rejectedInput` when a
    /// field is invalid or the email is taken.
    public func addAccount(email: String, password: String, firstName: String, lastName: String) async throws
        -> LocalAccount
    {
        let normalized = try DirectoryInput.normalizedEmail(email)
        try DirectoryInput.validateNewPassword(password)
        let (first, last) = try DirectoryInput.validateNames(firstName: firstName, lastName: lastName)
        let hash = try await options.passwordHasher.hashInBackground(password)
        let account = LocalAccount(
            accountKey: RandomID.make(), email: normalized, firstName: first, lastName: last, createdAt: now())
        guard let stored = try await storage.insertAccount(account, passwordHash: hash) else {
            throw ServiceError.rejectedInput(DirectoryInput.emailTaken)
        }
        return stored
    }

    /// Sets a new password (hashed) and ends every session of the account; its pin stays. Throws
    /// `.rejectedInput` for a password a new account could not have, `.notFound` when there is no
    /// account with this email.
    public func changePassword(email: String, newPassword: String) async throws {
        try DirectoryInput.validateNewPassword(newPassword)
        guard let normalized = try? DirectoryInput.normalizedEmail(email) else {
            throw ServiceError.notFound("No account with this email.")
        }
        let hash = try await options.passwordHasher.hashInBackground(newPassword)
        guard try await storage.replacePassword(email: normalized, passwordHash: hash) else {
            throw ServiceError.notFound("No account with this email.")
        }
    }

    /// Removes an account, its sessions and its pin; throws `.notFound` when there is none.
    public func removeAccount(email: String) async throws {
        guard let normalized = try? DirectoryInput.normalizedEmail(email),
            try await storage.deleteAccount(email: normalized)
        else { throw ServiceError.notFound("No account with this email.") }
    }

    // MARK: - Services accounts

    /// Links the class account `accountKey` to the services account `servicesAccount` (folded with
    /// the network's casemapping as `foldedAccount`) on `network`. Linking again what is already
    /// linked is not an error. Throws `.rejectedInput` for a name that cannot be an account, when
    /// the services account is linked to another class account (one services account, one class
    /// account), or when the class account is linked to another services account on the network;
    /// `.notFound` when there is no such class account.
    @discardableResult
    public func linkServicesAccount(
        accountKey: String, network: String, servicesAccount: String, foldedAccount: String
    ) async throws -> ServicesAccountLink {
        try ServicesAccountLink.validateAccountName(servicesAccount)
        try ServicesAccountLink.validateAccountName(foldedAccount)
        let link = ServicesAccountLink(
            accountKey: accountKey, network: network, servicesAccount: servicesAccount,
            foldedAccount: foldedAccount, createdAt: now())
        switch try await storage.insertServicesLink(link) {
        case .stored:
            return link
        case .alreadyLinked(let existing):
            return existing
        case .servicesAccountTaken:
            throw ServiceError.rejectedInput(
                "The services account \(servicesAccount) is already linked to another class account; "
                    + "that student can unlink it with !unlink, or the instructor with accounts unlink.")
        case .classAccountLinked(let existing):
            throw ServiceError.rejectedInput(
                "This class account is already linked to the services account \(existing.servicesAccount) "
                    + "on \(network); unlink it first with !unlink (or the instructor's accounts unlink).")
        case .noAccount:
            throw ServiceError.notFound("No account with this key.")
        }
    }

    /// The class account the services account folded as `foldedAccount` is linked to on
    /// `network`, or nil.
    public func servicesLink(network: String, foldedAccount: String) async throws -> ServicesAccountLink? {
        guard !foldedAccount.isEmpty else { return nil }
        return try await storage.servicesLink(network: network, foldedAccount: foldedAccount)
    }
}
