import BotKit
import Foundation
import OnTheMapService

/// What the bot's session book stores for a logged-in student: their class-directory session and
/// the profile it belongs to.
public struct StudentLogin: ExpiringLogin, Hashable {
    public var session: DirectorySession
    public var profile: StudentProfile
    /// The services account whose link to the class account made this session (no password was
    /// typed); nil for a password login.
    public var servicesAccount: String?

    public init(session: DirectorySession, profile: StudentProfile, servicesAccount: String? = nil) {
        self.session = session
        self.profile = profile
        self.servicesAccount = servicesAccount
    }

    public var expiresAt: Date { session.expiresAt }

    /// A session the server's word made ends with the connection it was made for.
    public var endsWithConnection: Bool { servicesAccount != nil }
}

/// A student's login session, bound to their IRC identity.
public typealias StudentSession = BoundSession<StudentLogin>

extension BoundSession where Login == StudentLogin {
    /// The class-directory session.
    public var session: DirectorySession { login.session }
    /// The student's profile.
    public var profile: StudentProfile { login.profile }
}
