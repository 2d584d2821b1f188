import IRCProtocol

/// How a server tells a client that a nick went offline without sharing a channel with it.
public enum PresenceNotification: String, Sendable, Hashable {
    /// IRCv3 `MONITOR` (ISUPPORT `MONITOR=`): 730 online, 731 offline, 734 list full.
    case monitor = "MONITOR"
    /// The older `WATCH` (ISUPPORT `WATCH=`): 600/604 online, 601/605 offline, 512 list full.
    case watch = "WATCH"
}

/// The nicks the client asked the server to watch on the current connection, and what the server's
/// answers mean: a pure state machine (messages in, lines to send and changes out).
///
/// A nick is "offline" when no connection uses it any more: its user quit, or changed nick. The server
/// forgets the list when the connection ends, so a new connection starts with an empty one.
struct PresenceWatch: Sendable {
    /// What the server offers, from ISUPPORT (nil: neither MONITOR nor WATCH).
    private(set) var notification: PresenceNotification?
    /// How many nicks the server lets the client watch (nil: no stated limit).
    private(set) var limit: Int?
    /// Folded nick → the nick as asked for.
    private var watched: [String: String] = [:]
    private var caseMapping: CaseMapping = .rfc1459

    /// A change the server reported.
    enum Change: Sendable, Equatable {
        /// Nobody uses `nick` now (it quit or changed nick), or the server refused to watch it.
        case offline(String)
        /// Someone uses `nick` now.
        case online(String)
    }

    /// Takes the server's ISUPPORT values (MONITOR is preferred over WATCH).
    mutating func update(_ support: ServerSupport) {
        caseMapping = support.caseMapping
        if let value = support["MONITOR"] {
            notification = .monitor
            limit = Int(value).flatMap { $0 > 0 ? $0 : nil }
        } else if let value = support["WATCH"] {
            notification = .watch
            limit = Int(value).flatMap { $0 > 0 ? $0 : nil }
        } else {
            notification = nil
            limit = nil
        }
    }

    /// Whether `nick` is on the list.
    func isWatching(_ nick: String) -> Bool { watched[caseMapping.lowercased(nick)] != nil }

    /// Adds `nick`: the line to send, or nil when the server offers no notification or the list is full.
    mutating func add(_ nick: String) -> IRCMessage? {
        guard let notification, !nick.isEmpty, !nick.contains(","), !nick.contains(" ") else { return nil }
        let folded = caseMapping.lowercased(nick)
        if watched[folded] != nil { return nil }
        if let limit, watched.count >= limit { return nil }
        watched[folded] = nick
        switch notification {
        case .monitor: return IRCMessage(command: "MONITOR", parameters: ["+", nick])
        case .watch: return IRCMessage(command: "WATCH", parameters: ["+" + nick])
        }
    }

    /// Removes `nick`: the line to send, or nil when it was not on the list.
    mutating func remove(_ nick: String) -> IRCMessage? {
        guard let notification, watched.removeValue(forKey: caseMapping.lowercased(nick)) != nil else { return nil }
        switch notification {
        case .monitor: return IRCMessage(command: "MONITOR", parameters: ["-", nick])
        case .watch: return IRCMessage(command: "WATCH", parameters: ["-" + nick])
        }
    }

    /// A new connection: the server's list is empty again.
    mutating func reset() {
        watched = [:]
        notification = nil
        limit = nil
    }

    /// What one inbound message says about watched nicks.
    mutating func handle(_ message: IRCMessage) -> [Change] {
        let parameters = message.parameters
        switch message.command {
        case "730", "731":
            // 730/731 me :nick!user@host,nick2!user@host
            guard parameters.count >= 2 else { return [] }
            let nicks = parameters[parameters.count - 1].split(separator: ",").map {
                IRCSource(parsing: String($0)).nick
            }
            return nicks.filter { !$0.isEmpty }.map { message.command == "730" ? .online($0) : .offline($0) }
        case "734":
            // 734 me limit nick1,nick2 :Monitor list is full.
            guard parameters.count >= 3 else { return [] }
            let refused = parameters[2].split(separator: ",").map(String.init)
            for nick in refused { watched.removeValue(forKey: caseMapping.lowercased(nick)) }
            return refused.map(Change.offline)
        case "600", "604":
            // 600/604 me nick user host signon :logged online / is online
            guard parameters.count >= 2 else { return [] }
            return [.online(parameters[1])]
        case "601", "605":
            // 601/605 me nick user host signon :logged offline / is offline
            guard parameters.count >= 2 else { return [] }
            return [.offline(parameters[1])]
        case "512":
            // 512 me nick :Maximum size for WATCH-list is N entries
            guard parameters.count >= 2, notification == .watch else { return [] }
            watched.removeValue(forKey: caseMapping.lowercased(parameters[1]))
            return [.offline(parameters[1])]
        default:
            return []
        }
    }
}
