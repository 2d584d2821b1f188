import IRCProtocol

/// What ``ConnectionStateMachine`` asks its I/O shell (``IRCClient``) to do, in order.
enum ConnectionAction: Sendable, Equatable {
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
}
