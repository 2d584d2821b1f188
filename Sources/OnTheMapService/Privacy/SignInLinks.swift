import Foundation

/// Sign-in links: what the bot answers a student's private `!map` with when the class map is for
/// the class. Opening one signs that browser in as the student, once, within ``lifetime``.
///
/// A link's token is `<account>.<secret>`: the account key (URL-safe base64 of its UTF-8 bytes)
/// and 32 random bytes. Only the SHA-256 digest of the secret is kept, with the expiry, in the
/// directory's state store under ``stateKey(accountKey:)`` (`signin/<accountKey>`), so several bot
/// instances on one PostgreSQL share the links, and erasing an account's kept state finds its
/// link by its key. An account has at most one live link: a new `!map` replaces the one before.
public struct SignInLinks: Sendable {
    /// How long a link works after the bot gave it out.
    public static let lifetime: TimeInterval = 10 * 60
    /// The longest token looked at (a real one is under 150 characters).
    static let maximumTokenLength = 512

    /// What opening a link gave.
    public enum Redemption: Sendable, Equatable {
        /// The link was good: it is used up now, and the browser may be signed in as this account.
        case account(String)
        /// Already used, replaced by a newer link, or never given out.
        case unknown
        /// Given out more than ``SignInLinks/lifetime`` ago (it is used up now).
        case expired
    }

    let store: any BotStateStore
    let now: @Sendable () -> Date

    public init(store: any BotStateStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.now = now
    }

    /// The state-store key of the live link of `accountKey` (what per-account erasure deletes).
    public static func stateKey(accountKey: String) -> String { "signin/" + accountKey }

    /// A new link token for `accountKey`, valid for ``lifetime``; the account's earlier link stops
    /// working.
    public func issue(accountKey: String) async throws -> String {
        let secret = SessionToken.make()
        let expiry = Int64((now().addingTimeInterval(Self.lifetime).timeIntervalSince1970 * 1000).rounded())
        try await store.setState(Self.stateKey(accountKey: accountKey), "\(SessionToken.digest(secret)) \(expiry)")
        return RandomID.base64URL(Array(accountKey.utf8)) + "." + secret
    }

    /// Uses up the link of `token`. Garbage, a link used before or replaced, and a wrong secret for
    /// a real account all give `.unknown` and change nothing; a good link is deleted before this
    /// returns its account, so of two openings at once only one gets it.
    public func redeem(_ token: String) async throws -> Redemption {
        guard token.utf8.count <= Self.maximumTokenLength else { return .unknown }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty, let accountKey = Self.decodeBase64URL(String(parts[0])),
            !accountKey.isEmpty
        else { return .unknown }
        let key = Self.stateKey(accountKey: accountKey)
        let presented = SessionToken.digest(String(parts[1]))
        // Compared before anything is taken: a wrong secret does not use up the student's link.
        guard let kept = try await store.state(key), let link = Self.parse(kept),
            ConstantTime.equal(link.digest, presented)
        else { return .unknown }
        // Taken in one step; the value must still be this very link (not a newer one, nor gone).
        guard let taken = try await store.takeState(key) else { return .unknown }
        guard taken == kept else {
            // A newer link came in between: it stays the student's.
            try await store.setState(key, taken)
            return .unknown
        }
        guard link.expiresAt > now() else { return .expired }
        return .account(accountKey)
    }

    /// When the unused link of `accountKey` stops working, or nil when it has none (what
    /// `!mydata` and the data export show: the digest itself is never shown).
    public func unusedLinkExpiry(accountKey: String) async throws -> Date? {
        try await store.state(Self.stateKey(accountKey: accountKey)).flatMap(Self.unusedExpiry(in:))
    }

    /// When the link kept as `text` stops working (nil when `text` is not a kept link).
    public static func unusedExpiry(in text: String) -> Date? {
        parse(text)?.expiresAt
    }

    /// Deletes the live link of `accountKey`, if any.
    public func forget(accountKey: String) async throws {
        try await store.setState(Self.stateKey(accountKey: accountKey), nil)
    }

    static func parse(_ value: String) -> (digest: String, expiresAt: Date)? {
        let parts = value.split(separator: " ")
        guard parts.count == 2, let milliseconds = Int64(parts[1]) else { return nil }
        return (String(parts[0]), Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// The text of URL-safe base64 without padding, or nil when it is not that or not UTF-8.
    static func decodeBase64URL(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= 256,
            text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64) else { return nil }
        return String(data: data, encoding: .utf8)
    }
}
