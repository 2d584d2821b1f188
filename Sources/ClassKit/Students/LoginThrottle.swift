import Foundation
import OnTheMapService

/// Slows down password guessing on three levels, before the backend is asked. Failures are counted
/// against what an attacker cannot change cheaply: an **identity** is the services account, else
/// the host (an IPv6 address by its /64), never the nick or user name; the **origin** of an attempt
/// is always its host (see `LoginPlugin.throttleKeys`).
///
/// - **one identity**: after `identityFailureLimit` wrong passwords it waits `lockout`; each
///   further lockout doubles, up to `maximumLockout`;
/// - **one email**: after `emailFailureLimit` wrong passwords for it, from anywhere, the email waits
///   the same way — for the identities that gave one of those wrong passwords and, once they came
///   from `emailSpreadLimit` identities or more (a guesser spread over many addresses), for every
///   identity. An identity that logged in to the email before (it is *trusted* for that email: the
///   owner's usual hosts and services account) is never held back, so the owner is never locked out;
///   guesses spread over any number of addresses get `emailFailureLimit` a lockout, whose doubling
///   leaves 30 in the first hour and 70 in the first day with the default policy;
/// - **everyone**: each origin counts at most `identityFailureLimit` failures per `globalWindow`
///   towards a bot-wide `globalFailureLimit`; while the cap is reached, origins with a failure of
///   their own in the window wait (trusted identities excepted), and origins without one do not.
///
/// Every email string is counted the same way whether or not an account has it, so the throttle
/// never tells who has an account. A successful login forgets the failures of its identity and
/// its email. Failures older than `forgetAfter` are forgotten. Which identity logged in to which
/// email is kept in the `store` (at most `trustCapacity` pairs, the least recent dropped first), so a
/// restart does not forget it; failures and lockouts are kept in memory only.
public actor LoginThrottle {
    /// The limits.
    public struct Policy: Sendable, Equatable {
        public var identityFailureLimit: Int
        public var emailFailureLimit: Int
        /// From how many failing identities an email's lockout holds back every untrusted one.
        public var emailSpreadLimit: Int
        public var globalFailureLimit: Int
        public var globalWindow: Duration
        /// The first lockout; each further one doubles.
        public var lockout: Duration
        public var maximumLockout: Duration
        public var forgetAfter: Duration
        /// How many (email, identity) pairs that logged in are remembered.
        public var trustCapacity: Int

        public init(
            identityFailureLimit: Int = 5, emailFailureLimit: Int = 10, emailSpreadLimit: Int = 3,
            globalFailureLimit: Int = 60,
            globalWindow: Duration = .seconds(60), lockout: Duration = .seconds(15 * 60),
            maximumLockout: Duration = .seconds(24 * 3600), forgetAfter: Duration = .seconds(24 * 3600),
            trustCapacity: Int = 5_000
        ) {
            self.identityFailureLimit = max(1, identityFailureLimit)
            self.emailFailureLimit = max(1, emailFailureLimit)
            self.emailSpreadLimit = max(1, emailSpreadLimit)
            self.globalFailureLimit = max(1, globalFailureLimit)
            self.globalWindow = globalWindow
            self.lockout = lockout
            self.maximumLockout = max(lockout, maximumLockout)
            self.forgetAfter = forgetAfter
            self.trustCapacity = max(1, trustCapacity)
        }
    }

    /// Why a login has to wait.
    public enum Reason: Sendable, Equatable {
        /// This identity gave too many wrong passwords.
        case identity
        /// Too many wrong passwords were tried for this email, this identity's among them.
        case email
        /// Too many wrong passwords on the whole bot just now, this origin's among them.
        case everyone
    }

    /// A login that has to wait.
    public struct Refusal: Sendable, Equatable {
        public var seconds: Int
        public var reason: Reason

        public init(seconds: Int, reason: Reason) {
            self.seconds = seconds
            self.reason = reason
        }
    }

    /// The state-store key of the trusted pairs.
    public static let stateKey = "login.trusted"
    /// How many identities are trusted for one email (the least recent is dropped first).
    static let identitiesPerEmail = 8
    /// How many identities are remembered as having failed on one email.
    static let failersPerEmail = 256
    /// A trusted pair's time is saved again when it is older than this (it orders the dropping).
    static let trustRefresh: TimeInterval = 24 * 3600

    private struct Record {
        var failures = 0
        /// Lockouts so far (each doubles the next one).
        var level = 0
        var lockedUntil: Date?
        var lastFailure: Date
        /// The identities that gave a wrong password (emails only), with when they last did.
        var failedBy: [String: Date] = [:]
    }

    /// One trusted pair as stored.
    private struct TrustedPair: Codable {
        var email: String
        public var identity: String
        /// Seconds since 1970 of the last login (at most `trustRefresh` old).
        var at: Double
    }

    public let policy: Policy
    private let store: (any BotStateStore)?
    private let now: @Sendable () -> Date
    private var identities: [String: Record] = [:]
    private var emails: [String: Record] = [:]
    /// Failures counted towards the bot-wide cap in the current window, oldest first.
    private var counted: [(at: Date, origin: String)] = []
    private var countedByOrigin: [String: Int] = [:]
    /// Each origin's latest failure (counted or not), while in the window.
    private var lastFailureByOrigin: [String: Date] = [:]
    /// Email → identities that logged in to it, with when.
    private var trusted: [String: [String: Date]] = [:]
    private var trustedCount = 0
    private var loaded = false
    private var loading: Task<String??, Never>?
    private var saving = false
    /// The emails the store held when it was last read or written here: one missing from it later
    /// was erased elsewhere (`accounts forget`, another bot), and is not written back.
    private var storedEmails: Set<String> = []
    /// Trusted pairs changed since they were last written.
    private var needsSave = false

    /// `store` keeps the trusted pairs across restarts (nil: memory only).
    public init(
        policy: Policy = Policy(), store: (any BotStateStore)? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.policy = policy
        self.store = store
        self.now = now
    }

    /// Whether a login by `identity` (from `origin`, by default the identity itself) for `email`
    /// has to wait, and how long.
    public func check(identity: String, origin: String? = nil, email: String) async -> Refusal? {
        await loadTrust()
        let now = now()
        let emailKey = Self.emailKey(email)
        if let wait = remaining(&identities, identity, now: now) {
            return Refusal(seconds: wait, reason: .identity)
        }
        let isTrusted = trusted[emailKey]?[identity] != nil
        if !isTrusted, let failers = emails[emailKey]?.failedBy,
            failers[identity] != nil || failers.count >= policy.emailSpreadLimit,
            let wait = remaining(&emails, emailKey, now: now)
        {
            return Refusal(seconds: wait, reason: .email)
        }
        if !isTrusted, let wait = globalWait(origin: origin ?? identity, now: now) {
            return Refusal(seconds: wait, reason: .everyone)
        }
        return nil
    }

    /// Counts a wrong password; returns the wait this failure started for `identity`, if any.
    @discardableResult
    public func recordFailure(identity: String, origin: String? = nil, email: String) -> Refusal? {
        let now = now()
        let emailKey = Self.emailKey(email)
        let origin = origin ?? identity
        expireWindow(now: now)
        lastFailureByOrigin[origin] = now
        if countedByOrigin[origin, default: 0] < policy.identityFailureLimit {
            counted.append((now, origin))
            countedByOrigin[origin, default: 0] += 1
        }
        var started: [Refusal] = []
        if let wait = fail(&identities, identity, limit: policy.identityFailureLimit, now: now) {
            started.append(Refusal(seconds: wait, reason: .identity))
        }
        let emailWait = fail(&emails, emailKey, limit: policy.emailFailureLimit, now: now)
        emails[emailKey]?.failedBy[identity] = now
        if let failers = emails[emailKey]?.failedBy, failers.count > Self.failersPerEmail,
            let oldest = failers.min(by: { $0.value < $1.value })
        {
            emails[emailKey]?.failedBy[oldest.key] = nil
        }
        if let emailWait, trusted[emailKey]?[identity] == nil {
            started.append(Refusal(seconds: emailWait, reason: .email))
        }
        prune(now: now)
        return started.max { $0.seconds < $1.seconds }
    }

    /// A successful login forgets the failures of the identity and of the email, and trusts the
    /// identity for the email (saved in the store).
    public func recordSuccess(identity: String, email: String) async {
        let emailKey = Self.emailKey(email)
        let now = now()
        identities[identity] = nil
        emails[emailKey] = nil
        let previous = trusted[emailKey]?[identity]
        trust(identity, emailKey, at: now)
        if previous.map({ now.timeIntervalSince($0) > Self.trustRefresh }) ?? true { needsSave = true }
        if needsSave { await saveTrust() }
    }

    /// The identities trusted for `email` (they logged in to it), with when each last did.
    public func trusted(email: String) async -> [(identity: String, at: Date)] {
        await loadTrust()
        return (trusted[Self.emailKey(email)] ?? [:]).map { ($0.key, $0.value) }.sorted { $0.at < $1.at }
    }

    /// Forgets everything counted or trusted for `email` (an erased account) and saves the trusted
    /// pairs without it; returns how many identities were trusted for it.
    @discardableResult
    public func forget(email: String) async -> Int {
        await loadTrust()
        let emailKey = Self.emailKey(email)
        emails[emailKey] = nil
        let forgotten = trusted.removeValue(forKey: emailKey)?.count ?? 0
        trustedCount -= forgotten
        if forgotten > 0 {
            needsSave = true
            await saveTrust()
        }
        return forgotten
    }

    /// The identities the stored trusted pairs `text` trust for `email`, with when each last logged in.
    public static func trusted(in text: String, email: String) -> [(identity: String, at: Date)] {
        let emailKey = Self.emailKey(email)
        let pairs = (try? JSONDecoder().decode([TrustedPair].self, from: Data(text.utf8))) ?? []
        return pairs.filter { $0.email == emailKey }.map { ($0.identity, Date(timeIntervalSince1970: $0.at)) }
    }

    /// The trusted pairs `text` holds without those of `email`; nil when it holds none (or cannot
    /// be read).
    public static func scrub(_ text: String, email: String) -> String? {
        let emailKey = Self.emailKey(email)
        guard let pairs = try? JSONDecoder().decode([TrustedPair].self, from: Data(text.utf8)),
            pairs.contains(where: { $0.email == emailKey })
        else { return nil }
        return (try? JSONEncoder().encode(pairs.filter { $0.email != emailKey })).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    // MARK: - Internals

    static func emailKey(_ email: String) -> String {
        String(email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased().utf8.prefix(254)) ?? email
    }

    private func remaining(_ records: inout [String: Record], _ key: String, now: Date) -> Int? {
        guard let until = records[key]?.lockedUntil else { return nil }
        let left = until.timeIntervalSince(now)
        guard left > 0 else {
            records[key]?.lockedUntil = nil
            return nil
        }
        return Int(left.rounded(.up))
    }

    private func fail(_ records: inout [String: Record], _ key: String, limit: Int, now: Date) -> Int? {
        var record = records[key] ?? Record(lastFailure: now)
        if now.timeIntervalSince(record.lastFailure) > Self.seconds(policy.forgetAfter) {
            record = Record(lastFailure: now)
        }
        record.failures += 1
        record.lastFailure = now
        defer { records[key] = record }
        guard record.failures >= limit else { return nil }
        let doubled = Self.seconds(policy.lockout) * pow(2, Double(min(record.level, 30)))
        let lockout = min(doubled, Self.seconds(policy.maximumLockout))
        record.failures = 0
        record.level += 1
        record.lockedUntil = now.addingTimeInterval(lockout)
        return Int(lockout.rounded(.up))
    }

    /// Forgets the failures that left the bot-wide window.
    private func expireWindow(now: Date) {
        let window = Self.seconds(policy.globalWindow)
        let expired = counted.prefix(while: { now.timeIntervalSince($0.at) >= window })
        for failure in expired {
            let left = countedByOrigin[failure.origin, default: 1] - 1
            countedByOrigin[failure.origin] = left > 0 ? left : nil
        }
        counted.removeFirst(expired.count)
        if lastFailureByOrigin.count > max(1_000, 2 * countedByOrigin.count) {
            lastFailureByOrigin = lastFailureByOrigin.filter { now.timeIntervalSince($0.value) < window }
        }
    }

    /// How long `origin` waits for the bot-wide cap: while the cap is reached and it failed in
    /// the window, until either is no longer so.
    private func globalWait(origin: String, now: Date) -> Int? {
        expireWindow(now: now)
        let window = Self.seconds(policy.globalWindow)
        let excess = counted.count - policy.globalFailureLimit
        guard excess >= 0, let own = lastFailureByOrigin[origin], now.timeIntervalSince(own) < window else {
            return nil
        }
        let capClears = window - now.timeIntervalSince(counted[excess].at)
        let ownClears = window - now.timeIntervalSince(own)
        return max(1, Int(min(capClears, ownClears).rounded(.up)))
    }

    /// Keeps memory bounded when many identities or emails fail (forgets quiet, unlocked ones).
    private func prune(now: Date) {
        let limit = 20_000
        let forget = Self.seconds(policy.forgetAfter)
        func keep(_ record: Record) -> Bool {
            if let until = record.lockedUntil, until > now { return true }
            return now.timeIntervalSince(record.lastFailure) <= forget
        }
        if identities.count > limit { identities = identities.filter { keep($0.value) } }
        if emails.count > limit { emails = emails.filter { keep($0.value) } }
    }

    private func trust(_ identity: String, _ emailKey: String, at date: Date) {
        var known = trusted[emailKey] ?? [:]
        if known.updateValue(date, forKey: identity) == nil {
            trustedCount += 1
            if known.count > Self.identitiesPerEmail, let oldest = known.min(by: { $0.value < $1.value }) {
                known[oldest.key] = nil
                trustedCount -= 1
            }
        }
        trusted[emailKey] = known
        while trustedCount > policy.trustCapacity {
            var oldest: (email: String, identity: String, at: Date)?
            for (email, identities) in trusted {
                for (identity, at) in identities where at < (oldest?.at ?? .distantFuture) {
                    oldest = (email, identity, at)
                }
            }
            guard let oldest else { break }
            trusted[oldest.email]?[oldest.identity] = nil
            if trusted[oldest.email]?.isEmpty == true { trusted[oldest.email] = nil }
            trustedCount -= 1
        }
    }

    /// Reads the trusted pairs from the store once (again on the next call when the store failed).
    private func loadTrust() async {
        guard !loaded, let store else { return }
        let task =
            loading
            ?? Task {
                do { return .some(try await store.state(Self.stateKey)) } catch { return .none }
            }
        loading = task
        let result = await task.value
        guard !loaded else { return }
        loading = nil
        guard case .some(let text) = result else { return }
        loaded = true
        let pairs = text.flatMap { try? JSONDecoder().decode([TrustedPair].self, from: Data($0.utf8)) } ?? []
        storedEmails = Set(pairs.map(\.email))
        for pair in pairs {
            let at = Date(timeIntervalSince1970: pair.at)
            if let known = trusted[pair.email]?[pair.identity], known >= at { continue }
            trust(pair.identity, pair.email, at: at)
        }
    }

    /// Writes the trusted pairs to the store when `needsSave` (one writer at a time; the last state
    /// wins). What could not be written is written on a later call.
    private func saveTrust() async {
        guard let store else {
            needsSave = false
            return
        }
        await loadTrust()
        // Never overwrite what is stored with less than it holds: wait for a read that succeeds.
        guard loaded, !saving else { return }
        saving = true
        defer { saving = false }
        while needsSave {
            needsSave = false
            await dropTrustErasedElsewhere(store)
            var pairs: [TrustedPair] = []
            for (email, identities) in trusted {
                for (identity, at) in identities {
                    pairs.append(TrustedPair(email: email, identity: identity, at: at.timeIntervalSince1970))
                }
            }
            pairs.sort { ($0.at, $0.email, $0.identity) < ($1.at, $1.email, $1.identity) }
            do {
                let data = try JSONEncoder().encode(pairs)
                try await store.setState(Self.stateKey, String(decoding: data, as: UTF8.self))
                storedEmails = Set(pairs.map(\.email))
            } catch {
                needsSave = true
                return
            }
        }
    }

    /// Forgets the emails that left the store since it was last read or written here (erased by
    /// another process), so that this one does not write them back.
    private func dropTrustErasedElsewhere(_ store: any BotStateStore) async {
        guard let text = try? await store.state(Self.stateKey) else { return }
        let pairs = (try? JSONDecoder().decode([TrustedPair].self, from: Data(text.utf8))) ?? []
        for email in storedEmails.subtracting(pairs.map(\.email)) {
            trustedCount -= trusted.removeValue(forKey: email)?.count ?? 0
            emails[email] = nil
        }
        storedEmails = Set(pairs.map(\.email))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
