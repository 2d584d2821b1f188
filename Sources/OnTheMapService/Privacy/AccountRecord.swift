import Foundation

/// Everything a directory that keeps its own accounts (SQLite, PostgreSQL) holds about one
/// account: what the student sees with `!mydata`, what a portability request exports, and what an
/// erasure removes. The password hash and the session ids are never part of it (sessions are
/// stored as digests; only their times are given).
public struct AccountRecord: Sendable, Hashable {
    /// One stored session: when it started and when it ends.
    public struct SessionTimes: Sendable, Hashable {
        public var createdAt: Date
        public var expiresAt: Date

        public init(createdAt: Date, expiresAt: Date) {
            self.createdAt = createdAt
            self.expiresAt = expiresAt
        }
    }

    public var account: LocalAccount
    /// The account's pin, when it has one.
    public var pin: StudentLocation?
    /// The account's stored sessions, oldest first.
    public var sessions: [SessionTimes]
    /// The services accounts linked to the account, one per IRC network.
    public var servicesLinks: [ServicesAccountLink]

    public init(
        account: LocalAccount, pin: StudentLocation?, sessions: [SessionTimes],
        servicesLinks: [ServicesAccountLink] = []
    ) {
        self.account = account
        self.pin = pin
        self.sessions = sessions
        self.servicesLinks = servicesLinks
    }
}

/// How an ``AccountRecord`` is looked up.
public enum AccountLookup: Sendable, Hashable {
    /// By account key (the `uniqueKey` of its pin).
    case key(String)
    /// By email (normalized before the lookup; a malformed one finds nothing).
    case email(String)
}
