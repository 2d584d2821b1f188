/// One member of a channel with its membership prefixes (e.g. `@`).
public struct ChannelMember: Sendable, Hashable {
    public var nick: String
    /// Prefix symbols, highest first (`"@+"` with multi-prefix).
    public var prefixes: String

    public init(nick: String, prefixes: String = "") {
        self.nick = nick
        self.prefixes = prefixes
    }
}
