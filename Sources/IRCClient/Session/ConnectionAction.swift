import IRCProtocol
import Logging

/// What ``ConnectionStateMachine`` asks its I/O shell (``IRCClient``) to do, in order: everything
/// a line from the server or a tick of the maintenance timer can call for (a line can cause nearly
/// all of it: a CAP line an STS upgrade, a 001 the start of sending, an ERROR the close). The other
/// events return narrower types (``ConnectedAction``, ``ClosedAction``, ``RequestAction``), which
/// the shell carries out as these.
enum ConnectionAction: Sendable, Equatable, ConnectionActionConvertible {
    /// Write the line now, ahead of the send queue (registration, PONG, keepalive PING, QUIT, the
    /// JOINs after 001).
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
    /// Registered: queued lines may go out now.
    case startSending
    /// The server's STS policy on a plaintext connection: the connection is being closed; connect
    /// again at once over TLS to `port` (and keep doing so).
    case upgradeToTLS(port: Int)
    /// The server's STS policy on a TLS connection: keep it for `seconds` (0: remove it).
    case rememberSTSPolicy(seconds: Int)
    /// Answer the WHOIS waiters with these ids.
    case answerWhois(waiters: [Int], reply: WhoisReply?)
    /// Answer the waiters of commands sent on someone's behalf with these ids.
    case answerRequest(waiters: [Int], outcome: RequestOutcome)
    /// Log `text` at `level` (the machine has no logger; it leaves out lines below the shell's level).
    case log(Logger.Level, String)
}

/// An action of one event's narrow type, carried out by the shell as the ``ConnectionAction`` it
/// stands for.
protocol ConnectionActionConvertible: Sendable {
    var connectionAction: ConnectionAction { get }
}

extension ConnectionAction {
    var connectionAction: ConnectionAction { self }
}

/// What a new connection calls for (``ConnectionStateMachine/connected(at:secure:port:)``).
enum ConnectedAction: Sendable, Equatable, ConnectionActionConvertible {
    /// Report the connection (``IRCEvent/connected(host:port:)``).
    case emit(IRCEvent)
    /// Write a registration line (`PASS`, `CAP LS 302`, `NICK`, `USER`) now.
    case write(IRCMessage)

    var connectionAction: ConnectionAction {
        switch self {
        case .emit(let event): .emit(event)
        case .write(let message): .write(message)
        }
    }
}

/// What the end of a connection calls for (``ConnectionStateMachine/connectionClosed(reason:at:)``).
enum ClosedAction: Sendable, Equatable, ConnectionActionConvertible {
    /// Answer these WHOIS waiters: nobody (the server will not answer now).
    case cancelWhois(waiters: [Int])
    /// Answer these waiters of commands sent on someone's behalf: no answer.
    case cancelRequests(waiters: [Int])
    case log(Logger.Level, String)
    /// Report the end (``IRCEvent/disconnected(reason:)``, or ``IRCEvent/connectionFailed(reason:)``
    /// before registration).
    case emit(IRCEvent)

    var connectionAction: ConnectionAction {
        switch self {
        case .cancelWhois(let waiters): .answerWhois(waiters: waiters, reply: nil)
        case .cancelRequests(let waiters): .answerRequest(waiters: waiters, outcome: .noAnswer)
        case .log(let level, let text): .log(level, text)
        case .emit(let event): .emit(event)
        }
    }
}

/// What a request of the client's user calls for: joining or leaving a channel, a WHOIS, watching
/// a nick.
enum RequestAction: Sendable, Equatable, ConnectionActionConvertible {
    /// Queue the line in the send queue's control lane.
    case enqueue(IRCMessage)
    /// Answer this WHOIS waiter now: nobody (the client is not registered, or the nick cannot be one).
    case answerWhoisNow(waiter: Int)
    /// Answer this waiter of a command sent on someone's behalf now.
    case answerRequest(waiter: Int, outcome: RequestOutcome)

    var connectionAction: ConnectionAction {
        switch self {
        case .enqueue(let message): .enqueue(message)
        case .answerWhoisNow(let waiter): .answerWhois(waiters: [waiter], reply: nil)
        case .answerRequest(let waiter, let outcome): .answerRequest(waiters: [waiter], outcome: outcome)
        }
    }
}
