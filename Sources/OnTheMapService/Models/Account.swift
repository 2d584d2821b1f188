import Foundation

/// A logged-in session with a backend.
public struct DirectorySession: Sendable, Hashable {
    /// The opaque account key (the `uniqueKey` of the account's pin).
    public var accountKey: String
    /// The backend's session id (secret: never log it).
    public var sessionId: String
    public var expiresAt: Date

    public init(accountKey: String, sessionId: String, expiresAt: Date) {
        self.accountKey = accountKey
        self.sessionId = sessionId
        self.expiresAt = expiresAt
    }
}

/// The public profile of an account: the name that goes on its pin.
public struct StudentProfile: Sendable, Hashable {
    public var accountKey: String
    public var firstName: String
    public var lastName: String
    public var nickname: String?

    public init(accountKey: String, firstName: String, lastName: String, nickname: String? = nil) {
        self.accountKey = accountKey
        self.firstName = firstName
        self.lastName = lastName
        self.nickname = nickname
    }

    /// The names a pin of this student carries: the profile's, or the nickname as the first name
    /// when the profile has no name at all.
    public var namesForPin: (first: String, last: String) {
        firstName.isEmpty && lastName.isEmpty ? (nickname ?? "", "") : (firstName, lastName)
    }
}

/// An account of a local (SQLite or PostgreSQL) directory, as the operator sees it.
/// The password hash never leaves the directory.
public struct LocalAccount: Sendable, Hashable {
    public var accountKey: String
    public var email: String
    public var firstName: String
    public var lastName: String
    public var createdAt: Date

    public init(accountKey: String, email: String, firstName: String, lastName: String, createdAt: Date) {
        self.accountKey = accountKey
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.createdAt = createdAt
    }
}
