import BotKit
import IRCProtocol

/// What one line typed in the console means.
public enum ConsoleAction: Sendable, Equatable {
    /// A line said to the bot (in a channel or privately) by the current console user.
    case say(IRCUserMessage)
    /// A console command that changed who or where (or asked for help): lines for the screen.
    case note([String])
    /// `/quit`.
    case quit
}

/// Who is typing in the console and where their lines are said, and what each typed line means:
/// `/as`, `/dm`, `/channel`, `/help` and `/quit` are the console's own; `//text` says `/text`;
/// everything else is said to the bot as the current user in the current place.
public struct ConsoleInterpreter: Sendable {
    /// The nick lines are said as.
    public private(set) var user: String
    /// Where lines are said: a channel, or privately to the bot.
    public private(set) var origin: Origin
    /// The channel `/channel` without a name goes back to.
    public private(set) var lastChannel: String
    /// The bot's nick (for the notes).
    public let botNick: String

    public init(user: String, channel: String, botNick: String) {
        self.user = user
        self.origin = .channel(channel)
        self.lastChannel = channel
        self.botNick = botNick
    }

    /// The stable fake identity of a console user: `alice!alice@alice.console`. Each user has their
    /// own host, so the per-user limits (flood guard, cooldowns) stay per user as on IRC.
    public static func sender(nick: String) -> UserIdentity {
        let folded = CaseMapping.rfc1459.lowercased(nick)
        return UserIdentity(nick: nick, user: String(folded.prefix(10)), host: "\(folded).console")
    }

    /// "#class" or "private".
    public var placeName: String { origin.channelName ?? "private" }

    /// The interactive prompt: `[#class] alice> `.
    public var prompt: String { "[\(placeName)] \(user)> " }

    /// What `/help` prints.
    public var helpLines: [String] {
        [
            "Console commands:",
            "  /as NICK         speak as another user (each has a fixed fake address, NICK!NICK@NICK.console)",
            "  /dm              speak privately to \(botNick) (like /msg \(botNick) …)",
            "  /channel [#NAME] speak in a channel again (the last one, or #NAME)",
            "  /help            this list",
            "  /quit            leave (end of input does the same)",
            "Anything else is said to \(botNick): try !help. Type //text to say a line that starts with /.",
        ]
    }

    /// Interprets one typed line (without its newline).
    public mutating func interpret(_ typed: String) -> ConsoleAction {
        var text = Substring(typed)
        while text.last == "\r" { text = text.dropLast() }
        let trimmed = text.trimmingWhitespace()
        if trimmed.isEmpty { return .note([]) }
        if trimmed.hasPrefix("//") {
            return say(String(trimmed.dropFirst()))
        }
        guard trimmed.hasPrefix("/") else { return say(String(text)) }
        let body = trimmed.dropFirst()
        let word = body.prefix { $0 != " " && $0 != "\t" }.lowercased()
        let argument = body.dropFirst(word.count).trimmingWhitespace()
        switch word {
        case "as", "nick":
            return switchUser(to: argument)
        case "dm", "msg", "query", "private":
            origin = .privateMessage
            return .note(["Now talking privately to \(botNick) (/channel goes back to \(lastChannel))."])
        case "channel", "join", "j":
            return switchChannel(to: argument)
        case "help", "?":
            return .note(helpLines)
        case "quit", "exit", "q":
            return .quit
        default:
            let shown = TextSanitizer.untrusted("/" + word, maxBytes: 60)
            return .note([
                "\(shown) is not a console command. Type /help for the console commands, or !help for the bot's."
            ])
        }
    }

    private func say(_ text: String) -> ConsoleAction {
        .say(IRCUserMessage(sender: Self.sender(nick: user), origin: origin, text: text))
    }

    private mutating func switchUser(to nick: String) -> ConsoleAction {
        if nick.isEmpty {
            return .note(["You are \(user) (\(Self.sender(nick: user).mask)); /as NICK speaks as someone else."])
        }
        guard ConfigLoader.isValidNick(nick) else {
            return .note([
                "\"\(TextSanitizer.untrusted(nick, maxBytes: 60))\" is not a valid nick (letters, digits and []\\`_^{|}-, not starting with a digit or -)."
            ])
        }
        user = nick
        return .note(["You are now \(nick) (\(Self.sender(nick: nick).mask))."])
    }

    private mutating func switchChannel(to name: String) -> ConsoleAction {
        var channel = name.isEmpty ? lastChannel : name
        if let first = channel.first, first != "#" && first != "&" { channel = "#" + channel }
        guard ConfigLoader.isValidChannel(channel) else {
            return .note(["\"\(TextSanitizer.untrusted(name, maxBytes: 60))\" is not a channel name (like #class)."])
        }
        origin = .channel(channel)
        lastChannel = channel
        return .note(["Now talking in \(channel)."])
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
