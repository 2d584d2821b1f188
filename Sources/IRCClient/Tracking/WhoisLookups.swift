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
///
/// A lookup asked with a label (the server acknowledged `labeled-response`) is answered only by the
/// lines that carry that label, alone or in the labeled batch: a late answer to an earlier query about
/// the same nick, which may describe a connection that has left the nick since, is never taken for it.
/// A lookup without a label is matched by nick, and takes no labeled line.
struct WhoisLookups<Waiter: Sendable>: Sendable {
    private struct Pending: Sendable {
        var reply: WhoisReply
        var found = false
        var deadline: ContinuousClock.Instant
        var waiters: [Waiter]
        /// The folded nick asked about.
        var nickKey: String
    }

    /// How a waiting lookup is found: by its label, or by the nick when it has none.
    private enum Key: Hashable, Sendable {
        case label(String)
        case nick(String)
    }

    private var pending: [Key: Pending] = [:]
    /// Folded nick → the lookup asking about it (one at a time per nick).
    private var byNick: [String: Key] = [:]
    private var caseMapping: CaseMapping = .rfc1459

    mutating func setCaseMapping(_ mapping: CaseMapping) {
        guard mapping != caseMapping else { return }
        caseMapping = mapping
        var rekeyed: [Key: Pending] = [:]
        byNick = [:]
        for (key, var lookup) in pending {
            lookup.nickKey = mapping.lowercased(lookup.reply.nick)
            var newKey = key
            if case .nick = key { newKey = .nick(lookup.nickKey) }
            rekeyed[newKey] = lookup
            byNick[lookup.nickKey] = newKey
        }
        pending = rekeyed
    }

    /// Whether a lookup about `nick` is waiting (a new waiter then shares it).
    func isAsking(about nick: String) -> Bool {
        byNick[caseMapping.lowercased(nick)].map { pending[$0] != nil } ?? false
    }

    /// Adds a waiter for `nick`; true when a WHOIS has to be sent (none is pending for that nick),
    /// with `label` when it is given (the WHOIS then carries that label).
    mutating func ask(
        about nick: String, waiter: Waiter, deadline: ContinuousClock.Instant, label: String? = nil
    ) -> Bool {
        let nickKey = caseMapping.lowercased(nick)
        if let key = byNick[nickKey], pending[key] != nil {
            pending[key]?.waiters.append(waiter)
            return false
        }
        let key: Key = label.map { .label($0) } ?? .nick(nickKey)
        pending[key] = Pending(reply: WhoisReply(nick: nick), deadline: deadline, waiters: [waiter], nickKey: nickKey)
        byNick[nickKey] = key
        return true
    }

    /// Feeds one inbound message, with the label it answers (its own `label` tag, or that of the
    /// labeled batch it is part of; nil when none); returns the waiters to resume and what to
    /// resume them with.
    mutating func handle(_ message: IRCMessage, label: String? = nil) -> [(waiters: [Waiter], reply: WhoisReply?)] {
        let parameters = message.parameters
        let key: Key
        if let label {
            key = .label(label)
        } else {
            guard parameters.count >= 2 else { return [] }
            key = .nick(caseMapping.lowercased(parameters[1]))
        }
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
            return finish(key)
        default:
            break
        }
        return []
    }

    /// The server has said all it will say for `label` (its labeled batch ended, or it answered
    /// `ACK`): a lookup still waiting on it ends (nil unless a 311 came).
    mutating func labelEnded(_ label: String) -> [(waiters: [Waiter], reply: WhoisReply?)] {
        finish(.label(label))
    }

    private mutating func finish(_ key: Key) -> [(waiters: [Waiter], reply: WhoisReply?)] {
        guard let done = pending.removeValue(forKey: key) else { return [] }
        if byNick[done.nickKey] == key { byNick[done.nickKey] = nil }
        return [(done.waiters, done.found ? done.reply : nil)]
    }

    /// Ends the lookups whose deadline has passed (the server did not answer): they answer nil.
    mutating func expire(at now: ContinuousClock.Instant) -> [Waiter] {
        let overdue = pending.filter { $0.value.deadline <= now }
        for (key, lookup) in overdue {
            pending[key] = nil
            if byNick[lookup.nickKey] == key { byNick[lookup.nickKey] = nil }
        }
        return overdue.values.flatMap(\.waiters)
    }

    /// Ends every lookup (the connection ended): they answer nil.
    mutating func cancelAll() -> [Waiter] {
        let all = pending.values.flatMap(\.waiters)
        pending = [:]
        byNick = [:]
        return all
    }

    var isEmpty: Bool { pending.isEmpty }
}
