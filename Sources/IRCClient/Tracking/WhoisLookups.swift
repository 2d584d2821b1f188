import IRCProtocol

/// What a server's WHOIS says about the connection that uses a nick now.
public struct WhoisReply: Sendable, Hashable {
    public var nick: String
    public var user: String?
    public var host: String?
    /// The services account (330), when the server says.
    public var account: String?
    /// When that connection signed on, in seconds since 1970 (317), when the server says. Two
    /// connections that used the same nick one after the other have different sign-on times.
    public var signedOnAt: Int?

    public init(
        nick: String, user: String? = nil, host: String? = nil, account: String? = nil, signedOnAt: Int? = nil
    ) {
        self.nick = nick
        self.user = user
        self.host = host
        self.account = account
        self.signedOnAt = signedOnAt
    }
}

/// WHOIS requests waiting for their replies: gathers 311 (user, host), 317 (sign-on time) and 330
/// (account) until 318 (end) and hands the result to everyone who asked about that nick; 401 (no such
/// nick) answers nil. A pure value: the client keeps it and resumes the waiters it returns.
struct WhoisLookups<Waiter: Sendable>: Sendable {
    private struct Pending: Sendable {
        var reply: WhoisReply
        var found = false
        var deadline: ContinuousClock.Instant
        var waiters: [Waiter]
    }

    private var pending: [String: Pending] = [:]
    private var caseMapping: CaseMapping = .rfc1459

    mutating func setCaseMapping(_ mapping: CaseMapping) { caseMapping = mapping }

    /// Adds a waiter for `nick`; true when a WHOIS has to be sent (none is pending for that nick).
    mutating func ask(about nick: String, waiter: Waiter, deadline: ContinuousClock.Instant) -> Bool {
        let key = caseMapping.lowercased(nick)
        if pending[key] != nil {
            pending[key]?.waiters.append(waiter)
            return false
        }
        pending[key] = Pending(reply: WhoisReply(nick: nick), deadline: deadline, waiters: [waiter])
        return true
    }

    /// Feeds one inbound message; returns the waiters to resume and what to resume them with.
    mutating func handle(_ message: IRCMessage) -> [(waiters: [Waiter], reply: WhoisReply?)] {
        let parameters = message.parameters
        guard parameters.count >= 2 else { return [] }
        let key = caseMapping.lowercased(parameters[1])
        guard pending[key] != nil else { return [] }
        switch message.command {
        case "311":
            // 311 me nick user host * :realname
            guard parameters.count >= 4 else { return [] }
            pending[key]?.found = true
            pending[key]?.reply.nick = parameters[1]
            pending[key]?.reply.user = parameters[2]
            pending[key]?.reply.host = parameters[3]
        case "317":
            // 317 me nick idle signon :seconds idle, signon time
            if parameters.count >= 4, let signon = Int(parameters[3]) { pending[key]?.reply.signedOnAt = signon }
        case "330":
            // 330 me nick account :is logged in as
            if parameters.count >= 3 { pending[key]?.reply.account = parameters[2] }
        case "401":
            pending[key]?.found = false
            pending[key]?.reply.user = nil
        case "318":
            guard let done = pending.removeValue(forKey: key) else { return [] }
            return [(done.waiters, done.found ? done.reply : nil)]
        default:
            break
        }
        return []
    }

    /// Ends the lookups whose deadline has passed (the server did not answer): they answer nil.
    mutating func expire(at now: ContinuousClock.Instant) -> [Waiter] {
        let overdue = pending.filter { $0.value.deadline <= now }
        for key in overdue.keys { pending[key] = nil }
        return overdue.values.flatMap(\.waiters)
    }

    /// Ends every lookup (the connection ended): they answer nil.
    mutating func cancelAll() -> [Waiter] {
        let all = pending.values.flatMap(\.waiters)
        pending = [:]
        return all
    }

    var isEmpty: Bool { pending.isEmpty }
}
