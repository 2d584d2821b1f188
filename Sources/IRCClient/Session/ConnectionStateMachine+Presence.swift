import IRCProtocol

/// Who is online: WHOIS lookups, the nicks watched with MONITOR or WATCH, and taking the configured
/// nick back as soon as it is free. All of it exists only while registered
/// (``ConnectionPhase/Registered``).
extension ConnectionStateMachine {
    typealias Registered = ConnectionPhase.Registered

    /// Asks the server who uses `nick` now, for the shell's `waiter`; answered nil at once when the
    /// client is not registered or `nick` cannot be one. Where the server acknowledged
    /// `labeled-response` and `batch`, the WHOIS carries a label and only the answer with that label
    /// counts (see ``WhoisLookups``).
    mutating func askWhois(about nick: String, waiter: Int, at now: ContinuousClock.Instant) -> [RequestAction] {
        guard case .registered(let link, var registered) = phase, !nick.isEmpty, !nick.contains(" "),
            !nick.contains(",")
        else {
            return [.answerWhoisNow(waiter: waiter)]
        }
        let label = labelsQueries && !registered.whoisLookups.isAsking(about: nick) ? responseLabels.next() : nil
        let asked = registered.whoisLookups.ask(
            about: nick, waiter: waiter, deadline: now + configuration.whoisTimeout, label: label)
        phase = .registered(link, registered)
        guard asked else { return [] }
        return [.enqueue(IRCMessage(tags: label.map { ["label": $0] } ?? [:], command: "WHOIS", parameters: [nick]))]
    }

    /// Whether the client labels its queries on this connection (`labeled-response` with `batch`).
    var labelsQueries: Bool {
        let enabled = enabledCapabilities
        return enabled.contains("labeled-response") && enabled.contains("batch")
    }

    /// While registered: whether the configured nick is watched (MONITOR/WATCH) because the client
    /// is not using it.
    var configuredNickWatched: Bool { phase.registered?.configuredNickWatched ?? false }
    /// While registered on another nick: when the configured one is asked for again.
    var nextNickRegain: ContinuousClock.Instant? { phase.registered?.nextNickRegain }

    /// Watches `nick` with MONITOR or WATCH: false when the client is not registered, the server
    /// offers neither, or its list is full.
    mutating func watchPresence(of nick: String) -> (watched: Bool, actions: [RequestAction]) {
        guard case .registered(let link, var registered) = phase else { return (false, []) }
        if registered.presence.isWatching(nick) { return (true, []) }
        guard let line = registered.presence.add(nick) else { return (false, []) }
        phase = .registered(link, registered)
        return (true, [.enqueue(line)])
    }

    /// Stops watching `nick` (the configured nick stays watched while the client is not using it).
    mutating func unwatchPresence(of nick: String) -> [RequestAction] {
        guard case .registered(let link, var registered) = phase,
            !(registered.configuredNickWatched && namesEqual(nick, configuration.nick)),
            let line = registered.presence.remove(nick)
        else { return [] }
        phase = .registered(link, registered)
        return [.enqueue(line)]
    }

    func presenceReported(
        _ message: IRCMessage, at now: ContinuousClock.Instant, in registered: inout Registered,
        into actions: inout [LineAction]
    ) {
        for change in registered.presence.handle(message) {
            guard case .offline(let nick) = change else { continue }
            if namesEqual(nick, configuration.nick) {
                if !namesEqual(currentNick, configuration.nick) {
                    log(.info, "The nick \(configuration.nick) is free again; taking it back", into: &actions)
                    regainNick(at: now, in: &registered, into: &actions)
                }
                if message.command == "734" || message.command == "512" { registered.configuredNickWatched = false }
                continue
            }
            if let line = registered.presence.remove(nick) { actions.append(.enqueue(line)) }
            actions.append(.emit(.identity(.offline(nick: nick))))
        }
    }

    /// A line of a WHOIS answer, with the label of the query it answers (nil: matched by nick).
    func whoisReplied(
        _ message: IRCMessage, label: String?, in registered: inout Registered, into actions: inout [LineAction]
    ) {
        for (waiters, reply) in registered.whoisLookups.handle(message, label: label) {
            actions.append(.answerWhois(waiters: waiters, reply: reply))
        }
    }

    /// The server has said all it will for the query labeled `label`.
    func labeledAnswerEnded(_ label: String, in registered: inout Registered, into actions: inout [LineAction]) {
        for (waiters, reply) in registered.whoisLookups.labelEnded(label) {
            actions.append(.answerWhois(waiters: waiters, reply: reply))
        }
    }

    /// 303 me :nick1 nick2 — the nicks of an ISON that are in use.
    func isonReplied(
        _ message: IRCMessage, at now: ContinuousClock.Instant, in registered: inout Registered,
        into actions: inout [LineAction]
    ) {
        guard !namesEqual(currentNick, configuration.nick), message.parameters.count >= 2 else { return }
        let inUse = message.parameters[message.parameters.count - 1].split(separator: " ")
        if !inUse.contains(where: { namesEqual(String($0), configuration.nick) }) {
            log(.info, "The nick \(configuration.nick) is free again; taking it back", into: &actions)
            regainNick(at: now, in: &registered, into: &actions)
        }
    }

    /// Asks for the configured nick again (and again every ``IRCClientConfiguration/Retry/nickRegainInterval``
    /// until the client has it).
    func regainNick<Action: UpkeepAction>(
        at now: ContinuousClock.Instant, in registered: inout Registered, into actions: inout [Action]
    ) {
        guard !namesEqual(currentNick, configuration.nick) else { return }
        log(.info, "Trying to regain the nick \(configuration.nick)", into: &actions)
        actions.append(.enqueue(.nick(configuration.nick)))
        registered.nextNickRegain = now + configuration.retry.nickRegainInterval
    }

    /// While on another nick: watch the configured one (MONITOR/WATCH), else ask with ISON every
    /// ``IRCClientConfiguration/Retry/nickCheckInterval``. Ends overdue WHOIS lookups.
    func presenceTick(
        at now: ContinuousClock.Instant, in registered: inout Registered, into actions: inout [TickAction]
    ) {
        let overdue = registered.whoisLookups.expire(at: now)
        if !overdue.isEmpty { actions.append(.answerWhois(waiters: overdue, reply: nil)) }
        let unanswered = registered.pendingRequests.expire(at: now)
        if !unanswered.isEmpty { actions.append(.answerRequest(waiters: unanswered, outcome: .noAnswer)) }
        guard !namesEqual(currentNick, configuration.nick) else { return }
        if !registered.configuredNickWatched, registered.presence.notification != nil {
            if registered.presence.isWatching(configuration.nick) {
                registered.configuredNickWatched = true
                return
            }
            if let line = registered.presence.add(configuration.nick) {
                registered.configuredNickWatched = true
                actions.append(.enqueue(line))
                return
            }
        }
        guard !registered.configuredNickWatched else { return }
        if let due = registered.nextConfiguredNickCheck, due > now { return }
        registered.nextConfiguredNickCheck = now + configuration.retry.nickCheckInterval
        actions.append(.enqueue(IRCMessage(command: "ISON", parameters: [configuration.nick])))
    }
}
