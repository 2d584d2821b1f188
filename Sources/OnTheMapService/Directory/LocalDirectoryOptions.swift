import Foundation

/// Settings shared by the directories that keep their own accounts (SQLite, PostgreSQL).
public struct LocalDirectoryOptions: Sendable {
    /// How long a session lasts after login (default 30 days).
    public var sessionLifetime: TimeInterval
    /// What `signUpURL` answers (nil: no sign-up page).
    public var signUpURL: String?
    /// Hashes new passwords and verifies old ones.
    public var passwordHasher: PasswordHasher
    /// The current time (tests move it forward to expire sessions).
    public var clock: @Sendable () -> Date

    public init(
        sessionLifetime: TimeInterval = 30 * 24 * 3600, signUpURL: String? = nil,
        passwordHasher: PasswordHasher = PasswordHasher(), clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.sessionLifetime = sessionLifetime
        self.signUpURL = signUpURL
        self.passwordHasher = passwordHasher
        self.clock = clock
    }
}
