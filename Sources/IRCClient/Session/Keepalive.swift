/// Notices a dead connection: after ``IRCClientConfiguration/Keepalive/pingAfterSilence`` without a
/// line from the server the client sends a PING; without a line within
/// ``IRCClientConfiguration/Keepalive/timeout`` it sends one more, and without a line within the same
/// time after that the connection is dead. Any line from the server counts as an answer.
///
/// A pure value: ``ConnectionStateMachine`` feeds it the time of every line and of every tick.
struct Keepalive: Sendable, Equatable {
    /// What a tick calls for.
    enum Verdict: Sendable, Equatable {
        case wait
        case ping
        case timedOut
    }

    let pingAfterSilence: Duration
    let timeout: Duration
    private var lastReceivedAt: ContinuousClock.Instant?
    private var pingSentAt: ContinuousClock.Instant?
    private var retries = 0

    init(_ configuration: IRCClientConfiguration.Keepalive) {
        pingAfterSilence = configuration.pingAfterSilence
        timeout = configuration.timeout
    }

    /// A connection starts: the silence counts from now.
    mutating func connected(at now: ContinuousClock.Instant) {
        received(at: now)
    }

    /// The server sent a line.
    mutating func received(at now: ContinuousClock.Instant) {
        lastReceivedAt = now
        pingSentAt = nil
        retries = 0
    }

    /// Whether to ping, or to give up on the connection, at `now`.
    mutating func tick(at now: ContinuousClock.Instant) -> Verdict {
        if let pingSentAt {
            guard pingSentAt.duration(to: now) >= timeout else { return .wait }
            guard retries == 0 else { return .timedOut }
            retries = 1
            self.pingSentAt = now
            return .ping
        }
        if let lastReceivedAt, lastReceivedAt.duration(to: now) >= pingAfterSilence {
            pingSentAt = now
            return .ping
        }
        return .wait
    }
}
