import IRCProtocol

/// Who may join a channel, as its modes say: a key (`+k`) or invite-only (`+i`) keeps strangers
/// out; a channel with neither is open to anyone on the network.
public struct ChannelAccess: Sendable, Hashable {
    /// The channel has a key (`+k`).
    public var isKeyed: Bool
    /// Only invited users may join (`+i`).
    public var isInviteOnly: Bool

    public init(isKeyed: Bool = false, isInviteOnly: Bool = false) {
        self.isKeyed = isKeyed
        self.isInviteOnly = isInviteOnly
    }

    /// Anyone may join: neither a key nor invite-only.
    public var isOpen: Bool { !isKeyed && !isInviteOnly }

    /// The modes of a `324` (RPL_CHANNELMODEIS: `+ntk`), as the whole state of the channel.
    public init(modes: some StringProtocol) {
        self.init()
        apply(modes)
    }

    /// Applies a mode string (`+k`, `-i`, `+ik-t`): the letters after a `+` are set, after a `-`
    /// unset; other letters (and their parameters, which are separate words) change nothing here.
    public mutating func apply(_ modes: some StringProtocol) {
        var adding = true
        for character in modes {
            switch character {
            case "+": adding = true
            case "-": adding = false
            case "k": isKeyed = adding
            case "i": isInviteOnly = adding
            default: break
            }
        }
    }
}

/// The ``ChannelAccess`` of each channel the client is in, from the `324` it asks for after its
/// JOIN and the channel `MODE` changes after it. A channel is unknown until its `324`: a change
/// before it is not the whole state, and the `324` that follows includes it.
///
/// A pure value kept by ``ConnectionStateMachine`` for one connection: a channel is forgotten when
/// the client leaves it (PART, KICK) and all of them when the connection ends. Names are compared
/// under the server's `CASEMAPPING`, re-keyed when it changes.
struct ChannelModeTracker: Sendable, Equatable {
    /// A channel as the server named it, and its access.
    struct Entry: Sendable, Equatable {
        var name: String
        var access: ChannelAccess
    }

    /// Folded name → the channel.
    private(set) var channels: [String: Entry] = [:]
    private(set) var caseMapping: CaseMapping = .rfc1459

    private func key(_ channel: String) -> String { caseMapping.lowercased(channel) }

    /// What is known of `channel`; nil until the server said its modes.
    func access(of channel: String) -> ChannelAccess? { channels[key(channel)]?.access }

    /// The channels whose modes are known, by name.
    var known: [Entry] {
        channels.values.sorted { $0.name < $1.name }
    }

    /// The server said the modes of `channel` (`324`). Returns its access when it is new or changed.
    mutating func listed(_ channel: String, modes: String) -> ChannelAccess? {
        let access = ChannelAccess(modes: modes)
        let before = channels[key(channel)]?.access
        channels[key(channel)] = Entry(name: channel, access: access)
        return before == access ? nil : access
    }

    /// The modes of `channel` changed (`MODE #channel +k key`). Returns its access when it changed;
    /// a channel whose modes are not known yet stays unknown.
    mutating func changed(_ channel: String, modes: String) -> ChannelAccess? {
        guard var entry = channels[key(channel)] else { return nil }
        let before = entry.access
        entry.access.apply(modes)
        channels[key(channel)] = entry
        return before == entry.access ? nil : entry.access
    }

    /// The client left `channel`.
    mutating func left(_ channel: String) {
        channels.removeValue(forKey: key(channel))
    }

    /// The connection ended (or a new one started): nothing is known.
    mutating func reset() {
        channels = [:]
    }

    /// The server announced how it compares names: the keys are folded again under `mapping`.
    mutating func setCaseMapping(_ mapping: CaseMapping) {
        guard mapping != caseMapping else { return }
        caseMapping = mapping
        var rekeyed: [String: Entry] = [:]
        for entry in channels.values.sorted(by: { $0.name < $1.name }) { rekeyed[key(entry.name)] = entry }
        channels = rekeyed
    }
}
