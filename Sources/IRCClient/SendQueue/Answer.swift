import IRCProtocol

extension SendQueue {
    /// A PRIVMSG or NOTICE as the queue sees it: where it goes, on whose behalf, and what it says, so
    /// that it can be merged with the same answer to someone else, packed with other answers, or dropped
    /// when the people it is for have gone.
    ///
    /// A channel answer's text starts with the name of the person who asked ("alice: pong"); merged, it
    /// names everyone who asked the same ("alice, bob: pong"). Names and channels are compared under
    /// the server's casemapping, as the queue's fairness keys.
    public struct Answer: Sendable, Hashable {
        /// `PRIVMSG` or `NOTICE`.
        public let command: String
        public let target: String
        /// `true` when ``target`` is a channel.
        public let isChannel: Bool
        /// The nicks named at the start of the text, in the order they asked.
        public private(set) var askers: [String]
        /// On whose behalf the line goes to the channel (folded); empty for private lines and
        /// announcements.
        public private(set) var askerKeys: [String]
        /// The text after the names.
        public let body: String
        /// `true` when this one line is the whole answer (only such answers are merged).
        public let isWholeAnswer: Bool
        /// The most text bytes that fit in one line to ``target``.
        public let textBudget: Int
        /// Texts of other answers carried in the same line.
        private var packed: [String] = []
        /// The line's message tags (the `+draft/reply` that threads it under its question); gone
        /// once the line answers several askers.
        public private(set) var tags: [String: String]

        let targetKey: String
        /// How the server compares nicks and channels.
        let caseMapping: CaseMapping

        /// - Parameters:
        ///   - asker: for a channel line, the nick on whose behalf it goes (`nil`: an announcement).
        ///   - isWholeAnswer: the answer to that asker is this one line.
        ///   - caseMapping: how the server compares nicks and channels.
        ///   - tags: the line's message tags while it answers that one asker.
        public init(
            command: String, target: String, isChannel: Bool, text: String, asker: String?,
            isWholeAnswer: Bool, textBudget: Int, caseMapping: CaseMapping = .rfc1459, tags: [String: String] = [:]
        ) {
            self.command = command
            self.tags = tags
            self.target = target
            self.isChannel = isChannel
            self.caseMapping = caseMapping
            self.targetKey = caseMapping.lowercased(target)
            self.isWholeAnswer = isWholeAnswer
            self.textBudget = textBudget
            if isChannel, let asker, !asker.isEmpty {
                askerKeys = [caseMapping.lowercased(asker)]
                let prefix = asker + ": "
                if text.hasPrefix(prefix) {
                    askers = [asker]
                    body = String(text.dropFirst(prefix.count))
                } else {
                    askers = []
                    body = text
                }
            } else {
                askerKeys = []
                askers = []
                body = text
            }
        }

        /// The text as it is sent.
        public var text: String {
            var text = askers.isEmpty ? body : askers.joined(separator: ", ") + ": " + body
            for other in packed { text += " · " + other }
            return text
        }

        /// The serialized line (without CRLF), with its tags.
        public var line: String {
            IRCMessage(tags: tags, command: command, parameters: [target, text]).serialized()
        }

        var isMergeable: Bool { isChannel && !askers.isEmpty && isWholeAnswer && packed.isEmpty }

        /// Names the asker of `other` too when it says the same to the same channel; `false` when it
        /// does not, or the longer line would not fit.
        mutating func merge(_ other: Answer) -> Bool {
            guard isMergeable, other.isMergeable, command == other.command, targetKey == other.targetKey,
                body == other.body, let key = other.askerKeys.first, let name = other.askers.first
            else { return false }
            if askerKeys.contains(key) { return true }
            var merged = self
            merged.askers.append(name)
            merged.askerKeys.append(key)
            guard merged.text.utf8.count <= textBudget else { return false }
            // A reply tag names one question: a line that answers several carries none.
            merged.tags = [:]
            self = merged
            return true
        }

        /// Carries `other` in the same line when both answer askers in the same channel and it fits.
        mutating func pack(_ other: Answer) -> Bool {
            guard isChannel, other.isChannel, !askerKeys.isEmpty, !other.askerKeys.isEmpty,
                command == other.command, targetKey == other.targetKey, other.packed.isEmpty
            else { return false }
            let addition = other.text
            guard text.utf8.count + " · ".utf8.count + addition.utf8.count <= textBudget else { return false }
            packed.append(addition)
            askerKeys += other.askerKeys
            tags = [:]
            return true
        }

        /// Forgets whoever `departure` concerns; `false` when nobody is left to read the line.
        mutating func remove(_ departure: Departure) -> Bool {
            let nick: String
            switch departure {
            case .quit(let who):
                if !isChannel { return targetKey != who }
                nick = who
            case .left(let who, let channels):
                guard isChannel, channels.contains(targetKey) else { return true }
                nick = who
            }
            guard askerKeys.contains(nick) else { return true }
            askerKeys.removeAll { $0 == nick }
            askers.removeAll { caseMapping.lowercased($0) == nick }
            return !askerKeys.isEmpty
        }
    }

    /// Someone who will no longer read what the bot queued for them (nicks and channels folded under
    /// the server's casemapping).
    public enum Departure: Sendable, Hashable {
        /// The nick left the network (or nobody uses it now).
        case quit(nick: String)
        /// The nick left these channels (PART, or KICK).
        case left(nick: String, channels: [String])

        /// The departure a QUIT, PART or KICK from the server announces (names folded by `caseMapping`).
        public init?(_ message: IRCMessage, caseMapping: CaseMapping = .rfc1459) {
            let parameters = message.parameters
            switch message.command {
            case "QUIT":
                guard let nick = message.sourceNick else { return nil }
                self = .quit(nick: caseMapping.lowercased(nick))
            case "PART":
                guard let nick = message.sourceNick, let channels = parameters.first else { return nil }
                self = .left(nick: caseMapping.lowercased(nick), channels: Self.list(channels, caseMapping))
            case "KICK":
                guard parameters.count >= 2 else { return nil }
                self = .left(
                    nick: caseMapping.lowercased(parameters[1]), channels: Self.list(parameters[0], caseMapping))
            default:
                return nil
            }
        }

        /// Every departure `message` tells of: a QUIT, PART or KICK seen in a shared channel, and
        /// nicks the server says nobody uses now — `401` (no such nick, the answer to a line or a
        /// WHOIS sent to someone gone, whether or not they shared a channel) and `731` (MONITOR:
        /// offline). Names are folded by `caseMapping`.
        public static func announced(by message: IRCMessage, caseMapping: CaseMapping = .rfc1459) -> [Departure] {
            let parameters = message.parameters
            switch message.command {
            case "401":
                guard parameters.count >= 2, !parameters[1].isEmpty else { return [] }
                return [.quit(nick: caseMapping.lowercased(parameters[1]))]
            case "731":
                guard parameters.count >= 2 else { return [] }
                return parameters[1].split(separator: ",").compactMap { target in
                    let nick = target.prefix { $0 != "!" }
                    return nick.isEmpty ? nil : .quit(nick: caseMapping.lowercased(nick))
                }
            default:
                return Departure(message, caseMapping: caseMapping).map { [$0] } ?? []
            }
        }

        private static func list(_ channels: String, _ caseMapping: CaseMapping) -> [String] {
            channels.split(separator: ",").map { caseMapping.lowercased($0) }
        }
    }
}
