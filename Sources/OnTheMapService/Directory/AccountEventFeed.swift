import Foundation

/// One change to a class account that running bots must act on in their memory: an erasure ends
/// the student's sessions and drops what the bot keeps about them; an unlink ends the sessions
/// bound to the services account that was unlinked. The account is named by a digest of its key
/// (``digest(accountKey:)``), so an erased student's key is not written again.
public struct AccountEvent: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        /// The account was erased (`!forget confirm`, `accounts forget`).
        case erased
        /// The account's services account link on ``AccountEvent/network`` was removed.
        case unlinked
    }

    /// The feed's number for the event: it only grows.
    public var revision: Int64
    public var kind: Kind
    /// ``digest(accountKey:)`` of the class account.
    public var accountDigest: String
    /// The IRC network of an unlinked link; empty for an erasure.
    public var network: String
    /// The services account of an unlinked link, folded with its network's casemapping; empty for
    /// an erasure.
    public var foldedAccount: String
    public var at: Date

    public init(
        revision: Int64, kind: Kind, accountDigest: String, network: String = "", foldedAccount: String = "",
        at: Date
    ) {
        self.revision = revision
        self.kind = kind
        self.accountDigest = accountDigest
        self.network = network
        self.foldedAccount = foldedAccount
        self.at = at
    }

    /// The lowercase hex SHA-256 digest of an account key, as the feed names the account.
    public static func digest(accountKey: String) -> String {
        SessionToken.digest(accountKey)
    }

    /// How long the feed keeps an event: running bots read it within seconds; one started later
    /// finds the account's sessions and kept state gone already.
    public static let memory: TimeInterval = 3600
}

/// The account events of a directory that keeps its own accounts (SQLite, PostgreSQL):
/// ``AccountDirectory/eraseAccount(accountKey:)`` and
/// ``AccountDirectory/unlinkServicesAccount(accountKey:network:)`` append one in their own
/// transaction, so every process on the directory learns of them. The Udacity backend has none.
public protocol AccountEventFeed: Sendable {
    /// The events after `revision`, oldest first, at most `limit`.
    func accountEvents(after revision: Int64, limit: Int) async throws -> [AccountEvent]
    /// The revision of the newest event (0 when there is none): where a reader starting now begins.
    func latestAccountEventRevision() async throws -> Int64
}
