import IRCProtocol

/// Which way an outgoing message leaves, by its kind: a pure function of the message (its command
/// is what says what it is).
enum SendLane: Sendable, Equatable {
    /// Written at once, ahead of the queue: what the server waits for before anything else can
    /// happen (PONG, the CAP and AUTHENTICATE dialogue) or what ends the connection (QUIT). Only
    /// while connected.
    case priority
    /// A text for someone (PRIVMSG, NOTICE): queued under its target (folded under the server's
    /// casemapping), so readers are served round-robin (see ``SendQueue``).
    case reply(fairnessKey: String?)
    /// Everything else (JOIN, WHO, NICK, MODE…): the queue's control lane, ahead of replies.
    case control

    /// The lane of `message` on a server that compares names by `caseMapping`.
    init(for message: IRCMessage, caseMapping: CaseMapping) {
        switch message.command.uppercased() {
        case "PONG", "CAP", "AUTHENTICATE", "QUIT":
            self = .priority
        case "PRIVMSG", "NOTICE":
            self = .reply(fairnessKey: message.parameters.first.map { caseMapping.lowercased($0) })
        default:
            self = .control
        }
    }
}
