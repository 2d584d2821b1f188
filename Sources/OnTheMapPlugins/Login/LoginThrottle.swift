import Foundation

/// Slows down password guessing on three levels, before the backend is asked:
///
/// - **one identity** (services account, else user@host): after `identityFailureLimit` wrong
///   passwords it waits `lockout`; each further lockout doubles, up to `maximumLockout`;
/// - **one email**, whoever tries it (many nicks, many hosts): after `emailFailureLimit` wrong
///   passwords the email waits the same way. Identities that logged in to that email before
///   are not held back by this, so a crowd of guessers cannot lock the owner out;
/// - **everyone**: at most `globalFailureLimit` wrong passwords per `globalWindow` on the whole
///   bot; beyond that new attempts wait for the window to move on.
///
/// Every email string is counted the same way whether or not an account has it, so the throttle
/// never tells who has an account. A successful login forgets the failures of its identity and
/// its email. Failures older than `forgetAfter` are forgotten.
public actor LoginThrottle {
    /// The limits.
    public struct Policy: Sendable, Equatable {
        public var identityFailureLimit: Int
        public var emailFailureLimit: Int
        public var globalFailureLimit: Int
        public var globalWindow: Duration
        /// The first lockout; each further one doubles.
        public var lockout: Duration
        public var maximumLockout: Duration
        public var forgetAfter: Duration

        public init(
            identityFailureLimit: Int = 5, emailFailureLimit: Int = 10, globalFailureLimit: Int = 60,
            globalWindow: Duration = .seconds(60), lockout: Duration = .seconds(15 * 60),
            maximumLockout: Duration = .seconds(24 * 3600), forgetAfter: Duration = .seconds(24 * 3600)
        ) {
            self.identityFailureLimit = max(1, identityFailureLimit)
            self.emailFailureLimit = max(1, emailFailureLimit)
            self.globalFailureLimit = max(1, globalFailureLimit)
            self.globalWindow = globalWindow
            self.lockout = lockout
            self.maximumLockout = max(lockout, maximumLockout)
            self.forgetAfter = forgetAfter
        }
    }

    /// Why a login has to wait.
    public enum Reason: Sendable, Equatable {
        /// This identity gave too many wrong passwords.
        case identity
        /// Too many wrong passwords were tried for this email, from anywhere.
        case email
        /// Too many wrong passwords on the whole bot just now.
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

    private struct Record {
        var failures = 0
        /// Lockouts so far (each doubles the next one).
        var level = 0
        var lockedUntil: Date?
        var lastFailure: Date
    }

    public let policy: Policy
    private let now: @Sendable () -> Date
    private var identities: [String: Record] = [:]
    private var emails: [String: Record] = [:]
    /// Recent failures on the whole bot, oldest first (at most `globalFailureLimit`).
    private var recentFailures: [Date] = []
    /// Identities that logged in to an email (exempt from that email's lock and the global cap).
    private var owners: [String: Set<String>] = [:]

    public init(policy: Policy = Policy(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.policy = policy
        self.now = now
    }

    /// Whether a login by `identity` for `email` has to wait, and how long.
    public func check(identity: String, email: String) -> Refusal? {
        let now = now()
        let emailKey = Self.emailKey(email)
        if let wait = remaining(&identities, identity, now: now) {
            return Refusal(seconds: wait, reason: .identity)
        }
        let isOwner = owners[emailKey]?.contains(identity) == true
        if !isOwner, let wait = remaining(&emails, emailKey, now: now) {
            return Refusal(seconds: wait, reason: .email)
        }
        if !isOwner, let wait = globalWait(now: now) { return Refusal(seconds: wait, reason: .everyone) }
        return nil
    }

    /// Counts a wrong password; returns the wait this failure started, if any.
    @discardableResult
    public func recordFailure(identity: String, email: String) -> Refusal? {
        let now = now()
        let emailKey = Self.emailKey(email)
        recentFailures.append(now)
        if recentFailures.count > policy.globalFailureLimit { recentFailures.removeFirst() }
        var started: [Refusal] = []
        if let wait = fail(&identities, identity, limit: policy.identityFailureLimit, now: now) {
            started.append(Refusal(seconds: wait, reason: .identity))
        }
        if let wait = fail(&emails, emailKey, limit: policy.emailFailureLimit, now: now),
            owners[emailKey]?.contains(identity) != true
        {
            started.append(Refusal(seconds: wait, reason: .email))
        }
        prune(now: now)
        return started.max { $0.seconds < $1.seconds }
    }

    /// A successful login forgets the failures of the identity and of the email, and remembers
    /// the identity as one of the email's owners.
    public func recordSuccess(identity: String, email: String) {
        let emailKey = Self.emailKey(email)
        identities[identity] = nil
        emails[emailKey] = nil
        var known = owners[emailKey] ?? []
        if known.count >= 8 { known.removeFirst() }
        known.insert(identity)
        owners[emailKey] = known
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

    private func globalWait(now: Date) -> Int? {
        let window = Self.seconds(policy.globalWindow)
        recentFailures.removeAll { now.timeIntervalSince($0) >= window }
        guard recentFailures.count >= policy.globalFailureLimit, let oldest = recentFailures.first else {
            return nil
        }
        return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
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
        if owners.count > limit { owners = [:] }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
