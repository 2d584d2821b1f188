extension UserIdentity {
    /// What stands for a user who is not logged in to a services account in ``key(by:caseMapping:)``.
    public enum KeyBasis: Sendable, Hashable {
        /// The nick.
        case nick
        /// The host, an IPv6 address as its /64 (one customer's network); without a host, the nick.
        /// The nick and user name, which anyone changes at will, are left out.
        case network
        /// user@host: a nick change keeps the key, and users behind one school NAT or web gateway, who
        /// differ in their user names, have different keys. Without a host, the nick.
        case userAtHost
        /// nick!user@host: one connection under one nick.
        case connection
    }

    /// Who this user is, as one text: `a:` and their services account when they are logged in to one,
    /// otherwise what `basis` names (`n:` a nick, `h:` a host or user@host, `c:` nick!user@host).
    /// Nicks and accounts are folded with the server's `caseMapping`, hosts are lower-cased, user
    /// names kept as they are.
    public func key(by basis: KeyBasis, caseMapping: CaseMapping) -> String {
        if let account = loggedInAccount { return "a:" + caseMapping.lowercased(account) }
        let nickKey = "n:" + caseMapping.lowercased(nick)
        switch basis {
        case .nick:
            return nickKey
        case .network:
            guard let host, !host.isEmpty else { return nickKey }
            return "h:" + Self.networkKey(ofHost: host)
        case .userAtHost:
            guard let host, !host.isEmpty else { return nickKey }
            return "h:" + (user ?? "") + "@" + host.lowercased()
        case .connection:
            return "c:" + caseMapping.lowercased(nick) + "!" + (user ?? "") + "@" + (host ?? "").lowercased()
        }
    }

    /// A host as ``KeyBasis/network`` counts it: an IPv6 address as its /64 prefix
    /// (`2001:db8:7:1::/64`), an IPv4-mapped one as its IPv4 address, anything else (IPv4 address,
    /// host name, cloak) lower-cased.
    public static func networkKey(ofHost host: String) -> String {
        let lowered = host.lowercased()
        guard let groups = ipv6Groups(lowered) else { return lowered }
        if groups[0..<5].allSatisfy({ $0 == 0 }) && groups[5] == 0xffff {
            return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].map(String.init).joined(
                separator: ".")
        }
        return groups[0..<4].map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
    }

    /// The eight 16-bit groups of an IPv6 address in text form (`::` and a final dotted IPv4 part
    /// allowed, a `%zone` ignored), or nil when `text` is not one.
    static func ipv6Groups(_ text: String) -> [UInt16]? {
        guard text.contains(":") else { return nil }
        let address = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let halves = address.split(separator: "::", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        guard let head = ipv6Part(halves[0], endsAddress: halves.count == 1) else { return nil }
        if halves.count == 1 { return head.count == 8 ? head : nil }
        guard let tail = ipv6Part(halves[1], endsAddress: true), head.count + tail.count <= 7 else { return nil }
        return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
    }

    /// The groups of one side of an IPv6 address's `::` (a dotted IPv4 part allowed at its end).
    private static func ipv6Part(_ part: Substring, endsAddress: Bool) -> [UInt16]? {
        guard !part.isEmpty else { return [] }
        let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
        var groups: [UInt16] = []
        for (index, piece) in pieces.enumerated() {
            if endsAddress && index == pieces.count - 1 && piece.contains(".") {
                let octets = piece.split(separator: ".", omittingEmptySubsequences: false)
                let values = octets.compactMap { $0.utf8.allSatisfy { (48...57).contains($0) } ? UInt8($0) : nil }
                guard octets.count == 4, values.count == 4 else { return nil }
                groups += [UInt16(values[0]) << 8 | UInt16(values[1]), UInt16(values[2]) << 8 | UInt16(values[3])]
            } else {
                guard (1...4).contains(piece.count), piece.allSatisfy({ $0.isASCII && $0.isHexDigit }),
                    let value = UInt16(piece, radix: 16)
                else { return nil }
                groups.append(value)
            }
        }
        return groups
    }
}
