import Foundation

/// The private addresses of a student's own data: their pin as GeoJSON and their trips as an
/// iCalendar feed, which `!mydata links` gives out. A calendar app polls its address for as long as
/// the student keeps it, so a token is not used up when it is opened and has no expiry: it works
/// until the student asks for new addresses (the old token stops working), logs out (`!logout`
/// ends every session of the account, this one included) or is erased.
///
/// A token is `<account>.<secret>` like a sign-in link's (``SignInLinks``): the account key as
/// URL-safe base64 of its UTF-8 bytes, and 32 random bytes. Only the SHA-256 digest of the secret
/// is kept, with when it was issued, in the state store under ``stateKey(accountKey:)``
/// (`export/<accountKey>`), so every bot instance on one PostgreSQL answers the same addresses and
/// erasure finds the token by its key.
public struct DataFeedLinks: Sendable {
    let store: any BotStateStore
    let now: @Sendable () -> Date

    public init(store: any BotStateStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.now = now
    }

    /// The state-store key of the live token of `accountKey` (what per-account erasure deletes).
    public static func stateKey(accountKey: String) -> String { "export/" + accountKey }

    /// A new token for `accountKey`; the account's earlier token stops working.
    public func issue(accountKey: String) async throws -> String {
        let secret = SessionToken.make()
        let issued = Int64((now().timeIntervalSince1970 * 1000).rounded())
        try await store.setState(Self.stateKey(accountKey: accountKey), "\(SessionToken.digest(secret)) \(issued)")
        return RandomID.base64URL(Array(accountKey.utf8)) + "." + secret
    }

    /// The account whose live token `token` is, or nil: garbage, a replaced or revoked token and a
    /// wrong secret for a real account all give nil, and nothing changes.
    public func account(of token: String) async throws -> String? {
        guard token.utf8.count <= SignInLinks.maximumTokenLength else { return nil }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty, let accountKey = SignInLinks.decodeBase64URL(String(parts[0])),
            !accountKey.isEmpty
        else { return nil }
        guard let kept = try await store.state(Self.stateKey(accountKey: accountKey)),
            let live = Self.parse(kept)
        else { return nil }
        return ConstantTime.equal(live.digest, SessionToken.digest(String(parts[1]))) ? accountKey : nil
    }

    /// When the live token of `accountKey` was issued, or nil when it has none (what `!mydata` and
    /// the data export show: the token and its digest are never shown).
    public func issuedAt(accountKey: String) async throws -> Date? {
        try await store.state(Self.stateKey(accountKey: accountKey)).flatMap(Self.issuedAt(in:))
    }

    /// When the token kept as `text` was issued (nil when `text` is not a kept token).
    public static func issuedAt(in text: String) -> Date? {
        parse(text)?.issuedAt
    }

    /// Revokes the live token of `accountKey`, if any.
    public func revoke(accountKey: String) async throws {
        try await store.setState(Self.stateKey(accountKey: accountKey), nil)
    }

    static func parse(_ value: String) -> (digest: String, issuedAt: Date)? {
        let parts = value.split(separator: " ")
        guard parts.count == 2, parts[0].utf8.count == 64, let milliseconds = Int64(parts[1]) else { return nil }
        return (String(parts[0]), Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
