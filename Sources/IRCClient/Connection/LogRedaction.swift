import IRCProtocol

/// Makes raw IRC lines safe to log: SASL payloads, server passwords and credential-carrying messages
/// (text whose first word, or second after `Nick:`, is `login`, `!login`, `identify`, `register`,
/// `auth` or `ghost`) are replaced, and so are the user name and password of links.
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
            guard let text = message.parameters.last, message.parameters.count >= 2 else { return nil }
            var copy = message
            if isSensitive(text) {
                copy.parameters[copy.parameters.count - 1] = "<redacted>"
            } else if let redacted = redactingSecrets(text) {
                copy.parameters[copy.parameters.count - 1] = redacted
            } else {
                return nil
            }
            return copy.serialized()
        default:
            return nil
        }
    }

    /// Whether a message text carries credentials: its first word, or the second when the first
    /// addresses someone (`MapBot: login …`), is a credential command with any prefix (`!login`,
    /// `?identify`), IRC formatting and CTCP markers ignored.
    public static func isSensitive(_ text: String) -> Bool {
        let words = TextSanitizer.untrusted(text).split(separator: " ").prefix(2)
        guard let first = words.first else { return false }
        if isCredentialWord(first) { return true }
        guard first.hasSuffix(":") || first.hasSuffix(","), words.count > 1 else { return false }
        return isCredentialWord(words[words.startIndex + 1])
    }

    private static func isCredentialWord(_ word: Substring) -> Bool {
        let bare = word.drop { !$0.isLetter }
        return sensitiveFirstWords.contains(bare.lowercased())
    }

    /// `text` with what a log must not hold replaced (the credentials of links, the tokens of
    /// sign-in links and of a student's own data feeds), or `nil` when it has none.
    public static func redactingSecrets(_ text: String) -> String? {
        let linkSafe = redactingLinkCredentials(text)
        let signInSafe = redactingSignInTokens(linkSafe ?? text) ?? linkSafe
        return redactingFeedTokens(signInSafe ?? text) ?? signInSafe
    }

    /// `text` with the token of every address of a student's own data feed (`…/me/<token>/…`, what
    /// the bot answers `!mydata links` with) replaced, or `nil` when it has none.
    public static func redactingFeedTokens(_ text: String) -> String? {
        let marker = "/me/"
        guard text.contains(marker) else { return nil }
        var shown = ""
        var rest = text[...]
        var redactedAny = false
        while let found = rest.range(of: marker) {
            let after = rest[found.upperBound...]
            let token = after.prefix { !$0.isWhitespace && $0 != "/" }
            shown += rest[..<found.upperBound]
            // `/me/pins.geojson` and `/me/trips.ics` (the signed-in page's own addresses) hold no token.
            if token.isEmpty || token == "pins.geojson" || token == "trips.ics" {
                rest = after
                continue
            }
            shown += "<redacted>"
            redactedAny = true
            rest = after.dropFirst(token.count)
        }
        return redactedAny ? shown + rest : nil
    }

    /// `text` with the token of every sign-in link (`…/signin#<token>`, what the bot answers a
    /// student's private `!map` with) replaced, or `nil` when it has none.
    public static func redactingSignInTokens(_ text: String) -> String? {
        let marker = "/signin#"
        guard text.contains(marker) else { return nil }
        var shown = ""
        var rest = text[...]
        while let found = rest.range(of: marker) {
            shown += rest[..<found.upperBound] + "<redacted>"
            rest = rest[found.upperBound...].drop { !$0.isWhitespace }
        }
        return shown + rest
    }

    /// `text` with the user name and password of any `scheme://user:password@host` link replaced,
    /// or `nil` when it has none.
    public static func redactingLinkCredentials(_ text: String) -> String? {
        LinkCredentials.redacting(text)
    }
}
