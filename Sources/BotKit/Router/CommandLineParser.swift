import IRCProtocol

/// Finds a command in a line: `!near Paris`, or `BotNick: near Paris` / `BotNick, !near Paris`
/// in a channel, or a bare `near Paris` in a private message.
struct CommandLineParser: Sendable {
    var prefix: String

    struct Parsed: Equatable {
        /// The command word, lowercased.
        var word: String
        /// The rest of the line, trimmed.
        var argument: String
        /// True when the line named the bot or was private (so unknown commands get an answer).
        var addressed: Bool
        /// True when the line had no prefix (a bare word in a private message).
        var bare: Bool
    }

    func parse(_ text: String, isPrivate: Bool, botNick: String, nicksEqual: (String, String) -> Bool) -> Parsed? {
        // Printable ASCII (most lines) has no formatting or control characters to remove.
        parse(
            text, isPrivate: isPrivate, botNick: botNick, nicksEqual: nicksEqual,
            plain: TextSanitizer.isPrintableASCII(text))
    }

    /// `plain`: `text` is known to be printable ASCII (false always gives the same result, slower).
    func parse(
        _ text: String, isPrivate: Bool, botNick: String, nicksEqual: (String, String) -> Bool, plain: Bool
    ) -> Parsed? {
        let trimmed = text.drop { $0 == " " || $0 == "\t" }
        // IRC formatting and control characters in the first word do not hide a command
        // ("\u{02}!login\u{02} …" is a login); the rest of the line is left as it was typed.
        let firstEnd = trimmed.firstIndex { $0 == " " || $0 == "\t" } ?? trimmed.endIndex
        let line =
            plain
            ? trimmed
            : Substring(
                TextSanitizer.untrusted(trimmed[..<firstEnd]).filter { !$0.isWhitespace } + trimmed[firstEnd...])
        if !prefix.isEmpty, line.hasPrefix(prefix) {
            return split(line.dropFirst(prefix.count), addressed: isPrivate, bare: false, plain: plain)
        }
        if !isPrivate {
            guard let separator = line.firstIndex(where: { $0 == ":" || $0 == "," }) else { return nil }
            let name = line[..<separator]
            guard !name.isEmpty, nicksEqual(String(name), botNick) else { return nil }
            var rest = line[line.index(after: separator)...].drop { $0 == " " }
            if !prefix.isEmpty, rest.hasPrefix(prefix) { rest = rest.dropFirst(prefix.count) }
            return split(rest, addressed: true, bare: false, plain: plain)
        }
        return split(line, addressed: true, bare: true, plain: plain)
    }

    /// False when `parse` would find no command in `text` whatever the bot's nick: a channel line
    /// that neither starts with the prefix nor with one word followed by ":" or ",".
    func mayBeCommand(_ text: String, isPrivate: Bool) -> Bool {
        if isPrivate { return true }
        let line = text.drop { $0 == " " || $0 == "\t" }
        if !prefix.isEmpty, line.hasPrefix(prefix) { return true }
        guard let separator = line.firstIndex(where: { $0 == ":" || $0 == "," }) else { return false }
        // A nick has no spaces, so "some words: text" cannot address the bot.
        let name = line[..<separator]
        return !name.isEmpty && !name.contains(where: { $0 == " " || $0 == "\t" })
    }

    private func split(_ rest: Substring, addressed: Bool, bare: Bool, plain: Bool) -> Parsed? {
        let wordEnd = rest.firstIndex { $0 == " " || $0 == "\t" } ?? rest.endIndex
        // IRC formatting (a bold or coloured `!near`) and control characters are not part of
        // the command word.
        let word =
            plain ? String(rest[..<wordEnd]) : TextSanitizer.untrusted(rest[..<wordEnd]).filter { !$0.isWhitespace }
        guard !word.isEmpty, word.count <= 32 else { return nil }
        let argument = rest[wordEnd...].trimmingWhitespace()
        return Parsed(word: word.lowercased(), argument: argument, addressed: addressed, bare: bare)
    }
}

extension Substring {
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
