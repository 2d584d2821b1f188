/// One IRC protocol message: IRCv3 tags, optional source, command and parameters.
///
/// Parsing works on the UTF-8 bytes of a single line without its CR/LF terminator. Limits (see
/// ``maxLineBytes`` and ``maxTagsBytes``): the part after the tags may be at most 512 bytes
/// *including* the CRLF that terminated it (so 510 bytes of content), and the tags section —
/// from `@` up to and including the space after it — at most 8191 bytes.
///
/// Serialization never produces NUL, CR or LF: ``serialized()`` replaces them (and repairs other
/// programmer errors, see there), while ``serializedChecked()`` throws instead.
public struct IRCMessage: Sendable, Hashable {
    /// Tag values, unescaped. A tag sent without a value is stored as `""`.
    public var tags: [String: String]
    /// The raw source without the leading `:`, e.g. `nick!user@host` or a server name.
    public var source: String?
    /// The verb; when parsed, letters are uppercased (`PRIVMSG`, `001`).
    public var command: String
    /// All parameters; the trailing parameter (if any) is the last element.
    public var parameters: [String]

    /// Maximum byte length of the line after its tags, including the terminating CRLF (RFC 1459).
    public static let maxLineBytes = 512
    /// Maximum byte length of the tags section, including the leading `@` and the trailing space.
    public static let maxTagsBytes = 8191

    public init(
        tags: [String: String] = [:],
        source: String? = nil,
        command: String,
        parameters: [String] = []
    ) {
        self.tags = tags
        self.source = source
        self.command = command
        self.parameters = parameters
    }

    /// Parses one line (without CR/LF) with the standard 512-byte limit.
    public init(parsing line: some StringProtocol) throws(IRCParseError) {
        try self.init(parsing: line, maxLineBytes: Self.maxLineBytes)
    }

    /// Parses one line (without CR/LF); `maxLineBytes` is the limit for the part after the tags
    /// *including* CRLF (pass the server's `LINELEN` to accept longer lines).
    public init(parsing line: some StringProtocol, maxLineBytes: Int) throws(IRCParseError) {
        let result =
            line.utf8.withContiguousStorageIfAvailable { bytes in
                IRCMessageParser.parse(bytes, maxLineBytes: maxLineBytes)
            }
            ?? {
                var copy = String(line)
                return copy.withUTF8 { IRCMessageParser.parse($0, maxLineBytes: maxLineBytes) }
            }()
        self = try result.get()
    }

    /// Parses one line given as raw bytes (without CR/LF). Invalid UTF-8 is repaired with U+FFFD.
    public init(
        parsingUTF8 bytes: some Collection<UInt8>,
        maxLineBytes: Int = IRCMessage.maxLineBytes
    ) throws(IRCParseError) {
        let result =
            bytes.withContiguousStorageIfAvailable { buffer in
                IRCMessageParser.parse(buffer, maxLineBytes: maxLineBytes)
            }
            ?? Array(bytes).withUnsafeBufferPointer {
                IRCMessageParser.parse($0, maxLineBytes: maxLineBytes)
            }
        self = try result.get()
    }

    /// The source split into nick, user and host, or `nil` when there is no source.
    public var sourceIdentity: IRCSource? {
        source.map { IRCSource(parsing: $0) }
    }

    /// The nick of the source (the whole source for a server), or `nil` without a source.
    public var sourceNick: String? {
        sourceIdentity?.nick
    }

    /// The serialized line, without CRLF. A `:` is added before the last parameter when needed.
    ///
    /// This never fails and never emits NUL, CR or LF. It is the one place where the bot's outgoing
    /// text loses them: every line the client writes (replies, notices, announcements, each line of
    /// a multi-line answer, CTCP replies) is made here, and nothing before it scrubs them again.
    /// Programmer errors are repaired as follows:
    /// NUL/CR/LF inside parameters become spaces; a non-last parameter that is empty, contains a
    /// space or starts with `:` becomes the trailing parameter and the parameters after it are
    /// dropped (the server then rejects or ignores the command instead of acting on an invented
    /// value); tags with invalid keys are dropped; an invalid source is omitted; bytes other
    /// than ASCII letters and digits are removed from the command. Tag keys are written in
    /// sorted order.
    public func serialized() -> String {
        IRCMessageSerializer.serialize(self)
    }

    /// The serialized line (without CRLF), or an error when any field cannot be written as is.
    public func serializedChecked() throws(IRCSerializationError) -> String {
        try IRCMessageSerializer.validate(self)
        return IRCMessageSerializer.serialize(self)
    }
}

extension IRCMessage: CustomStringConvertible {
    public var description: String { serialized() }
}

// MARK: - Convenience constructors

extension IRCMessage {
    /// `PRIVMSG target :text`
    public static func privmsg(_ target: String, _ text: String) -> IRCMessage {
        IRCMessage(command: "PRIVMSG", parameters: [target, text])
    }

    /// `NOTICE target :text`
    public static func notice(_ target: String, _ text: String) -> IRCMessage {
        IRCMessage(command: "NOTICE", parameters: [target, text])
    }

    /// `JOIN channel [key]`
    public static func join(_ channel: String, key: String? = nil) -> IRCMessage {
        IRCMessage(command: "JOIN", parameters: key.map { [channel, $0] } ?? [channel])
    }

    /// `PART channel [:reason]`
    public static func part(_ channel: String, reason: String? = nil) -> IRCMessage {
        IRCMessage(command: "PART", parameters: reason.map { [channel, $0] } ?? [channel])
    }

    /// `NICK nick`
    public static func nick(_ nick: String) -> IRCMessage {
        IRCMessage(command: "NICK", parameters: [nick])
    }

    /// `USER user 0 * :realname`
    public static func user(_ user: String, realName: String) -> IRCMessage {
        IRCMessage(command: "USER", parameters: [user, "0", "*", realName])
    }

    /// `PING :token`
    public static func ping(_ token: String) -> IRCMessage {
        IRCMessage(command: "PING", parameters: [token])
    }

    /// `PONG :token`
    public static func pong(_ token: String) -> IRCMessage {
        IRCMessage(command: "PONG", parameters: [token])
    }

    /// `QUIT [:reason]`
    public static func quit(_ reason: String? = nil) -> IRCMessage {
        IRCMessage(command: "QUIT", parameters: reason.map { [$0] } ?? [])
    }

    /// `CAP subcommand [params…]`
    public static func cap(_ subcommand: String, _ parameters: String...) -> IRCMessage {
        IRCMessage(command: "CAP", parameters: [subcommand] + parameters)
    }
}
