import IRCProtocol

/// Makes raw IRC lines safe to log: SASL payloads, server passwords and credential-carrying messages
/// (text whose first word is `login`, `!login`, `identify`, `register` or `auth`) are replaced.
public enum LogRedaction {
    static let sensitiveFirstWords: Set<String> = [
        "login", "!login", "identify", "register", "auth", "ghost",
    ]

    /// The line as it may be logged.
    public static func redact(_ line: String) -> String {
        guard let message = try? IRCMessage(parsing: line, maxLineBytes: 16_384) else {
            return "<unparsable line of \(line.utf8.count) bytes>"
        }
        return redact(message) ?? line
    }

    /// A redacted rendering of `message`, or `nil` when it may be logged as is.
    public static func redact(_ message: IRCMessage) -> String? {
        switch message.command {
        case "AUTHENTICATE", "PASS", "OPER":
            return "\(message.command) <redacted>"
        case "PRIVMSG", "NOTICE":
            guard let text = message.parameters.last, message.parameters.count >= 2, isSensitive(text) else {
                return nil
            }
            var copy = message
            copy.parameters[copy.parameters.count - 1] = "<redacted>"
            return copy.serialized()
        default:
            return nil
        }
    }

    /// Whether a message text carries credentials.
    public static func isSensitive(_ text: String) -> Bool {
        let stripped = text.drop { $0 == " " || $0 == "\u{01}" }
        guard let firstWord = stripped.split(separator: " ", maxSplits: 1).first else { return false }
        return sensitiveFirstWords.contains(firstWord.lowercased())
    }
}
