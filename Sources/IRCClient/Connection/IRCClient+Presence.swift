import IRCProtocol

/// Who is online: WHOIS lookups, the nicks watched with MONITOR or WATCH, and taking the configured
/// nick back as soon as it is free.
extension IRCClient {
    /// How the server reports that a watched nick went offline (nil before its ISUPPORT, or when it
    /// offers neither MONITOR nor WATCH).
    public var presenceNotification: PresenceNotification? { presence.notification }

    /// Asks the server who uses `nick` now (WHOIS): nil when nobody does, the client is not
    /// registered, or the server did not answer within ``IRCClientConfiguration/whoisTimeout``.
    public func whois(_ nick: String) async -> WhoisReply? {
        guard isRegistered, !nick.isEmpty, !nick.contains(" "), !nick.contains(",") else { return nil }
        let deadline = clock.now + configuration.whoisTimeout
        return await withCheckedContinuation { continuation in
            // Checked again here: the connection may have ended before this closure ran.
            guard isRegistered else { return continuation.resume(returning: nil) }
            if whoisLookups.ask(about: nick, waiter: continuation, deadline: deadline) {
                enqueue(IRCMessage(command: "WHOIS", parameters: [nick]))
            }
        }
    }

    /// Asks the server to say when nobody uses `nick` any more (MONITOR, else WATCH), until
    /// ``unwatchPresence(of:)`` or the end of the connection. False when it cannot: the server offers
    /// neither, or its list is full. A nick reported offline is taken off the list.
    public func watchPresence(of nick: String) -> Bool {
        guard isRegistered else { return false }
        if presence.isWatching(nick) { return true }
        guard let line = presence.add(nick) else { return false }
        enqueue(line)
        return true
    }

    /// Stops watching `nick` (the configured nick stays watched while the client is not using it).
    public func unwatchPresence(of nick: String) {
        guard isRegistered, !(configuredNickWatched && namesEqual(nick, configuration.nick)) else { return }
        if let line = presence.remove(nick) { enqueue(line) }
    }

    func serverSupportChanged(_ support: ServerSupport) {
        presence.update(support)
        whoisLookups.setCaseMapping(support.caseMapping)
    }

    func presenceReported(_ message: IRCMessage) {
        for change in presence.handle(message) {
            guard case .offline(let nick) = change else { continue }
            if namesEqual(nick, configuration.nick) {
                if !namesEqual(currentNick, configuration.nick) { takeConfiguredNickBack() }
                if message.command == "734" || message.command == "512" { configuredNickWatched = false }
                continue
            }
            if let line = presence.remove(nick) { enqueue(line) }
            emit(.identity(.offline(nick: nick)))
        }
    }

    func whoisReplied(_ message: IRCMessage) {
        for (waiters, reply) in whoisLookups.handle(message) {
            for waiter in waiters { waiter.resume(returning: reply) }
        }
    }

    /// 303 me :nick1 nick2 — the nicks of an ISON that are in use.
    func isonReplied(_ message: IRCMessage) {
        guard isRegistered, !namesEqual(currentNick, configuration.nick), message.parameters.count >= 2 else { return }
        let inUse = message.parameters[message.parameters.count - 1].split(separator: " ")
        if !inUse.contains(where: { namesEqual(String($0), configuration.nick) }) { takeConfiguredNickBack() }
    }

    private func takeConfiguredNickBack() {
        logger.info("The nick \(configuration.nick) is free again; taking it back")
        regainNick()
    }

    /// While on another nick: watch the configured one (MONITOR/WATCH), else ask with ISON every
    /// ``IRCClientConfiguration/Retry/nickCheckInterval``. Ends overdue WHOIS lookups.
    func presenceTick(at now: ContinuousClock.Instant) {
        for waiter in whoisLookups.expire(at: now) { waiter.resume(returning: nil) }
        guard isRegistered, !namesEqual(currentNick, configuration.nick) else { return }
        if !configuredNickWatched, presence.notification != nil {
            if presence.isWatching(configuration.nick) {
                configuredNickWatched = true
                return
            }
            if let line = presence.add(configuration.nick) {
                configuredNickWatched = true
                enqueue(line)
                return
            }
        }
        guard !configuredNickWatched else { return }
        if let due = nextConfiguredNickCheck, due > now { return }
        nextConfiguredNickCheck = now + configuration.retry.nickCheckInterval
        enqueue(IRCMessage(command: "ISON", parameters: [configuration.nick]))
    }

    /// A new connection, or none: the server's lists are gone and no WHOIS will be answered.
    func resetPresence() {
        presence.reset()
        configuredNickWatched = false
        nextConfiguredNickCheck = nil
        for waiter in whoisLookups.cancelAll() { waiter.resume(returning: nil) }
    }
}
