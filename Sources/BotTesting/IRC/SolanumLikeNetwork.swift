import IRCProtocol
import NIOConcurrencyHelpers

/// A scripted network that plays the 2026 rules of Solanum (the server Libera.Chat runs) and of the
/// newer IRCv3 drafts, none of which the ircds installed here have:
///
/// - bot mode (`BOT=B`): `+B` is kept only while the client is in no channel; set later, it is
///   dropped with a server notice ("Bot mode cannot be changed while joined to channels");
/// - the channel mode `+B` (``botOnlyChannels``): a client in bot mode is refused with 473 ("Cannot
///   join channel (+B) - bots must be invited") unless invited (``invite(_:to:by:)``);
/// - `draft/metadata-2` (with its limits in the capability's value) and `no-implicit-names`, when
///   offered (``capabilities``): a JOIN then brings no NAMES, only the WHO the client asks for lists
///   the members (with `userhost-in-names`, NAMES shows each member's user and host).
///
/// Everyone else in a channel is ``members``. One client at a time is played (the bot).
public final class SolanumLikeNetwork: Sendable {
    public struct Member: Sendable {
        public var nick: String
        public var user: String
        public var host: String
        public var account: String?

        public init(nick: String, user: String, host: String, account: String? = nil) {
            self.nick = nick
            self.user = user
            self.host = host
            self.account = account
        }
    }

    private struct State {
        var enabled: Set<String> = []
        var botMode = false
        var joined: Set<String> = []
        var invited: Set<String> = []
        var metadata: [String: String] = [:]
    }

    public let botNick: String
    public let capabilities: String
    public let botOnlyChannels: Set<String>
    public let members: [String: [Member]]
    /// Metadata keys the server refuses (`FAIL METADATA KEY_NO_PERMISSION`).
    public let refusedMetadataKeys: Set<String>
    /// The `CASEMAPPING` its ISUPPORT names.
    public let caseMapping: String
    private let state = NIOLockedValueBox(State())

    /// `capabilities` as the server's `CAP LS` lists them; channel names in lower case.
    public init(
        botNick: String, capabilities: String = "message-tags batch", botOnlyChannels: Set<String> = [],
        members: [String: [Member]] = [:], refusedMetadataKeys: Set<String> = [], caseMapping: String = "rfc1459"
    ) {
        self.caseMapping = caseMapping
        self.botNick = botNick
        self.capabilities = capabilities
        self.botOnlyChannels = botOnlyChannels
        self.members = members
        self.refusedMetadataKeys = refusedMetadataKeys
    }

    /// Whether the bot's user mode has `+B` now.
    public var botModeIsSet: Bool { state.withLockedValue { $0.botMode } }
    /// The channels the bot is in now.
    public var joinedChannels: Set<String> { state.withLockedValue { $0.joined } }
    /// The metadata the bot has set on itself.
    public var metadata: [String: String] { state.withLockedValue { $0.metadata } }
    /// The capabilities the bot has enabled.
    public var enabledCapabilities: Set<String> { state.withLockedValue { $0.enabled } }

    /// Invites the bot to `channel` (as a channel operator `inviter` would): the INVITE line to send
    /// to the bot's connection (see ``ScriptedIRCServer/broadcast(_:)``).
    public func invite(_ nick: String, to channel: String, by inviter: String = "teacher") -> String {
        state.withLockedValue { _ = $0.invited.insert(CaseMapping.rfc1459.lowercased(channel)) }
        return ":\(inviter)!t@teacher.example INVITE \(nick) \(channel)"
    }

    /// The responder for a ``ScriptedIRCServer``.
    public var responder: ScriptedIRCServer.Responder {
        { [self] message, _ in respond(to: message) }
    }

    private func respond(to message: IRCMessage) -> [String] {
        let parameters = message.parameters
        let me = botNick
        switch (message.command, parameters.first ?? "") {
        case ("CAP", "LS"):
            return [":srv CAP * LS :\(capabilities)"]
        case ("CAP", "REQ"):
            let wanted = (parameters.last ?? "").split(separator: " ").map(String.init)
            state.withLockedValue { $0.enabled.formUnion(wanted) }
            return [":srv CAP * ACK :\(parameters.last ?? "")"]
        case ("CAP", "END"):
            return [
                ":srv 001 \(me) :Welcome to the Solanum-like network",
                ":srv 005 \(me) BOT=B CASEMAPPING=\(caseMapping) CHANTYPES=# PREFIX=(ov)@+ :are supported by this server",
                ":srv 375 \(me) :- srv Message of the Day -",
                ":srv 372 \(me) :- Be excellent to each other",
                ":srv 376 \(me) :End of /MOTD command.",
            ]
        case ("MODE", let target) where CaseMapping.rfc1459.equals(target, me):
            return userMode(parameters)
        case ("MODE", let channel):
            let modes = botOnlyChannels.contains(CaseMapping.rfc1459.lowercased(channel)) ? "+ntB" : "+nt"
            return [":srv 324 \(me) \(channel) \(modes)"]
        case ("JOIN", let channels):
            return channels.split(separator: ",").flatMap { join(String($0)) }
        case ("WHO", let channel):
            let lines = (members[CaseMapping.rfc1459.lowercased(channel)] ?? []).map { member in
                ":srv 352 \(me) \(channel) \(member.user) \(member.host) srv \(member.nick) H :0 \(member.nick)"
            }
            return lines + [
                ":srv 352 \(me) \(channel) otm 127.0.0.1 srv \(me) H :0 bot", ":srv 315 \(me) \(channel) :End",
            ]
        case ("METADATA", _) where parameters.count >= 3 && parameters[1] == "SET":
            let key = parameters[2]
            if refusedMetadataKeys.contains(key) {
                return [":srv FAIL METADATA KEY_NO_PERMISSION * \(key) :permission denied"]
            }
            let value = parameters.count >= 4 ? parameters[3] : ""
            state.withLockedValue { $0.metadata[key] = value }
            return [":srv 761 \(me) \(me) \(key) * :\(value)"]
        case ("PING", let token):
            return [":srv PONG srv :\(token)"]
        default:
            return []
        }
    }

    /// `MODE <me> [+B]`: the change (kept only outside channels) or the 221 listing.
    private func userMode(_ parameters: [String]) -> [String] {
        let me = botNick
        guard parameters.count >= 2 else {
            return [":srv 221 \(me) \(state.withLockedValue { $0.botMode } ? "+iB" : "+i")"]
        }
        guard parameters[1].contains("B") else { return [] }
        let adding = !parameters[1].hasPrefix("-")
        let kept: Bool = state.withLockedValue { state in
            guard state.joined.isEmpty else { return false }
            state.botMode = adding
            return true
        }
        guard kept else { return [":srv NOTICE \(me) :Bot mode cannot be changed while joined to channels"] }
        return [":\(me)!otm@127.0.0.1 MODE \(me) :\(adding ? "+" : "-")B"]
    }

    private func join(_ channel: String) -> [String] {
        let me = botNick
        let key = CaseMapping.rfc1459.lowercased(channel)
        let refused: Bool = state.withLockedValue { state in
            if botOnlyChannels.contains(key), state.botMode, !state.invited.contains(key) { return true }
            state.joined.insert(key)
            state.invited.remove(key)
            return false
        }
        if refused { return [":srv 473 \(me) \(channel) :Cannot join channel (+B) - bots must be invited"] }
        var lines = [":\(me)!otm@127.0.0.1 JOIN \(channel)"]
        let enabled = state.withLockedValue { $0.enabled }
        if !enabled.contains("no-implicit-names") {
            let withHosts = enabled.contains("userhost-in-names")
            let others = (members[key] ?? []).map { withHosts ? "\($0.nick)!\($0.user)@\($0.host)" : $0.nick }
            let names = ([withHosts ? "\(me)!otm@127.0.0.1" : me] + others).joined(separator: " ")
            lines += [":srv 353 \(me) = \(channel) :\(names)", ":srv 366 \(me) \(channel) :End of /NAMES list."]
        }
        return lines
    }
}
