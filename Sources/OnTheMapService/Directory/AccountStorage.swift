import Foundation

/// The rows a directory that keeps its own accounts (SQLite, PostgreSQL) reads and writes for
/// ``AccountPolicy``: plain reads and writes, each one query or one transaction. What they mean
/// (who may log in, how long a session lasts, which session may save what) is the policy's.
///
/// Emails reach the storage normalized (``DirectoryInput/normalizedEmail(_:)``); sessions are
/// known only by the digest of their id (``SessionToken/digest(_:)``).
public protocol AccountStorage: Sendable {
    /// The key and stored password hash of the account with this email, or nil.
    func credentials(email: String) async throws -> AccountCredentials?

    /// In one transaction: deletes the sessions of `session.accountKey` that expired by
    /// `session.createdAt`, stores `session`, and replaces the account's password hash with
    /// `replacementHash` when one is given.
    func startSession(_ session: StoredSession, replacementHash: String?) async throws

    /// The session with this digest, or nil.
    func session(digest: String) async throws -> StoredSession?

    /// Whether an account with this key exists.
    func hasAccount(key: String) async throws -> Bool

    /// Deletes the session with this digest; none is not an error.
    func deleteSession(digest: String) async throws

    /// Deletes every session of the account `accountKey`; returns how many there were.
    func deleteSessions(accountKey: String) async throws -> Int

    /// Stores a new account with its password hash and returns it as stored, or nil (storing
    /// nothing) when another account has its email.
    func insertAccount(_ account: LocalAccount, passwordHash: String) async throws -> LocalAccount?

    /// In one transaction: deletes the account with this email, its sessions and its pin.
    /// False when there is no such account.
    func deleteAccount(email: String) async throws -> Bool

    /// In one transaction: replaces the password hash of the account with this email and deletes
    /// its sessions. False when there is no such account.
    func replacePassword(email: String, passwordHash: String) async throws -> Bool

    /// The link of the services account folded as `foldedAccount` on `network`, or nil.
    func servicesLink(network: String, foldedAccount: String) async throws -> ServicesAccountLink?

    /// The services accounts linked to the class account `accountKey`, one per network.
    func servicesLinks(accountKey: String) async throws -> [ServicesAccountLink]

    /// In one transaction: stores `link` unless the class account is missing, the services account
    /// is linked on its network already, or the class account has a link on that network.
    func insertServicesLink(_ link: ServicesAccountLink) async throws -> ServicesLinkInsertion

    /// Deletes the link of the class account `accountKey` on `network`; returns it, or nil when
    /// there was none.
    func deleteServicesLink(accountKey: String, network: String) async throws -> ServicesAccountLink?
}

/// What a login checks a password against.
public struct AccountCredentials: Sendable, Hashable {
    public var accountKey: String
    public var passwordHash: String

    public init(accountKey: String, passwordHash: String) {
        self.accountKey = accountKey
        self.passwordHash = passwordHash
    }
}

/// A session as stored: the digest of its id (never the id), its account and its times.
public struct StoredSession: Sendable, Hashable {
    public var tokenDigest: String
    public var accountKey: String
    public var createdAt: Date
    public var expiresAt: Date

    public init(tokenDigest: String, accountKey: String, createdAt: Date, expiresAt: Date) {
        self.tokenDigest = tokenDigest
        self.accountKey = accountKey
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
