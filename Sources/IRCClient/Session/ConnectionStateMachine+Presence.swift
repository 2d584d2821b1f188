import IRCProtocol

/// Who is online: WHOIS lookups, the nicks watched with MONITOR or WATCH, and taking the configured
/// nick back as soon as it is free.
extension ConnectionStateMachine {
    /// Asks the server who uses `nick` now, for the shell's `waiter`; answered nil at once when the
    /// client is not registered or `nick` cannot be one. Where the server acknowledged
    /// `labeled-response` and `batch`, the WHOIS carries a label and only the answer with that label
    /// counts (see ``WhoisLookups``).
    mutating func askWhois(about nick: String, waiter: Int, at now: ContinuousClock.Instant) -> [ConnectionAction] {
        guard isRegistered, !nick.isEmpty, !nick.contains(" "), !nick.contains(",") else {
            return [.answerWhois(waiters: [waiter], reply: nil)]
        }
        let label = labelsQueries && !whoisLookups.isAsking(about: nick) ? responseLabels.next() : nil
        guard whoisLookups.ask(about: nick, waiter: waiter, deadline: now + configuration.whoisTimeout, label: label)
        else { return [] }
        return [.enqueue(IRCMessage(tags: label.map { ["label": $0] } ?? [:], command: "WHOIS", parameters: [nick]))]
    }

    /// Whether the client labels its queries on this connection (`labeled-response` with `batch`).
    var labelsQueries: Bool {
        let enabled = enabledCapabilities
        return enabled.contains("labeled-response") && enabled.contains("batch")
    }

    /// Watches `nick` with MONITOR or WATCH: false when the client is not registered, the server
    /// offers neither, or its list is full.
    mutating func watchPresence(of nick: String) -> (watched: Bool, actions: [ConnectionAction]) {
        guard isRegistered else { return (false, []) }
        if presence.isWatching(nick) { return (true, []) }
        guard let line = presence.add(nick) else { return (false, []) }
        return (true, [.enqueue(line)])
    }

    /// Stops watching `nick` (the configured nick stays watched while the client is not using it).
    mutating func unwatchPresence(of nick: String) -> [ConnectionAction] {
        guard isRegistered, !(configuredNickWatched && namesEqual(nick, configuration.nick)),
            let line = presence.remove(nick)
        else { return [] }
        return [.enqueue(line)]
    }

    mutating func serverSupportChanged(_ support: ServerSupport) {
        presence.update(support)
        whoisLookups.setCaseMapping(support.caseMapping)
        pendingRequests.setCaseMapping(support.caseMapping)
    }

    mutating func presenceReported(
        _ message: IRCMessage, at now: ContinuousClock.Instant, into actions: inout [ConnectionAction]
    ) {
        for change in presence.handle(message) {
            guard case .offline(let nick) = change else { continue }
            if namesEqual(nick, configuration.nick) {
                if !namesEqual(currentNick, configuration.nick) { takeConfiguredNickBack(at: now, into: &actions) }
                if message.command == "734" || message.command == "512" { configuredNickWatched = false }
                continue
            }
            if let line = presence.remove(nick) { actions.append(.enqueue(line)) }
            actions.append(.emit(.identity(.offline(nick: nick))))
        }
    }

    /// A line of a WHOIS answer, with the label of the query it answers (nil: matched by nick).
    mutating func whoisReplied(_ message: IRCMessage, label: String?, into actions: inout [ConnectionAction]) {
        for (waiters, reply) in whoisLookups.handle(message, label: label) {
            actions.append(.answerWhois(waiters: waiters, reply: reply))
        }
    }

    /// The server has said all it will for the query labeled `label`.
    mutating func labeledAnswerEnded(_ label: String, into actions: inout [ConnectionAction]) {
        for (waiters, reply) in whoisLookups.labelEnded(label) {
            actions.append(.answerWhois(waiters: waiters, reply: reply))
        }
    }

    /// 303 me :nick1 nick2 — the nicks of an ISON that are in use.
    mutating func isonReplied(
        _ message: IRCMessage, at now: ContinuousClock.Instant, into actions: inout [ConnectionAction]
    ) {
        guard isRegistered, !namesEqual(currentNick, configuration.nick), message.parameters.count >= 2 else { return }
        let inUse = message.parameters[message.parameters.count - 1].split(separator: " ")
        if !inUse.contains(where: { namesEqual(String($0), configuration.nick) }) {
            takeConfiguredNickBack(at: now, into: &actions)
        }
    }

    /// Asks for the configured nick again (and again every ``IRCClientConfiguration/Retry/nickRegainInterval``
    /// until the client has it).
    mutating func regainNick(at now: ContinuousClock.Instant, into actions: inout [ConnectionAction]) {
        guard isRegistered, !namesEqual(currentNick, configuration.nick) else { return }
        logger.info("Trying to regain the nick \(configuration.nick)")
        actions.append(.enqueue(.nick(configuration.nick)))
        nextNickRegain = now + configuration.retry.nickRegainInterval
    }

    private mutating func takeConfiguredNickBack(
        at now: ContinuousClock.Instant, into actions: inout [ConnectionAction]
    ) {
        logger.info("The nick \(configuration.nick) is free again; taking it back")
        regainNick(at: now, into: &actions)
    }

    /// While on another nick: watch the configured one (MONITOR/WATCH), else ask with ISON every
    /// ``IRCClientConfiguration/Retry/nickCheckInterval``. Ends overdue WHOIS lookups.
    mutating func presenceTick(at now: ContinuousClock.Instant, into actions: inout [ConnectionAction]) {
        let overdue = whoisLookups.expire(at: now)
        if !overdue.isEmpty { actions.append(.answerWhois(waiters: overdue, reply: nil)) }
        let unanswered = pendingRequests.expire(at: now)
        if !unanswered.isEmpty { actions.append(.answerRequest(waiters: unanswered, outcome: .noAnswer)) }
        guard isRegistered, !namesEqual(currentNick, configuration.nick) else { return }
        if !configuredNickWatched, presence.notification != nil {
            if presence.isWatching(configuration.nick) {
                configuredNickWatched = true
                return
            }
            if let line = presence.add(configuration.nick) {
                configuredNickWatched = true
                actions.append(.enqueue(line))
                return
            }
        }
        guard !configuredNickWatched else { return }
        if let due = nextConfiguredNickCheck, due > now { return }
        nextConfiguredNickCheck = now + configuration.retry.nickCheckInterval
        actions.append(.enqueue(IRCMessage(command: "ISON", parameters: [configuration.nick])))
    }

    /// A new connection, or none: the server's lists are gone and no WHOIS will be answered.
    mutating func resetPresence(into actions: inout [ConnectionAction]) {
        presence.reset()
        configuredNickWatched = false
        nextConfiguredNickCheck = nil
        let waiters = whoisLookups.cancelAll()
        if !waiters.isEmpty { actions.append(.answerWhois(waiters: waiters, reply: nil)) }
        let requests = pendingRequests.cancelAll()
        if !requests.isEmpty { actions.append(.answerRequest(waiters: requests, outcome: .noAnswer)) }
    }
}
