extension ServerSupport {
    /// One ISUPPORT value the layers above act on, as the server gives it now: what a client
    /// publishes when a `005` changes it, so nobody above has to read `005` lines.
    public enum Change: Sendable, Hashable, CustomStringConvertible {
        /// How names compare (`CASEMAPPING`).
        case caseMapping(CaseMapping)
        /// The characters that start a channel name (`CHANTYPES`).
        case channelTypes(String)
        /// The membership prefixes, most powerful first (`PREFIX`).
        case prefixes([MembershipPrefix])
        /// The longest nick, in bytes (`NICKLEN`).
        case nickLength(Int)
        /// The longest channel name, in bytes (`CHANNELLEN`; `Int.max`: no limit).
        case channelLength(Int)
        /// The longest line, in bytes with CR LF (`LINELEN`).
        case lineLength(Int)
        /// The network's name (`NETWORK`), nil when it names none.
        case networkName(String?)
        /// The user mode that marks a bot (`BOT`), nil when it names none.
        case botMode(Character?)
        /// Whether the server paces a fast client rather than disconnect it (`SAFERATE`).
        case pacesClients(Bool)

        /// The change as the token that makes it (`CASEMAPPING=ascii`, `-BOT`, `SAFERATE`).
        public var description: String {
            switch self {
            case .caseMapping(let mapping): "CASEMAPPING=\(mapping.rawValue)"
            case .channelTypes(let types): "CHANTYPES=\(types)"
            case .prefixes(let prefixes):
                "PREFIX=(\(String(prefixes.map(\.mode))))\(String(prefixes.map(\.symbol)))"
            case .nickLength(let length): "NICKLEN=\(length)"
            case .channelLength(let length): length == Int.max ? "CHANNELLEN=" : "CHANNELLEN=\(length)"
            case .lineLength(let length): "LINELEN=\(length)"
            case .networkName(let name): name.map { "NETWORK=\($0)" } ?? "-NETWORK"
            case .botMode(let mode): mode.map { "BOT=\($0)" } ?? "-BOT"
            case .pacesClients(let paces): paces ? "SAFERATE" : "-SAFERATE"
            }
        }
    }

    /// What differs here from `earlier`, each as its value here, in the order of ``Change``'s cases
    /// (empty when nothing that matters changed: other tokens are not compared).
    public func changes(since earlier: ServerSupport) -> [Change] {
        var changes: [Change] = []
        if caseMapping != earlier.caseMapping { changes.append(.caseMapping(caseMapping)) }
        if channelTypes != earlier.channelTypes { changes.append(.channelTypes(channelTypes)) }
        if prefixes != earlier.prefixes { changes.append(.prefixes(prefixes)) }
        if nickLength != earlier.nickLength { changes.append(.nickLength(nickLength)) }
        if channelLength != earlier.channelLength { changes.append(.channelLength(channelLength)) }
        if lineLength != earlier.lineLength { changes.append(.lineLength(lineLength)) }
        if networkName != earlier.networkName { changes.append(.networkName(networkName)) }
        if botMode != earlier.botMode { changes.append(.botMode(botMode)) }
        if pacesClients != earlier.pacesClients { changes.append(.pacesClients(pacesClients)) }
        return changes
    }
}
