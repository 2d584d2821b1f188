import BotKit
import ClassKit

extension Invocation {
    /// The sender's login session, when they have one.
    var session: StudentSession? { session(as: StudentLogin.self) }
    /// Every student's session.
    var sessions: SessionBook<StudentLogin> { sessions(storing: StudentLogin.self) }
}
