import IRCProtocol

/// Where ``ConnectionStateMachine`` is in the life of a connection, each phase carrying the data
/// that exists only in it.
///
/// ```
/// disconnected ──connected──▶ registering ──001──▶ registered
///      ▲                          │                    │
///      └───────connection closed──┴────────────────────┘
/// ```
///
/// Shutting down is not a phase of its own: the connection keeps working (the queue drains, the
/// server's ERROR is awaited) while the machine knows it is stopping (``ConnectionStateMachine/isStopping``).
enum ConnectionPhase: Sendable {
    /// No connection: before the first one (`outageStart` nil), or since the last one ended at
    /// `outageStart`.
    case disconnected(outageStart: ContinuousClock.Instant?)
    /// Connected; the server has not welcomed the client (001) yet.
    case registering(ConnectionLink, Registering)
    /// Between the server's 001 and the end of that connection.
    case registered(ConnectionLink, Registered)

    /// What every connection has, registered or not.
    struct ConnectionLink: Sendable {
        /// Whether the connection is TLS.
        var secure: Bool
        /// Whether the server's STS policy was acted on already on this connection.
        var stsSeen = false
        var keepalive: Keepalive
    }

    /// Until the server's 001.
    struct Registering: Sendable {
        /// When the connection was made (registration must end within
        /// ``IRCClientConfiguration/registrationTimeout``).
        var connectedAt: ContinuousClock.Instant
        /// When the previous connection ended (nil: there was none): an outage longer than
        /// ``IRCClientConfiguration/Reconnect/keepQueuedLinesFor`` discards the queued lines at 001.
        var outageStart: ContinuousClock.Instant?
    }

    /// After the server's 001: what the client asked the server on this connection and waits for.
    struct Registered: Sendable {
        var registeredAt: ContinuousClock.Instant
        /// Until the welcome burst ends (376 or 422, or this deadline): the bot mode is set and the
        /// channels are joined then, so a server that honours the mode only outside channels keeps it.
        var joinDeadline: ContinuousClock.Instant?
        /// The bot user mode: asked for once on a server that names one (ISUPPORT `BOT=`), and
        /// whether the server has confirmed it.
        var botMode: BotMode?
        /// While the client is not on its configured nick: when to ask for it again.
        var nextNickRegain: ContinuousClock.Instant?
        /// The nicks watched with MONITOR or WATCH.
        var presence = PresenceWatch()
        /// WHOIS requests waiting for the server's answer, by the shell's waiter id.
        var whoisLookups = WhoisLookups<Int>()
        /// Commands sent on someone's behalf (an owner's JOIN or PART) waiting for the server's word.
        var pendingRequests = PendingRequests<Int>()
        /// While the client is not on its configured nick: whether that nick is watched
        /// (MONITOR/WATCH), else when to ask again with ISON.
        var configuredNickWatched = false
        var nextConfiguredNickCheck: ContinuousClock.Instant?

        /// Registered at `now`, on a server whose ISUPPORT so far is `support`.
        init(at now: ContinuousClock.Instant, support: ServerSupport) {
            registeredAt = now
            setServerSupport(support)
        }

        /// The server's ISUPPORT values changed: the lists compare names its way.
        mutating func setServerSupport(_ support: ServerSupport) {
            presence.update(support)
            whoisLookups.setCaseMapping(support.caseMapping)
            pendingRequests.setCaseMapping(support.caseMapping)
        }

        /// The connection ended: the waiters of WHOIS lookups and of requests, none of which will
        /// be answered now.
        mutating func cancelWaiters() -> (whois: [Int], requests: [Int]) {
            (whoisLookups.cancelAll(), pendingRequests.cancelAll())
        }
    }

    var link: ConnectionLink? {
        switch self {
        case .disconnected: nil
        case .registering(let link, _), .registered(let link, _): link
        }
    }

    var registered: Registered? {
        if case .registered(_, let registered) = self { registered } else { nil }
    }

    /// Lets `body` change the link of a connected phase (nothing happens when disconnected).
    mutating func updateLink<Result>(_ body: (inout ConnectionLink) -> Result) -> Result? {
        switch self {
        case .disconnected:
            return nil
        case .registering(var link, let registering):
            let result = body(&link)
            self = .registering(link, registering)
            return result
        case .registered(var link, let registered):
            let result = body(&link)
            self = .registered(link, registered)
            return result
        }
    }
}
