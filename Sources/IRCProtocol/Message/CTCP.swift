/// A CTCP request or reply carried in a PRIVMSG/NOTICE text: `\x01VERB arguments\x01`.
public struct CTCP: Sendable, Hashable {
    /// The delimiter byte `\x01`.
    public static let delimiter: Character = "\u{01}"

    /// The verb, uppercased (`VERSION`, `PING`, `ACTION`…).
    public var verb: String
    /// Everything after the first space, or `""`.
    public var arguments: String

    public init(verb: String, arguments: String = "") {
        self.verb = verb
        self.arguments = arguments
    }

    /// Recognises `\x01VERB args\x01`; the closing `\x01` may be missing. Returns `nil` for text
    /// that is not a CTCP message or has an empty verb.
    public init?(parsing text: some StringProtocol) {
        var body = Substring(text)
        guard body.first == Self.delimiter else { return nil }
        body = body.dropFirst()
        if body.last == Self.delimiter { body = body.dropLast() }
        let verbEnd = body.firstIndex(of: " ") ?? body.endIndex
        let verb = body[..<verbEnd]
        guard !verb.isEmpty, !verb.contains(Self.delimiter) else { return nil }
        self.verb = verb.uppercased()
        self.arguments = verbEnd < body.endIndex ? String(body[body.index(after: verbEnd)...]) : ""
    }

    /// The encoded text `\x01VERB args\x01`; `\x01`, NUL, CR and LF are removed from the fields.
    public var encoded: String {
        let verb = Self.clean(verb).uppercased()
        let arguments = Self.clean(arguments)
        let body = arguments.isEmpty ? verb : verb + " " + arguments
        return "\u{01}" + body + "\u{01}"
    }

    private static func clean(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\u{01}" && $0 != "\0" && $0 != "\r" && $0 != "\n" })
    }
}

extension IRCMessage {
    /// The CTCP payload of a PRIVMSG (request) or NOTICE (reply), if the text is one.
    public var ctcp: CTCP? {
        guard command == "PRIVMSG" || command == "NOTICE", parameters.count >= 2,
            let text = parameters.last
        else { return nil }
        return CTCP(parsing: text)
    }

    /// A CTCP reply: `NOTICE target :\x01VERB args\x01`.
    public static func ctcpReply(_ target: String, _ ctcp: CTCP) -> IRCMessage {
        .notice(target, ctcp.encoded)
    }

    /// A `/me` action: `PRIVMSG target :\x01ACTION text\x01`.
    public static func action(_ target: String, _ text: String) -> IRCMessage {
        .privmsg(target, CTCP(verb: "ACTION", arguments: text).encoded)
    }
}
