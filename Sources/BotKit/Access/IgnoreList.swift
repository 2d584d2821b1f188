import IRCProtocol

/// Masks whose commands the bot ignores, each until a time or until lifted (`!ignore`,
/// `!unignore`). Owners are never ignored (the router checks them first). Pure value type.
public struct IgnoreList: Sendable {
    /// One ignored mask.
    public struct Entry: Sendable, Equatable {
        /// `nick!user@host`, as normalized by ``IgnoreList/normalizedMask(_:)``.
        public var mask: String
        /// When the entry lapses (on the router's clock), nil for "until lifted".
        public var until: Duration?
        /// Who added it (an owner's nick), for `!ignores`.
        public var addedBy: String
    }

    /// The most entries kept: an owner's typo loop cannot grow the list without end.
    public static let capacity = 500

    public private(set) var entries: [Entry] = []

    public init() {}

    public var isEmpty: Bool { entries.isEmpty }

    /// Completes a mask as owners type them: `nick` → `nick!*@*`, `user@host` → `*!user@host`,
    /// `nick!user` → `nick!user@*`. Nil when it has spaces or control characters, is empty, is
    /// longer than 200 bytes, or has more than one `!` or `@`.
    public static func normalizedMask(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= 200,
            !text.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }),
            text.filter({ $0 == "!" }).count <= 1, text.filter({ $0 == "@" }).count <= 1
        else { return nil }
        let hasBang = text.contains("!")
        let hasAt = text.contains("@")
        switch (hasBang, hasAt) {
        case (true, true):
            guard let bang = text.firstIndex(of: "!"), let at = text.firstIndex(of: "@"), bang < at else { return nil }
            return text
        case (true, false): return text + "@*"
        case (false, true): return "*!" + text
        case (false, false): return text + "!*@*"
        }
    }

    /// Adds `mask` (normalized) or replaces its entry (the same mask under `caseMapping`); false
    /// when the list is full.
    @discardableResult
    public mutating func add(
        _ mask: String, until: Duration?, addedBy: String, caseMapping: CaseMapping = .rfc1459
    ) -> Bool {
        if let index = entries.firstIndex(where: { caseMapping.equals($0.mask, mask) }) {
            entries[index] = Entry(mask: mask, until: until, addedBy: addedBy)
            return true
        }
        guard entries.count < Self.capacity else { return false }
        entries.append(Entry(mask: mask, until: until, addedBy: addedBy))
        return true
    }

    /// Removes the entry of `mask` (normalized, any case under `caseMapping`); false when there was none.
    public mutating func remove(_ mask: String, caseMapping: CaseMapping = .rfc1459) -> Bool {
        let before = entries.count
        entries.removeAll { caseMapping.equals($0.mask, mask) }
        return entries.count < before
    }

    /// Drops the entries that lapsed by `now`.
    public mutating func expire(at now: Duration) {
        entries.removeAll { $0.until.map { $0 <= now } ?? false }
    }

    /// Whether an entry that has not lapsed matches `sender` (its unknown user or host match only `*`).
    public func matches(_ sender: UserIdentity, at now: Duration, caseMapping: CaseMapping) -> Bool {
        let subject = "\(sender.nick)!\(sender.user ?? "*")@\(sender.host ?? "*")"
        return entries.contains { entry in
            (entry.until.map { now < $0 } ?? true)
                && IRCMask(entry.mask, caseMapping: caseMapping).matches(subject)
        }
    }
}
