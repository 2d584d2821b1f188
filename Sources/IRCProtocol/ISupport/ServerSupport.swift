/// What the server advertised in `RPL_ISUPPORT` (005), with the defaults from
/// modern.ircdocs.horse for tokens it did not send.
///
/// Feed every 005 line to ``apply(_:)``; `-TOKEN` reverts a token to its default.
public struct ServerSupport: Sendable, Hashable {
    /// One channel membership prefix, e.g. mode `o` shown as `@`.
    public struct MembershipPrefix: Sendable, Hashable {
        public var mode: Character
        public var symbol: Character

        public init(mode: Character, symbol: Character) {
            self.mode = mode
            self.symbol = symbol
        }
    }

    /// Default `CASEMAPPING` when not advertised.
    public static let defaultCaseMapping = CaseMapping.rfc1459
    /// Default `CHANTYPES` when not advertised (RFC 1459 behaviour).
    public static let defaultChannelTypes = "#&"
    /// Default `PREFIX` when not advertised: `(ov)@+`.
    public static let defaultPrefixes = [
        MembershipPrefix(mode: "o", symbol: "@"), MembershipPrefix(mode: "v", symbol: "+"),
    ]
    /// Default `NICKLEN` (RFC 1459).
    public static let defaultNickLength = 9
    /// Default `CHANNELLEN` (RFC 2812).
    public static let defaultChannelLength = 200
    /// Default `LINELEN` (bytes including CRLF).
    public static let defaultLineLength = 512

    /// Every token currently advertised: name (uppercased) → unescaped value (`""` if none).
    public private(set) var tokens: [String: String] = [:]

    /// The casemapping; unknown values (e.g. `rfc7613`) fall back to ``CaseMapping/ascii``.
    public private(set) var caseMapping: CaseMapping = Self.defaultCaseMapping
    /// Characters that start a channel name.
    public private(set) var channelTypes: String = Self.defaultChannelTypes
    /// Membership prefixes, most powerful first.
    public private(set) var prefixes: [MembershipPrefix] = Self.defaultPrefixes
    /// Maximum nick length in bytes.
    public private(set) var nickLength: Int = Self.defaultNickLength
    /// Maximum channel name length in bytes.
    public private(set) var channelLength: Int = Self.defaultChannelLength
    /// Maximum line length in bytes including CRLF (the part after tags).
    public private(set) var lineLength: Int = Self.defaultLineLength
    /// The network name, if advertised.
    public private(set) var networkName: String?
    /// The user mode that marks a bot (`BOT=B`), if advertised.
    public private(set) var botMode: Character?

    /// Whether the server promises to slow a client that sends too fast rather than disconnect it
    /// (`SAFERATE`, as Ergo and soju advertise): the client may leave the pacing to the server.
    public var pacesClients: Bool { tokens["SAFERATE"] != nil }

    public init() {}

    /// Applies one `RPL_ISUPPORT` (005) message; other messages are ignored.
    /// Parameters are `<client> <token>… :are supported by this server`.
    public mutating func apply(_ message: IRCMessage) {
        guard message.command == "005", message.parameters.count >= 3 else { return }
        for token in message.parameters[1..<(message.parameters.count - 1)] {
            apply(token: token)
        }
    }

    /// Applies one token: `NAME`, `NAME=value` or `-NAME`.
    public mutating func apply(token: String) {
        guard !token.isEmpty else { return }
        if token.hasPrefix("-") {
            let name = token.dropFirst().uppercased()
            guard !name.isEmpty else { return }
            tokens[name] = nil
            update(name, value: nil)
            return
        }
        let name: String
        let value: String
        if let equals = token.firstIndex(of: "=") {
            name = token[..<equals].uppercased()
            value = Self.unescape(token[token.index(after: equals)...])
        } else {
            name = token.uppercased()
            value = ""
        }
        guard !name.isEmpty else { return }
        tokens[name] = value
        update(name, value: value)
    }

    /// The value of a token, `""` for a token without value, `nil` if not advertised.
    public subscript(token: String) -> String? {
        tokens[token.uppercased()]
    }

    /// Whether `name` starts with one of the ``channelTypes``.
    public func isChannel(_ name: some StringProtocol) -> Bool {
        guard let first = name.first else { return false }
        return channelTypes.contains(first)
    }

    /// Whether the server passes the client-only tag `name` (given without its `+`, e.g.
    /// `draft/reply`) from one client to others: not when `CLIENTTAGDENY` lists it, nor when it
    /// denies every tag (`*`) without exempting this one (`-draft/reply`). A server that names no
    /// `CLIENTTAGDENY` passes them all (whether it passes tags at all is the `message-tags` capability).
    public func allowsClientTag(_ name: String) -> Bool {
        let denied = clientTagDenyEntries
        if denied.contains("*") { return denied.contains("-" + name) }
        return !denied.contains(name)
    }

    /// Whether `CLIENTTAGDENY` names the client-only tag `name` as an exemption (`-name`): the
    /// server says it knows that tag and passes it.
    public func exemptsClientTag(_ name: String) -> Bool {
        clientTagDenyEntries.contains("-" + name)
    }

    /// The comma-separated entries of `CLIENTTAGDENY` (none when not advertised); a tag written
    /// with its `+` counts as written without.
    private var clientTagDenyEntries: Set<String> {
        guard let value = tokens["CLIENTTAGDENY"], !value.isEmpty else { return [] }
        return Set(
            value.split(separator: ",").map { entry in
                let exempt = entry.hasPrefix("-")
                let name = exempt ? entry.dropFirst() : entry
                return (exempt ? "-" : "") + (name.hasPrefix("+") ? name.dropFirst() : name)
            })
    }

    /// The membership prefix symbols in order, e.g. `"~&@%+"`.
    public var prefixSymbols: String { String(prefixes.map(\.symbol)) }

    /// The membership mode for a symbol (e.g. `@` → `o`).
    public func mode(forPrefix symbol: Character) -> Character? {
        prefixes.first { $0.symbol == symbol }?.mode
    }

    /// Splits a NAMES entry such as `@+nick` into its prefix symbols and the nick.
    public func splitPrefixes(_ entry: String) -> (symbols: String, nick: String) {
        let symbols = Set(prefixes.map(\.symbol))
        let nickStart = entry.firstIndex { !symbols.contains($0) } ?? entry.endIndex
        return (String(entry[..<nickStart]), String(entry[nickStart...]))
    }

    /// Compares two names with the server's casemapping.
    public func namesEqual(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        caseMapping.equals(lhs, rhs)
    }

    /// Whether two nicks or channel names are equal under the server's casemapping.
    public func namesEqual(_ lhs: String, _ rhs: String) -> Bool {
        caseMapping.equals(lhs, rhs)
    }

    // MARK: Token handling

    private mutating func update(_ name: String, value: String?) {
        switch name {
        case "CASEMAPPING":
            caseMapping = value.map { CaseMapping(isupportValue: $0) ?? .ascii } ?? Self.defaultCaseMapping
        case "CHANTYPES":
            channelTypes = value ?? Self.defaultChannelTypes
        case "PREFIX":
            prefixes = value.map(Self.parsePrefixes) ?? Self.defaultPrefixes
        case "NICKLEN":
            nickLength = value.flatMap { Int($0) }.map { max($0, 1) } ?? Self.defaultNickLength
        case "CHANNELLEN":
            // An empty value means no limit.
            if let value, value.isEmpty {
                channelLength = Int.max
            } else {
                channelLength = value.flatMap { Int($0) }.map { max($0, 1) } ?? Self.defaultChannelLength
            }
        case "LINELEN":
            lineLength = value.flatMap { Int($0) }.map { max($0, 64) } ?? Self.defaultLineLength
        case "NETWORK":
            networkName = value.flatMap { $0.isEmpty ? nil : $0 }
        case "BOT":
            // One ASCII letter; anything else is not a mode the bot could set.
            botMode = value.flatMap { $0.count == 1 ? $0.first : nil }.flatMap { $0.isASCII && $0.isLetter ? $0 : nil }
        default:
            break
        }
    }

    /// `(qaohv)~&@%+` → pairs; an empty or malformed value means no prefixes.
    static func parsePrefixes(_ value: String) -> [MembershipPrefix] {
        guard value.hasPrefix("("), let close = value.firstIndex(of: ")") else { return [] }
        let modes = value[value.index(after: value.startIndex)..<close]
        let symbols = value[value.index(after: close)...]
        return zip(modes, symbols).map { MembershipPrefix(mode: $0, symbol: $1) }
    }

    /// Decodes `\xHH` escapes (e.g. `\x20` for a space, `\x5C` for a backslash).
    static func unescape(_ value: Substring) -> String {
        let bytes = Array(value.utf8)
        guard bytes.contains(0x5C) else { return String(value) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x5C, index + 3 < bytes.count, bytes[index + 1] == 0x78,
                let high = hexValue(bytes[index + 2]), let low = hexValue(bytes[index + 3])
            {
                out.append(high << 4 | low)
                index += 4
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
