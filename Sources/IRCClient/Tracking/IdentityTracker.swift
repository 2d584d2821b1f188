import IRCProtocol

/// Tracks the members of the channels the client is in and everything known about each user's identity.
///
/// Fed every inbound message (``apply(_:ownNick:)``): JOIN (with the extended-join account), NAMES (353,
/// multi-prefix and userhost-in-names entries), WHO (352) and WHOX (354) replies, PART, KICK, QUIT, NICK,
/// ACCOUNT, CHGHOST and the `account` message tag. Nicks and channel names are compared with the server's
/// casemapping. A user is forgotten once they share no channel with the client.
public struct IdentityTracker: Sendable {
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

    /// Number of users tracked.
    public var userCount: Int { users.count }

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
        applyChanges(of: message, ownNick: ownNick, events: &events)
        if users.count < known, ["PART", "KICK", "366"].contains(message.command) {
            events += forgotten.map { IdentityEvent.lostSight(nick: $0) }
        }
        forgotten = []
        return events
    }

    private mutating func applyChanges(of message: IRCMessage, ownNick: String, events: inout [IdentityEvent]) {
        let source = message.sourceIdentity
        let parameters = message.parameters
        if let source, let account = message.tags["account"], !source.nick.isEmpty {
            update(nick: source.nick) { $0.account = account }
        }
        switch message.command {
        case "JOIN":
            guard let source, let channel = parameters.first else { return }
            let isSelf = serverSupport.namesEqual(source.nick, ownNick)
            let channelKey = fold(channel)
            let nickKey = fold(source.nick)
            if isSelf { channels[channelKey] = TrackedChannel(name: channel) }
            guard channels[channelKey] != nil else { return }
            var identity = users[fold(source.nick)] ?? UserIdentity(nick: source.nick)
            identity.nick = source.nick
            identity.user = source.user ?? identity.user
            identity.host = source.host ?? identity.host
            if parameters.count >= 2 {
                // extended-join: JOIN #channel account :realname
                identity.account = parameters[1] == "*" ? nil : parameters[1]
            }
            if let tagged = message.tags["account"] { identity.account = tagged }
            users[nickKey] = identity
            channels[channelKey]?.members[nickKey] = ""
        case "PART":
            guard let source, let channel = parameters.first else { return }
            removeMember(source.nick, from: channel, isSelf: serverSupport.namesEqual(source.nick, ownNick))
        case "KICK":
            guard parameters.count >= 2 else { return }
            removeMember(
                parameters[1],
                from: parameters[0],
                isSelf: serverSupport.namesEqual(parameters[1], ownNick)
            )
        case "QUIT":
            guard let source else { return }
            let folded = fold(source.nick)
            if let known = users[folded], !serverSupport.namesEqual(source.nick, ownNick) {
                events.append(.quit(nick: known.nick, user: source.user ?? known.user, host: source.host ?? known.host))
            }
            for key in channels.keys { channels[key]?.members.removeValue(forKey: folded) }
            users.removeValue(forKey: folded)
        case "NICK":
            guard let source, let newNick = parameters.first else { return }
            let oldKey = fold(source.nick)
            let newKey = fold(newNick)
            var identity = users.removeValue(forKey: oldKey) ?? UserIdentity(nick: newNick)
            identity.nick = newNick
            identity.user = source.user ?? identity.user
            identity.host = source.host ?? identity.host
            let isKnown = channels.values.contains { $0.members[oldKey] != nil }
            if isKnown, !serverSupport.namesEqual(source.nick, ownNick) {
                events.append(.nickChanged(from: source.nick, to: newNick, user: identity.user, host: identity.host))
            }
            for key in channels.keys {
                if let prefixes = channels[key]?.members.removeValue(forKey: oldKey) {
                    channels[key]?.members[newKey] = prefixes
                }
            }
            if isKnown || serverSupport.namesEqual(newNick, ownNick) { users[newKey] = identity }
        case "ACCOUNT":
            guard let source, let account = parameters.first else { return }
            update(nick: source.nick) { $0.account = account == "*" ? nil : account }
            events.append(.accountChanged(nick: source.nick, account: account == "*" ? nil : account))
        case "CHGHOST":
            guard let source, parameters.count >= 2 else { return }
            update(nick: source.nick) {
                $0.user = parameters[0]
                $0.host = parameters[1]
            }
        case "PRIVMSG", "NOTICE":
            guard let source, source.user != nil || source.host != nil else { return }
            update(nick: source.nick) {
                $0.user = source.user ?? $0.user
                $0.host = source.host ?? $0.host
            }
        case "353":
            // 353 me = #channel :[prefixes]nick[!user@host] ...
            guard parameters.count >= 4 else { return }
            let channel = parameters[parameters.count - 2]
            let channelKey = fold(channel)
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
                var identity = users[key] ?? UserIdentity(nick: parsed.nick)
                identity.nick = parsed.nick
                identity.user = parsed.user ?? identity.user
                identity.host = parsed.host ?? identity.host
                users[key] = identity
                channels[channelKey]?.members[key] = symbols
            }
        case "366":
            guard parameters.count >= 2 else { return }
            namesInProgress.remove(fold(parameters[1]))
            pruneUsers()
        case "352":
            // 352 me #channel user host server nick flags :hopcount realname
            guard parameters.count >= 7 else { return }
            let nick = parameters[5]
            update(nick: nick) {
                $0.user = parameters[2]
                $0.host = parameters[3]
            }
        case "354":
            // WHOX reply to "WHO #channel %tcuhna,152": 354 me 152 #channel user host nick account
            guard parameters.count >= 7, parameters[1] == Self.whoxToken else { return }
            let nick = parameters[5]
            update(nick: nick) {
                $0.user = parameters[3]
                $0.host = parameters[4]
                $0.account = parameters[6] == "0" ? nil : parameters[6]
            }
        default:
            return
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
