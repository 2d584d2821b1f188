import IRCProtocol

/// Tracks the members of the channels the client is in and everything known about each user's identity.
///
/// Fed every inbound message (``apply(_:ownNick:)``): JOIN (with the extended-join account), NAMES (353,
/// multi-prefix and userhost-in-names entries), WHO (352) and WHOX (354) replies, PART, KICK, QUIT, NICK,
/// ACCOUNT, CHGHOST and the `account` message tag. Nicks and channel names are compared with the server's
/// casemapping. A user is forgotten once they share no channel with the client.
///
/// What a server can make it hold is bounded: at most ``maximumChannels`` channels and
/// ``maximumUsers`` users in all (a class of tens of thousands fits); past either, what is new is not
/// tracked (the client then asks WHOIS when it needs someone's identity), and ``takeLimitNotice()``
/// says so once.
public struct IdentityTracker: Sendable {
    /// The most channels tracked.
    public static let maximumChannels = 200
    /// The most users tracked, over every channel.
    public static let maximumUsers = 100_000

    struct TrackedChannel: Sendable {
        var name: String
        /// Folded nick → prefix symbols.
        var members: [String: String] = [:]
    }

    /// The server's ISUPPORT values in use (casemapping, prefixes).
    public private(set) var serverSupport: ServerSupport
    private var users: [String: UserIdentity] = [:]
    private var channels: [String: TrackedChannel] = [:]
    /// Folded nicks of users whose NAMES list is being received, per folded channel.
    private var namesInProgress: Set<String> = []
    /// Nicks the last ``apply(_:ownNick:)`` stopped tracking (no shared channel left).
    private var forgotten: [String] = []
    /// What reached a bound and was not tracked, not yet said; and whether it was ever said.
    private var limitNotice: String?
    private var limitNoticed = false

    /// Once, after a bound was first reached: what was not tracked (for the log).
    public mutating func takeLimitNotice() -> String? {
        defer { limitNotice = nil }
        return limitNotice
    }

    /// Notes that `what` was not tracked because a bound was reached (said once).
    private mutating func overflowed(_ what: String) {
        guard !limitNoticed else { return }
        limitNoticed = true
        limitNotice = what
    }

    /// Whether a user not tracked yet may be: the bound of users is not reached.
    private mutating func mayTrackNewUser(_ key: String) -> Bool {
        guard users[key] == nil, users.count >= Self.maximumUsers else { return true }
        overflowed("more than \(Self.maximumUsers) users in the channels; the others are not tracked")
        return false
    }

    public init(serverSupport: ServerSupport = ServerSupport()) {
        self.serverSupport = serverSupport
    }

    // MARK: Queries

    /// What is known about `nick`, or `nil` for a user the client shares no channel with.
    public func identity(ofNick nick: String) -> UserIdentity? {
        users[fold(nick)]
    }

    /// The members of `channel`, or `nil` when the client is not in it.
    public func members(ofChannel channel: String) -> [ChannelMember]? {
        guard let tracked = channels[fold(channel)] else { return nil }
        return tracked.members.map { folded, prefixes in
            ChannelMember(nick: users[folded]?.nick ?? folded, prefixes: prefixes)
        }.sorted { $0.nick < $1.nick }
    }

    /// Channels the client is in (names as the server spelled them).
    public var channelNames: [String] {
        channels.values.map(\.name).sorted()
    }

    /// Whether the client is in `channel`.
    public func isInChannel(_ channel: String) -> Bool {
        channels[fold(channel)] != nil
    }

    /// Channels shared with `nick`.
    public func channels(of nick: String) -> [String] {
        let folded = fold(nick)
        return channels.values.filter { $0.members[folded] != nil }.map(\.name).sorted()
    }

    /// The membership prefixes of `nick` in `channel` (`nil` when not a member).
    public func prefixes(of nick: String, in channel: String) -> String? {
        channels[fold(channel)]?.members[fold(nick)]
    }

    // MARK: Updates

    /// Uses new ISUPPORT values, re-keying everything if the casemapping changed.
    public mutating func updateServerSupport(_ support: ServerSupport) {
        let remap = support.caseMapping != serverSupport.caseMapping
        serverSupport = support
        guard remap else { return }
        var newUsers: [String: UserIdentity] = [:]
        for identity in users.values { newUsers[fold(identity.nick)] = identity }
        var newChannels: [String: TrackedChannel] = [:]
        for channel in channels.values {
            var rekeyed = TrackedChannel(name: channel.name)
            for (folded, prefixes) in channel.members {
                rekeyed.members[fold(users[folded]?.nick ?? folded)] = prefixes
            }
            newChannels[fold(channel.name)] = rekeyed
        }
        users = newUsers
        channels = newChannels
    }

    /// Forgets everything (on disconnect).
    public mutating func reset() {
        users = [:]
        channels = [:]
        namesInProgress = []
    }

    /// Applies one inbound message. `ownNick` is the client's nick at that moment. Returns what changed
    /// for users other than the client itself.
    @discardableResult
    public mutating func apply(_ message: IRCMessage, ownNick: String) -> [IdentityEvent] {
        var events: [IdentityEvent] = []
        let known = users.count
        if let event = applyChanges(of: message, ownNick: ownNick) { events.append(event) }
        if users.count < known, ["PART", "KICK", "366"].contains(message.command) {
            events += forgotten.map { IdentityEvent.lostSight(nick: $0) }
        }
        forgotten = []
        return events
    }

    /// Applies the `account` tag, then the command itself; returns the event it makes, if any.
    private mutating func applyChanges(of message: IRCMessage, ownNick: String) -> IdentityEvent? {
        let source = message.sourceIdentity
        let parameters = message.parameters
        if let source, let account = message.tags["account"], !source.nick.isEmpty {
            update(nick: source.nick) { $0.account = account }
        }
        switch message.command {
        case "JOIN":
            guard let source, let channel = parameters.first else { return nil }
            applyJoin(of: source, to: channel, message: message, ownNick: ownNick)
        case "PART":
            guard let source, let channel = parameters.first else { return nil }
            removeMember(source.nick, from: channel, isSelf: serverSupport.namesEqual(source.nick, ownNick))
        case "KICK":
            guard parameters.count >= 2 else { return nil }
            removeMember(
                parameters[1],
                from: parameters[0],
                isSelf: serverSupport.namesEqual(parameters[1], ownNick)
            )
        case "QUIT":
            guard let source else { return nil }
            return applyQuit(of: source, ownNick: ownNick)
        case "NICK":
            guard let source, let newNick = parameters.first else { return nil }
            return applyNickChange(of: source, to: newNick, ownNick: ownNick)
        case "ACCOUNT":
            guard let source, let account = parameters.first else { return nil }
            return applyAccount(account, of: source.nick)
        case "CHGHOST":
            // Sent for users in a shared channel and, with extended-monitor, for nicks watched with
            // MONITOR: the event reaches whoever follows the connection either way.
            guard let source, parameters.count >= 2, !parameters[0].isEmpty, !parameters[1].isEmpty else { return nil }
            update(nick: source.nick) {
                $0.user = parameters[0]
                $0.host = parameters[1]
            }
            guard !serverSupport.namesEqual(source.nick, ownNick) else { return nil }
            return .hostChanged(nick: source.nick, user: parameters[0], host: parameters[1])
        case "PRIVMSG", "NOTICE":
            guard let source, source.user != nil || source.host != nil else { return nil }
            update(nick: source.nick) {
                $0.user = source.user ?? $0.user
                $0.host = source.host ?? $0.host
            }
        case "353":
            applyNamesReply(parameters)
        case "366":
            guard parameters.count >= 2 else { return nil }
            namesInProgress.remove(fold(parameters[1]))
            pruneUsers()
        case "352":
            applyWhoReply(parameters)
        case "354":
            applyWhoxReply(parameters)
        default:
            break
        }
        return nil
    }

    /// JOIN (with the extended-join account): the client's own join starts tracking the channel; anyone's
    /// join to a tracked channel adds them as a member.
    private mutating func applyJoin(of source: IRCSource, to channel: String, message: IRCMessage, ownNick: String) {
        let channelKey = fold(channel)
        let nickKey = fold(source.nick)
        if serverSupport.namesEqual(source.nick, ownNick) {
            guard channels[channelKey] != nil || channels.count < Self.maximumChannels else {
                return overflowed("more than \(Self.maximumChannels) channels joined; the others are not tracked")
            }
            channels[channelKey] = TrackedChannel(name: channel)
        }
        guard channels[channelKey] != nil, mayTrackNewUser(nickKey) else { return }
        var identity = Self.identity(
            users[nickKey] ?? UserIdentity(nick: source.nick), nick: source.nick, seenIn: source)
        if message.parameters.count >= 2 {
            // extended-join: JOIN #channel account :realname
            identity.account = message.parameters[1] == "*" ? nil : message.parameters[1]
        }
        if let tagged = message.tags["account"] { identity.account = tagged }
        users[nickKey] = identity
        channels[channelKey]?.members[nickKey] = ""
    }

    /// QUIT: the user leaves every channel and is forgotten.
    private mutating func applyQuit(of source: IRCSource, ownNick: String) -> IdentityEvent? {
        let folded = fold(source.nick)
        var event: IdentityEvent?
        if let known = users[folded], !serverSupport.namesEqual(source.nick, ownNick) {
            event = .quit(nick: known.nick, user: source.user ?? known.user, host: source.host ?? known.host)
        }
        for key in channels.keys { channels[key]?.members.removeValue(forKey: folded) }
        users.removeValue(forKey: folded)
        return event
    }

    /// NICK: the user's identity and channel memberships move to the new nick.
    private mutating func applyNickChange(of source: IRCSource, to newNick: String, ownNick: String) -> IdentityEvent? {
        let oldKey = fold(source.nick)
        let newKey = fold(newNick)
        let identity = Self.identity(
            users.removeValue(forKey: oldKey) ?? UserIdentity(nick: newNick),
            nick: newNick,
            seenIn: source
        )
        let isKnown = channels.values.contains { $0.members[oldKey] != nil }
        var event: IdentityEvent?
        if isKnown, !serverSupport.namesEqual(source.nick, ownNick) {
            event = .nickChanged(from: source.nick, to: newNick, user: identity.user, host: identity.host)
        }
        for key in channels.keys {
            if let prefixes = channels[key]?.members.removeValue(forKey: oldKey) {
                channels[key]?.members[newKey] = prefixes
            }
        }
        if isKnown || serverSupport.namesEqual(newNick, ownNick) { users[newKey] = identity }
        return event
    }

    /// ACCOUNT (`*` when the user logged out).
    private mutating func applyAccount(_ account: String, of nick: String) -> IdentityEvent {
        let account = account == "*" ? nil : account
        update(nick: nick) { $0.account = account }
        return .accountChanged(nick: nick, account: account)
    }

    /// 353 (NAMES): the first reply of a list replaces the channel's members; entries may carry several
    /// prefixes (multi-prefix) and `user@host` (userhost-in-names).
    private mutating func applyNamesReply(_ parameters: [String]) {
        // 353 me = #channel :[prefixes]nick[!user@host] ...
        guard parameters.count >= 4 else { return }
        let channelKey = fold(parameters[parameters.count - 2])
        guard channels[channelKey] != nil else { return }
        if !namesInProgress.contains(channelKey) {
            namesInProgress.insert(channelKey)
            channels[channelKey]?.members = [:]
        }
        for entry in parameters[parameters.count - 1].split(separator: " ") {
            let (symbols, rest) = serverSupport.splitPrefixes(String(entry))
            guard !rest.isEmpty else { continue }
            let parsed = IRCSource(parsing: rest)
            let key = fold(parsed.nick)
            guard mayTrackNewUser(key) else { continue }
            users[key] = Self.identity(users[key] ?? UserIdentity(nick: parsed.nick), nick: parsed.nick, seenIn: parsed)
            channels[channelKey]?.members[key] = symbols
        }
    }

    /// 352 (WHO): the user and host of a member, and its channel prefixes (the flags after `H`/`G`
    /// and `*`). A member the NAMES list did not name (a server with `no-implicit-names` sends none
    /// on JOIN) is added to the tracked channel.
    private mutating func applyWhoReply(_ parameters: [String]) {
        // 352 me #channel user host server nick flags :hopcount realname
        guard parameters.count >= 7 else { return }
        let prefixes = String(
            parameters[6].drop { "HG*".contains($0) }.filter { serverSupport.prefixSymbols.contains($0) })
        addMember(parameters[5], to: parameters[1], prefixes: prefixes)
        update(nick: parameters[5]) {
            $0.user = parameters[2]
            $0.host = parameters[3]
        }
    }

    /// 354 (WHOX), only in reply to the client's own query: the user, host and account of a member
    /// (added to the tracked channel when the NAMES list did not name it).
    private mutating func applyWhoxReply(_ parameters: [String]) {
        // WHOX reply to "WHO #channel %tcuhna,152": 354 me 152 #channel user host nick account
        guard parameters.count >= 7, parameters[1] == Self.whoxToken else { return }
        addMember(parameters[5], to: parameters[2], prefixes: nil)
        update(nick: parameters[5]) {
            $0.user = parameters[3]
            $0.host = parameters[4]
            $0.account = parameters[6] == "0" ? nil : parameters[6]
        }
    }

    /// A member a WHO reply names in a tracked channel: added when not known there, its prefixes
    /// set when the reply gives them (nil keeps what NAMES or MODE said).
    private mutating func addMember(_ nick: String, to channel: String, prefixes: String?) {
        let channelKey = fold(channel)
        let nickKey = fold(nick)
        guard channels[channelKey] != nil, !nick.isEmpty else { return }
        if channels[channelKey]?.members[nickKey] == nil {
            guard mayTrackNewUser(nickKey) else { return }
            if users[nickKey] == nil { users[nickKey] = UserIdentity(nick: nick) }
            channels[channelKey]?.members[nickKey] = prefixes ?? ""
        } else if let prefixes {
            channels[channelKey]?.members[nickKey] = prefixes
        }
    }

    /// The token used in WHOX requests, so replies to others' queries are not mistaken for ours.
    public static let whoxToken = "152"

    /// The WHO request to send after joining `channel`: WHOX (with accounts) when the server supports it.
    public func whoRequest(for channel: String) -> IRCMessage {
        if serverSupport["WHOX"] != nil {
            return IRCMessage(command: "WHO", parameters: [channel, "%tcuhna,\(Self.whoxToken)"])
        }
        return IRCMessage(command: "WHO", parameters: [channel])
    }

    // MARK: Internals

    private func fold(_ name: String) -> String {
        serverSupport.caseMapping.lowercased(name)
    }

    /// `identity` under `nick`, with the user and host `source` shows (those known are kept where it
    /// shows none).
    private static func identity(_ identity: UserIdentity, nick: String, seenIn source: IRCSource) -> UserIdentity {
        var identity = identity
        identity.nick = nick
        identity.user = source.user ?? identity.user
        identity.host = source.host ?? identity.host
        return identity
    }

    /// Updates a known user (one sharing a channel); unknown users are not added.
    private mutating func update(nick: String, _ change: (inout UserIdentity) -> Void) {
        let key = fold(nick)
        guard var identity = users[key] else { return }
        change(&identity)
        users[key] = identity
    }

    private mutating func removeMember(_ nick: String, from channel: String, isSelf: Bool) {
        let channelKey = fold(channel)
        if isSelf {
            channels.removeValue(forKey: channelKey)
            namesInProgress.remove(channelKey)
            pruneUsers(keeping: fold(nick))
            return
        }
        let nickKey = fold(nick)
        channels[channelKey]?.members.removeValue(forKey: nickKey)
        pruneUsers()
    }

    private mutating func pruneUsers(keeping kept: String? = nil) {
        var present: Set<String> = []
        for channel in channels.values { present.formUnion(channel.members.keys) }
        if let kept { present.insert(kept) }
        for (key, identity) in users where !present.contains(key) { forgotten.append(identity.nick) }
        users = users.filter { present.contains($0.key) }
    }
}
