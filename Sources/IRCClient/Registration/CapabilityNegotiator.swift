import IRCProtocol

/// The client side of IRCv3 capability negotiation (`CAP LS 302`, `REQ`, `ACK`/`NAK`, `NEW`/`DEL`).
///
/// A pure state machine: feed it every `CAP` message and carry out the actions it returns. It requests only
/// the capabilities this client uses (``supported``) that the server offers, `sasl` only when SASL is
/// configured; it authenticates only when the server's mechanism list (if given) contains one of the
/// mechanisms the client may use.
public struct CapabilityNegotiator: Sendable {
    /// What the caller must do next.
    public enum Action: Sendable, Equatable {
        /// Send this message (a `CAP REQ`).
        case send(IRCMessage)
        /// `sasl` was acknowledged: start authentication.
        case startSASL
        /// Negotiation is over: send `CAP END` (unless already sent).
        case end
    }

    /// Capabilities the client understands. With `extended-monitor`, the ACCOUNT and CHGHOST of
    /// nicks watched with MONITOR arrive even when they share no channel with the client. With
    /// `labeled-response` (and `batch`, which it needs for answers of several lines), the answers to
    /// the client's WHOIS carry the label it gave the query. With `draft/metadata-2` (only with
    /// `batch`, which that draft requires) the client publishes what it is (``IRCClientConfiguration/metadata``).
    /// `batch` is asked for only with one of those two. With `no-implicit-names` a JOIN brings no
    /// NAMES burst: the WHO the client sends after its JOIN lists the members.
    public static let supported: Set<String> = [
        "sasl", "message-tags", "server-time", "account-tag", "extended-join", "account-notify", "chghost",
        "multi-prefix", "cap-notify", "userhost-in-names", "extended-monitor", "labeled-response", "batch",
        "draft/metadata-2", "no-implicit-names",
    ]

    /// The most capabilities kept from what a server offers (real servers offer a few dozen), and
    /// the longest value kept of one: a server sending endless `CAP LS` lines makes the client hold
    /// no more.
    public static let maximumOffered = 500
    public static let maximumValueBytes = 1024

    /// Capabilities offered by the server, with their values (`sasl=PLAIN,EXTERNAL` → `"PLAIN,EXTERNAL"`).
    public private(set) var offered: [String: String] = [:]
    /// Once, after the bound of offered capabilities was first reached (for the log).
    public private(set) var limitNotice: String?
    private var limitNoticed = false

    /// Takes ``limitNotice`` (it is said once).
    public mutating func takeLimitNotice() -> String? {
        defer { limitNotice = nil }
        return limitNotice
    }

    /// Keeps one offered capability, within the bounds.
    private mutating func offer(_ name: String, _ value: String) {
        guard offered[name] != nil || offered.count < Self.maximumOffered else {
            if !limitNoticed {
                limitNoticed = true
                limitNotice = "offers more than \(Self.maximumOffered) capabilities; the others are ignored"
            }
            return
        }
        offered[name] = value.utf8.count <= Self.maximumValueBytes ? value : ""
    }
    /// Capabilities currently enabled.
    public private(set) var enabled: Set<String> = []
    /// Capabilities requested and not yet answered.
    public private(set) var pending: Set<String> = []
    /// `true` once the final line of the first `CAP LS` reply arrived.
    public private(set) var listComplete = false
    /// `true` while registration-time negotiation is in progress.
    public private(set) var isNegotiating = true
    /// After negotiation: whether a `sasl` the server offers anew (`CAP NEW`, services came back) is
    /// requested and, once acknowledged, used to log in (set while the client is not logged in).
    public var saslAfterRegistration = false
    /// The SASL mechanisms the client may use, or `nil` when SASL is not to be attempted.
    public let saslMechanisms: [String]?

    public init(saslMechanisms: [String]?) {
        self.saslMechanisms = saslMechanisms
    }

    /// Whether the server offers SASL with one of the wanted mechanisms (`nil` until the capability list is
    /// complete).
    public var saslOffered: Bool? {
        listComplete ? mechanismOffered : nil
    }

    /// Marks negotiation as finished (after `CAP END` was sent, or when the server does not know `CAP`).
    public mutating func finish() {
        isNegotiating = false
    }

    /// Handles one `CAP` message from the server.
    public mutating func handle(_ message: IRCMessage) -> [Action] {
        guard message.command == "CAP", message.parameters.count >= 3 else { return [] }
        let subcommand = message.parameters[1].uppercased()
        let isContinued = message.parameters.count >= 4 && message.parameters[2] == "*"
        let list = message.parameters[message.parameters.count - 1]
        let tokens = list.split(separator: " ").map(String.init)
        switch subcommand {
        case "LS":
            for token in tokens {
                let (name, value) = Self.split(token)
                offer(name, value)
            }
            guard !isContinued, !listComplete else { return [] }
            listComplete = true
            let wanted = wantedCapabilities(from: Set(offered.keys))
            guard isNegotiating else { return [] }
            if wanted.isEmpty { return [.end] }
            pending = wanted
            return [.send(Self.request(wanted))]
        case "ACK":
            for token in tokens {
                if token.hasPrefix("-") {
                    let name = String(token.dropFirst())
                    enabled.remove(name)
                    pending.remove(name)
                } else {
                    enabled.insert(token)
                    pending.remove(token)
                }
            }
            if !isNegotiating, saslAfterRegistration, tokens.contains("sasl"), saslMechanisms != nil {
                return [.startSASL]
            }
            return afterAnswer()
        case "NAK":
            for token in tokens { pending.remove(token.hasPrefix("-") ? String(token.dropFirst()) : token) }
            return afterAnswer()
        case "NEW":
            var added: Set<String> = []
            for token in tokens {
                let (name, value) = Self.split(token)
                offer(name, value)
                if offered[name] != nil { added.insert(name) }
            }
            var wanted = wantedCapabilities(from: added).subtracting(enabled).subtracting(pending)
            if !isNegotiating, !saslAfterRegistration { wanted.remove("sasl") }
            guard !wanted.isEmpty else { return [] }
            pending.formUnion(wanted)
            return [.send(Self.request(wanted))]
        case "DEL":
            for token in tokens {
                let (name, _) = Self.split(token)
                offered.removeValue(forKey: name)
                enabled.remove(name)
            }
            return []
        default:
            return []
        }
    }

    private func afterAnswer() -> [Action] {
        guard isNegotiating, listComplete, pending.isEmpty else { return [] }
        if enabled.contains("sasl"), saslMechanisms != nil, mechanismOffered { return [.startSASL] }
        return [.end]
    }

    private func wantedCapabilities(from names: Set<String>) -> Set<String> {
        var wanted = names.intersection(Self.supported)
        // `sasl` is asked for whenever a login is configured, even when the server lists none of the
        // client's mechanisms (the client then ends negotiation without authenticating): irctest's
        // client cases expect the capability acknowledged either way.
        if saslMechanisms == nil { wanted.remove("sasl") }
        // Metadata must be negotiated with batch, never alone.
        if offered["batch"] == nil, !enabled.contains("batch") { wanted.remove("draft/metadata-2") }
        // Batches are of use here only for labeled answers and metadata.
        let needsBatch = ["labeled-response", "draft/metadata-2"].contains {
            wanted.contains($0) || enabled.contains($0)
        }
        if needsBatch, offered["batch"] != nil, !enabled.contains("batch") { wanted.insert("batch") }
        if !needsBatch { wanted.remove("batch") }
        return wanted
    }

    private var mechanismOffered: Bool {
        guard let saslMechanisms, let value = offered["sasl"] else { return false }
        if value.isEmpty { return !saslMechanisms.isEmpty }
        let names = Set(value.split(separator: ",").map { $0.uppercased() })
        return saslMechanisms.contains { names.contains($0.uppercased()) }
    }

    static func split(_ token: String) -> (name: String, value: String) {
        guard let equals = token.firstIndex(of: "=") else { return (token, "") }
        return (String(token[..<equals]), String(token[token.index(after: equals)...]))
    }

    static func request(_ capabilities: Set<String>) -> IRCMessage {
        IRCMessage(command: "CAP", parameters: ["REQ", capabilities.sorted().joined(separator: " ")])
    }
}
