import IRCProtocol

/// What the server answered a command the client sent on someone's behalf (an owner's `!join`).
public enum RequestOutcome: Sendable, Hashable {
    /// The server did it: the client's own JOIN or PART came back.
    case done
    /// The server refused, with a standard reply (`FAIL <command> <code> … :text`, `isStandardReply`)
    /// or an error numeric (`code` is then the numeric); `reason` is the server's text, one clean line.
    case refused(code: String, reason: String, isStandardReply: Bool)
    /// The server said nothing in time, or the client is not registered (the command goes out once it is).
    case noAnswer
}

/// Commands the client sent on someone's behalf, waiting for the server's word: done (the client's
/// own JOIN or PART comes back), refused (`FAIL` for that command, or an error numeric about that
/// channel), or nothing before the deadline. A `FAIL` with the label the command was sent with (where
/// the server acknowledged `labeled-response`) ends that very command; without one, it ends the
/// oldest waiting command of that name, the one whose channel the `FAIL` names first. A pure value:
/// the client keeps it and resumes the waiters it returns.
struct PendingRequests<Waiter: Sendable>: Sendable {
    /// The most commands waiting at once; past it the oldest ends without an answer.
    static var maximumWaiting: Int { 100 }

    private struct Request: Sendable {
        /// `JOIN` or `PART`.
        var command: String
        /// The channel, as asked for.
        var target: String
        var label: String?
        var deadline: ContinuousClock.Instant
        var waiter: Waiter
    }

    /// In the order sent.
    private var requests: [Request] = []
    private var caseMapping: CaseMapping = .rfc1459

    /// Numerics that refuse a JOIN of the channel they name (`<numeric> me #channel :text`).
    static var joinRefusals: Set<String> { ["403", "405", "471", "473", "474", "475", "476", "477", "489"] }
    /// Numerics that refuse a PART of the channel they name.
    static var partRefusals: Set<String> { ["403", "442"] }

    var isEmpty: Bool { requests.isEmpty }

    /// Follows the server's CASEMAPPING (channels are compared under it).
    mutating func setCaseMapping(_ mapping: CaseMapping) { caseMapping = mapping }

    /// Waits for the answer to `command` about `target`, sent with `label` if given; returns the
    /// waiter to end without an answer when too many wait.
    mutating func add(
        _ command: String, target: String, label: String?, waiter: Waiter, deadline: ContinuousClock.Instant
    ) -> Waiter? {
        requests.append(
            Request(
                command: command.uppercased(), target: target, label: label, deadline: deadline, waiter: waiter))
        guard requests.count > Self.maximumWaiting else { return nil }
        return requests.removeFirst().waiter
    }

    /// What one inbound line answers, with the label it answers (nil: none); `isOwnNick` says
    /// whether a nick is the client's.
    mutating func handle(
        _ message: IRCMessage, label: String?, isOwnNick: (String) -> Bool
    ) -> (waiter: Waiter, outcome: RequestOutcome, command: String, target: String)? {
        guard !requests.isEmpty else { return nil }
        let parameters = message.parameters
        switch message.command {
        case "FAIL":
            guard parameters.count >= 3 else { return nil }
            let command = parameters[0].uppercased()
            let context = parameters.dropFirst(2).dropLast().map { caseMapping.lowercased($0) }
            let index: Int?
            if let label {
                index = requests.firstIndex { $0.label == label && $0.command == command }
            } else {
                let candidates = requests.indices.filter {
                    requests[$0].command == command && requests[$0].label == nil
                }
                index =
                    candidates.first { context.contains(caseMapping.lowercased(requests[$0].target)) }
                    ?? candidates.first
            }
            guard let index else { return nil }
            let reason = TextSanitizer.untrusted(parameters[parameters.count - 1], maxBytes: 300)
            return take(index, .refused(code: parameters[1], reason: reason, isStandardReply: true))
        case "JOIN", "PART":
            guard let source = message.sourceNick, isOwnNick(source), let channel = parameters.first else { return nil }
            let target = caseMapping.lowercased(channel)
            guard
                let index = requests.firstIndex(where: {
                    $0.command == message.command && caseMapping.lowercased($0.target) == target
                })
            else { return nil }
            return take(index, .done)
        default:
            guard parameters.count >= 2 else { return nil }
            let target = caseMapping.lowercased(parameters[1])
            let refused = { (request: Request) in
                caseMapping.lowercased(request.target) == target
                    && ((request.command == "JOIN" && Self.joinRefusals.contains(message.command))
                        || (request.command == "PART" && Self.partRefusals.contains(message.command)))
            }
            guard let index = requests.firstIndex(where: refused) else { return nil }
            let reason = TextSanitizer.untrusted(parameters[parameters.count - 1], maxBytes: 300)
            return take(index, .refused(code: message.command, reason: reason, isStandardReply: false))
        }
    }

    private mutating func take(
        _ index: Int, _ outcome: RequestOutcome
    ) -> (waiter: Waiter, outcome: RequestOutcome, command: String, target: String) {
        let request = requests.remove(at: index)
        return (request.waiter, outcome, request.command, request.target)
    }

    /// Ends the commands whose deadline has passed: they had no answer.
    mutating func expire(at now: ContinuousClock.Instant) -> [Waiter] {
        let overdue = requests.filter { $0.deadline <= now }.map(\.waiter)
        requests.removeAll { $0.deadline <= now }
        return overdue
    }

    /// Ends every waiting command (the connection ended).
    mutating func cancelAll() -> [Waiter] {
        defer { requests = [] }
        return requests.map(\.waiter)
    }
}
