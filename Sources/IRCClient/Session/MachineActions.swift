import IRCProtocol
import Logging

// What ``ConnectionStateMachine`` asks its I/O shell (``IRCClient``) to do: each event returns its
// own type, holding only what that event can call for, and the shell carries each type out as it
// is. A line from the server can call for the most (``LineAction``); a tick of the maintenance
// timer for less (``TickAction``); a new connection, its end and a request of the client's user
// for a few things each (``ConnectedAction``, ``ClosedAction``, ``RequestAction``).

/// What a line from the server calls for (``ConnectionStateMachine/lineReceived(_:at:)``), in order.
enum LineAction: Sendable, Equatable, UpkeepAction {
    /// Write the line now, ahead of the send queue (registration, PONG, QUIT, the JOINs after the
    /// welcome burst).
    case write(IRCMessage)
    /// Queue the line in the send queue's control lane (flood-controlled; sent once registered).
    case enqueue(IRCMessage)
    /// Hand the event to the consumer of ``IRCClient/events``.
    case emit(IRCEvent)
    /// Close the connection; `reason` is reported for it unless another was recorded first.
    case closeConnection(reason: String)
    /// Drop the queued lines nobody will read any more (their reader quit, parted or was kicked).
    case dropQueuedLines(SendQueue.Departure)
    /// Registered after an outage longer than ``IRCClientConfiguration/Reconnect/keepQueuedLinesFor``:
    /// drop every queued line (old replies would only confuse).
    case discardQueuedLines(outage: Duration)
    /// The welcome burst ended: queued lines may go out now.
    case startSending
    /// The server's STS policy (in `CAP LS` or `CAP NEW`), for the shell's ``STSState``.
    case sts(STSDirective)
    /// Answer the WHOIS waiters with these ids.
    case answerWhois(waiters: [Int], reply: WhoisReply?)
    /// Answer the waiters of commands sent on someone's behalf with these ids.
    case answerRequest(waiters: [Int], outcome: RequestOutcome)
    /// Log `text` at `level` (the machine has no logger; it leaves out lines below the shell's level).
    case log(Logger.Level, String)
}

/// What a server's STS policy asks of the shell (see ``STSAdvertisement``).
enum STSDirective: Sendable, Equatable {
    /// Seen on a plaintext connection, which is being closed: connect again at once over TLS to
    /// `port` (and keep doing so).
    case upgradeToTLS(port: Int)
    /// Seen on a TLS connection: keep the policy for `seconds` (0: remove it).
    case keepPolicy(seconds: Int)
}

/// What a tick of the maintenance timer calls for (``ConnectionStateMachine/tick(at:)``): keepalive,
/// the registration timeout, the end of the welcome burst, rejoins, nick regain, overdue answers.
enum TickAction: Sendable, Equatable, UpkeepAction {
    /// Write the line now (a keepalive PING, the bot mode and JOINs at the end of the welcome burst).
    case write(IRCMessage)
    /// Queue the line in the send queue's control lane (rejoins, NICK, ISON, MONITOR, metadata).
    case enqueue(IRCMessage)
    /// Close the connection (no pong, registration too slow).
    case closeConnection(reason: String)
    /// The welcome burst is over (its deadline passed): queued lines may go out now.
    case startSending
    /// Answer the WHOIS waiters with these ids (their time is up).
    case answerWhois(waiters: [Int], reply: WhoisReply?)
    /// Answer the waiters of commands sent on someone's behalf with these ids (their time is up).
    case answerRequest(waiters: [Int], outcome: RequestOutcome)
    case log(Logger.Level, String)
}

/// What a new connection calls for (``ConnectionStateMachine/connected(at:secure:port:)``).
enum ConnectedAction: Sendable, Equatable {
    /// Report the connection (``IRCEvent/connected(host:port:)``).
    case emit(IRCEvent)
    /// Write a registration line (`PASS`, `CAP LS 302`, `NICK`, `USER`) now.
    case write(IRCMessage)
}

/// What the end of a connection calls for (``ConnectionStateMachine/connectionClosed(reason:at:)``).
enum ClosedAction: Sendable, Equatable {
    /// Answer these WHOIS waiters: nobody (the server will not answer now).
    case cancelWhois(waiters: [Int])
    /// Answer these waiters of commands sent on someone's behalf: no answer.
    case cancelRequests(waiters: [Int])
    case log(Logger.Level, String)
    /// Report the end (``IRCEvent/disconnected(reason:)``, or ``IRCEvent/connectionFailed(reason:)``
    /// before registration).
    case emit(IRCEvent)
}

/// What a request of the client's user calls for: joining or leaving a channel, a WHOIS, watching
/// a nick.
enum RequestAction: Sendable, Equatable {
    /// Queue the line in the send queue's control lane.
    case enqueue(IRCMessage)
    /// Answer this WHOIS waiter now: nobody (the client is not registered, or the nick cannot be one).
    case answerWhoisNow(waiter: Int)
    /// Answer this waiter of a command sent on someone's behalf now.
    case answerRequest(waiter: Int, outcome: RequestOutcome)
}

/// An action type whose event can leave a line for the log (the machine's helpers that only log
/// serve any such event).
protocol LoggedAction: Sendable {
    static func log(_ level: Logger.Level, _ text: String) -> Self
}

/// What a line and a tick can both call for: the machine's helpers shared by the two (the end of
/// the welcome burst, with the bot mode, the JOINs and the metadata; nick regain) build either type
/// through these.
protocol UpkeepAction: LoggedAction {
    static func write(_ message: IRCMessage) -> Self
    static func enqueue(_ message: IRCMessage) -> Self
    static var startSending: Self { get }
}

extension ClosedAction: LoggedAction {}
