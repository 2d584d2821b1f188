import IRCProtocol

/// The commands the client sends on someone's behalf and waits for the server's word on: an
/// owner's JOIN and PART, answered by their echo, a `FAIL`, an error numeric or nothing (see
/// ``PendingRequests``).
extension ConnectionStateMachine {
    /// Joins `channel` now (if registered) and after every reconnect, for the shell's `waiter`, who
    /// learns what the server answers (see ``PendingRequests``).
    mutating func joinRequested(
        _ channel: String, key: String?, waiter: Int, at now: ContinuousClock.Instant
    ) -> [RequestAction] {
        channels.want(.init(channel, key: key))
        return request(.join(channel, key: key), about: channel, waiter: waiter, at: now)
    }

    /// Leaves `channel` and stops rejoining it, for the shell's `waiter`, who learns what the server
    /// answers.
    mutating func partRequested(
        _ channel: String, reason: String?, waiter: Int, at now: ContinuousClock.Instant
    ) -> [RequestAction] {
        channels.forget(channel)
        return request(.part(channel, reason: reason), about: channel, waiter: waiter, at: now)
    }

    /// Queues `message` (labeled where the server answers labels) and waits for its answer; answered
    /// `.noAnswer` at once when the client is not registered.
    private mutating func request(
        _ message: IRCMessage, about target: String, waiter: Int, at now: ContinuousClock.Instant
    ) -> [RequestAction] {
        guard case .registered(let link, var registered) = phase else {
            return [.answerRequest(waiter: waiter, outcome: .noAnswer)]
        }
        var message = message
        let label = labelsQueries ? responseLabels.next() : nil
        if let label { message.tags["label"] = label }
        var actions: [RequestAction] = []
        if let dropped = registered.pendingRequests.add(
            message.command, target: target, label: label, waiter: waiter, deadline: now + configuration.requestTimeout)
        {
            actions.append(.answerRequest(waiter: dropped, outcome: .noAnswer))
        }
        phase = .registered(link, registered)
        actions.append(.enqueue(message))
        return actions
    }

    /// Ends the command sent on someone's behalf that `message` answers, if any. A `FAIL JOIN` also
    /// stops the client wanting that channel: it would be refused again after every reconnect.
    mutating func requestAnswered(
        by message: IRCMessage, label: String?, ownNick: String, in registered: inout Registered,
        into actions: inout [LineAction]
    ) {
        guard !registered.pendingRequests.isEmpty else { return }
        let support = identityTracker.serverSupport
        guard
            let answered = registered.pendingRequests.handle(
                message, label: label, isOwnNick: { support.namesEqual($0, ownNick) })
        else { return }
        if case .refused(_, _, true) = answered.outcome, answered.command == "JOIN" {
            channels.forget(answered.target)
        }
        actions.append(.answerRequest(waiters: [answered.waiter], outcome: answered.outcome))
    }
}
