import IRCProtocol

/// Who is online: WHOIS lookups and the nicks watched with MONITOR or WATCH (the logic is in
/// ConnectionStateMachine+Presence.swift).
extension IRCClient {
    /// Asks the server who uses `nick` now (WHOIS): nil when nobody does, the client is not
    /// registered, or the server did not answer within ``IRCClientConfiguration/whoisTimeout``.
    public func whois(_ nick: String) async -> WhoisReply? {
        guard machine.isRegistered else { return nil }
        return await withCheckedContinuation { continuation in
            let id = whoisWaiters.add(continuation)
            perform(machine.askWhois(about: nick, waiter: id, at: clock.now))
        }
    }

    /// Asks the server to say when nobody uses `nick` any more (MONITOR, else WATCH), until
    /// ``unwatchPresence(of:)`` or the end of the connection. False when it cannot: the server offers
    /// neither, or its list is full. A nick reported offline is taken off the list.
    public func watchPresence(of nick: String) -> Bool {
        let (watched, actions) = machine.watchPresence(of: nick)
        perform(actions)
        return watched
    }

    /// Stops watching `nick` (the configured nick stays watched while the client is not using it).
    public func unwatchPresence(of nick: String) {
        perform(machine.unwatchPresence(of: nick))
    }
}
