/// Everything the IRC connection needs to know: where to connect, how to secure the link, who to be,
/// which channels to join, and the timings that govern flood control, keepalive and reconnects.
///
/// The defaults are safe for a public network: TLS on (plaintext only when `tls.enabled` is set to
/// `false`), a flood gate of 10 lines of burst then 1 line per second (stock InspIRCd's allowance), a ping after 100 s of silence,
/// and reconnects from 10 s up to 5 min with jitter.
public struct IRCClientConfiguration: Sendable {
    /// Server host name or IP literal.
    public var host: String
    /// Server port (6697 is the usual TLS port).
    public var port: Int
    /// Transport security.
    public var tls: TLS
    /// Optional server password, sent with `PASS` before registration.
    public var serverPassword: String?
    /// The nick the bot wants.
    public var nick: String
    /// Nicks tried, in order, when ``nick`` is taken; after them the client appends digits.
    public var altNicks: [String]
    /// The user name (ident) sent with `USER`.
    public var username: String
    /// The real name (gecos) sent with `USER`.
    public var realname: String
    /// SASL authentication; `nil` for none.
    public var sasl: SASL?
    /// Channels joined after registration and after every reconnect.
    public var channels: [ChannelJoin]
    /// Outgoing flood control.
    public var flood: Flood
    /// Silence detection.
    public var keepalive: Keepalive
    /// Reconnect timing.
    public var reconnect: Reconnect
    /// Delays for rejoining after a KICK or a refused JOIN, and for regaining the configured nick.
    public var retry: Retry
    /// Maximum number of normal (non-priority) lines waiting to be sent; beyond it the oldest line of the
    /// longest backlog is dropped (see ``SendQueue``).
    public var sendQueueCapacity: Int
    /// Message sent with `QUIT` on shutdown.
    public var quitMessage: String
    /// Maximum length of one received line in bytes (tags 8191 + message 512 + slack); longer lines are dropped.
    public var maximumLineLength: Int
    /// Maximum number of events buffered for a slow consumer of ``IRCClient/events``; the oldest are dropped.
    public var eventBufferSize: Int
    /// Time allowed for the TCP connection (and TLS handshake) to be established.
    public var connectTimeout: Duration
    /// Time allowed between connecting and the server's 001; past it the connection is dropped and retried.
    public var registrationTimeout: Duration
    /// How long ``IRCClient/shutdown(quitMessage:)`` keeps sending queued lines before it quits.
    public var shutdownDrainTimeout: Duration
    /// How long ``IRCClient/whois(_:)`` waits for the server's answer (no answer counts as nobody).
    public var whoisTimeout: Duration = .seconds(10)
    /// How long a command sent on someone's behalf (``IRCClient/joinAnswered(_:key:)``) waits for
    /// the server's word.
    public var requestTimeout: Duration = .seconds(5)
    /// How long after the server's 001 the client waits for the end of the welcome burst (the MOTD's
    /// 376, or 422 for none) before it sets its bot mode and joins its channels anyway.
    public var welcomeBurstTimeout: Duration = .seconds(3)
    /// What the client publishes about itself where the server offers `draft/metadata-2` (keys such
    /// as `bot` and `homepage`), in order of preference: set after registration, as many as the
    /// server's `max-keys` allows, each value only if it fits its `max-value-bytes`.
    public var metadata: [MetadataEntry] = []

    /// One key and value of ``metadata``.
    public struct MetadataEntry: Sendable, Hashable {
        public var key: String
        public var value: String

        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    public init(
        host: String,
        port: Int = 6697,
        tls: TLS = TLS(),
        serverPassword: String? = nil,
        nick: String,
        altNicks: [String] = [],
        username: String? = nil,
        realname: String? = nil,
        sasl: SASL? = nil,
        channels: [ChannelJoin] = [],
        flood: Flood = Flood(),
        keepalive: Keepalive = Keepalive(),
        reconnect: Reconnect = Reconnect(),
        retry: Retry = Retry(),
        sendQueueCapacity: Int = 500,
        quitMessage: String = "Goodbye",
        maximumLineLength: Int = 8191 + 512 + 512,
        eventBufferSize: Int = 10_000,
        connectTimeout: Duration = .seconds(20),
        registrationTimeout: Duration = .seconds(90),
        shutdownDrainTimeout: Duration = .seconds(2)
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.serverPassword = serverPassword
        self.nick = nick
        self.altNicks = altNicks
        self.username = username ?? nick
        self.realname = realname ?? nick
        self.sasl = sasl
        self.channels = channels
        self.flood = flood
        self.keepalive = keepalive
        self.reconnect = reconnect
        self.retry = retry
        self.sendQueueCapacity = sendQueueCapacity
        self.quitMessage = quitMessage
        self.maximumLineLength = maximumLineLength
        self.eventBufferSize = eventBufferSize
        self.connectTimeout = connectTimeout
        self.registrationTimeout = registrationTimeout
        self.shutdownDrainTimeout = shutdownDrainTimeout
    }

    /// TLS settings. Verification is never skipped: either the chain is verified against the trusted roots
    /// (system store and/or ``caFile``) with the host name, or — when ``pinnedFingerprint`` is set — the
    /// server's leaf certificate must have exactly that SHA-256 fingerprint.
    public struct TLS: Sendable, Hashable {
        /// `true` by default; plaintext only when explicitly set to `false`.
        public var enabled: Bool
        /// A PEM file of CA certificates to trust (for a self-signed or private CA server).
        public var caFile: String?
        /// Whether the system trust store is trusted too; when `false` only ``caFile`` is trusted.
        public var trustSystemRoots: Bool
        /// SHA-256 fingerprint of the server's leaf certificate, hex, colons and spaces allowed.
        /// When set, the certificate is accepted if and only if it matches.
        public var pinnedFingerprint: String?
        /// PEM client certificate (chain) for CertFP / SASL EXTERNAL.
        public var clientCertificateFile: String?
        /// PEM private key of ``clientCertificateFile``.
        public var clientKeyFile: String?
        /// Name used for SNI and host name verification; defaults to the host (no SNI for IP literals).
        public var serverName: String?

        public init(
            enabled: Bool = true,
            caFile: String? = nil,
            trustSystemRoots: Bool = true,
            pinnedFingerprint: String? = nil,
            clientCertificateFile: String? = nil,
            clientKeyFile: String? = nil,
            serverName: String? = nil
        ) {
            self.enabled = enabled
            self.caFile = caFile
            self.trustSystemRoots = trustSystemRoots
            self.pinnedFingerprint = pinnedFingerprint
            self.clientCertificateFile = clientCertificateFile
            self.clientKeyFile = clientKeyFile
            self.serverName = serverName
        }
    }

    /// SASL authentication during registration.
    public struct SASL: Sendable, Hashable, CustomStringConvertible {
        /// A mechanism the client speaks.
        public enum Mechanism: String, Sendable, Hashable, CaseIterable {
            /// Account name and password in clear (RFC 4616): used over TLS, or on plaintext only when listed.
            case plain = "PLAIN"
            /// The TLS client certificate (needs ``TLS/clientCertificateFile``).
            case external = "EXTERNAL"
            /// Salted challenge–response with SHA-256 (RFC 5802, RFC 7677): the password never leaves the
            /// client, and the server must prove that it knows it.
            case scramSHA256 = "SCRAM-SHA-256"
            /// The same with SHA-512.
            case scramSHA512 = "SCRAM-SHA-512"

            /// Whether the mechanism needs ``SASL/password``.
            public var usesPassword: Bool { self != .external }
        }

        /// Which mechanisms to try.
        public enum Mechanisms: Sendable, Hashable {
            /// The strongest the server offers: EXTERNAL when a client certificate is configured, then
            /// SCRAM-SHA-512, SCRAM-SHA-256, then PLAIN over TLS only.
            case automatic
            /// These, in order of preference.
            case inOrder([Mechanism])
        }

        public var mechanisms: Mechanisms
        /// Account name (authentication identity for PLAIN and SCRAM; optional authorization identity for
        /// EXTERNAL).
        public var username: String
        /// Account password (PLAIN and SCRAM). Never logged.
        public var password: String
        /// When `true` and SASL fails (or is not offered), the client stops instead of continuing unauthenticated.
        public var required: Bool

        public init(
            mechanism: Mechanism = .plain,
            username: String,
            password: String = "",
            required: Bool = false
        ) {
            self.init(mechanisms: .inOrder([mechanism]), username: username, password: password, required: required)
        }

        public init(mechanisms: Mechanisms, username: String, password: String = "", required: Bool = false) {
            self.mechanisms = mechanisms
            self.username = username
            self.password = password
            self.required = required
        }

        /// The mechanisms in words (`auto` or the list).
        public var mechanismsDescription: String {
            switch mechanisms {
            case .automatic: "auto"
            case .inOrder(let list): list.map(\.rawValue).joined(separator: ",")
            }
        }

        public var description: String {
            "SASL(\(mechanismsDescription), username: \(username), password: <redacted>, required: \(required))"
        }
    }

    /// A channel to join, with its key if it has one.
    public struct ChannelJoin: Sendable, Hashable {
        public var name: String
        public var key: String?

        public init(_ name: String, key: String? = nil) {
            self.name = name
            self.key = key
        }
    }

    /// Token-bucket flood control (see ``FloodGate``).
    public struct Flood: Sendable, Hashable {
        /// Lines that may be sent back to back after a quiet period.
        public var burst: Int
        /// Sustained rate; 0 turns the throttle off (see ``FloodGate``).
        public var linesPerSecond: Double

        public init(burst: Int = 10, linesPerSecond: Double = 1) {
            self.burst = burst
            self.linesPerSecond = linesPerSecond
        }
    }

    /// Keepalive: after ``pingAfterSilence`` without any line from the server the client sends a PING; if
    /// nothing arrives within ``timeout`` it pings once more, and after another ``timeout`` it reconnects.
    public struct Keepalive: Sendable, Hashable {
        public var pingAfterSilence: Duration
        public var timeout: Duration

        public init(pingAfterSilence: Duration = .seconds(100), timeout: Duration = .seconds(30)) {
            self.pingAfterSilence = pingAfterSilence
            self.timeout = timeout
        }
    }

    /// Reconnect backoff (see ``ReconnectBackoff``).
    public struct Reconnect: Sendable, Hashable {
        /// First delay.
        public var minimumDelay: Duration
        /// Largest delay.
        public var maximumDelay: Duration
        /// Growth factor per failed attempt.
        public var multiplier: Double
        /// Relative jitter: each delay is multiplied by a random factor in `1 - jitter ... 1 + jitter`.
        public var jitter: Double
        /// A registration that stayed up this long resets the backoff to ``minimumDelay``.
        public var resetAfter: Duration
        /// Lines still queued when the connection is lost are sent after the next registration (after the
        /// channels are rejoined) when the outage lasted at most this long; otherwise they are dropped.
        /// Lines already written to the lost connection are never sent again.
        public var keepQueuedLinesFor: Duration

        public init(
            minimumDelay: Duration = .seconds(10),
            maximumDelay: Duration = .seconds(300),
            multiplier: Double = 2,
            jitter: Double = 0.2,
            resetAfter: Duration = .seconds(60),
            keepQueuedLinesFor: Duration = .seconds(120)
        ) {
            self.minimumDelay = minimumDelay
            self.maximumDelay = maximumDelay
            self.multiplier = multiplier
            self.jitter = jitter
            self.resetAfter = resetAfter
            self.keepQueuedLinesFor = keepQueuedLinesFor
        }
    }

    /// Delays for retried actions.
    public struct Retry: Sendable, Hashable {
        /// Rejoin after being kicked.
        public var rejoinAfterKick: Duration
        /// Retry a JOIN refused with 471/473/474/475/477.
        public var rejoinAfterRefusal: Duration
        /// Interval between attempts to take back the configured nick while using another one.
        public var nickRegainInterval: Duration
        /// While on another nick, how often to ask (ISON) whether the configured one is free, when the
        /// server cannot watch it (no MONITOR or WATCH).
        public var nickCheckInterval: Duration = .seconds(5)

        public init(
            rejoinAfterKick: Duration = .seconds(10),
            rejoinAfterRefusal: Duration = .seconds(120),
            nickRegainInterval: Duration = .seconds(120)
        ) {
            self.rejoinAfterKick = rejoinAfterKick
            self.rejoinAfterRefusal = rejoinAfterRefusal
            self.nickRegainInterval = nickRegainInterval
        }
    }
}

extension IRCClientConfiguration: CustomStringConvertible {
    /// A summary for logs; the server password and the SASL password are never included.
    public var description: String {
        let transport = tls.enabled ? "TLS" : "plaintext"
        let password = serverPassword == nil ? "" : ", server password: <redacted>"
        let saslText = sasl.map { ", \($0)" } ?? ""
        let channelNames = channels.map(\.name).joined(separator: ",")
        return "IRC(\(host):\(port) \(transport), nick: \(nick)\(password)\(saslText), channels: [\(channelNames)])"
    }
}
