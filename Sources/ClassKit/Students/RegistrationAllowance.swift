import Foundation

/// How many `!register` attempts one host may make: ``perHost`` in ``window``, whatever the nick,
/// user name or services account (an IPv6 host is its /64, as the login throttle counts it). Every
/// attempt counts, made or refused by the directory, so trying emails to learn which have an
/// account costs as much as making accounts. Kept in memory: a restart starts the counts afresh.
public actor RegistrationAllowance {
    public static let perHost = 3
    public static let window: TimeInterval = 24 * 3600
    /// The most hosts remembered (the least recent are forgotten first).
    static let capacity = 10_000

    private let now: @Sendable () -> Date
    private var attempts: [String: [Date]] = [:]

    public init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// Counts an attempt from `origin`; returns how many seconds it must wait instead when its
    /// allowance is used up (the attempt is then not counted).
    public func take(origin: String) -> Int? {
        let now = now()
        var recent = (attempts[origin] ?? []).filter { now.timeIntervalSince($0) < Self.window }
        if recent.count >= Self.perHost, let oldest = recent.first {
            attempts[origin] = recent
            return max(1, Int((Self.window - now.timeIntervalSince(oldest)).rounded(.up)))
        }
        recent.append(now)
        attempts[origin] = recent
        if attempts.count > Self.capacity { forgetQuiet(now: now) }
        return nil
    }

    private func forgetQuiet(now: Date) {
        attempts = attempts.filter { now.timeIntervalSince($0.value.last ?? .distantPast) < Self.window }
        guard attempts.count > Self.capacity else { return }
        let kept = attempts.sorted { ($0.value.last ?? .distantPast) > ($1.value.last ?? .distantPast) }
            .prefix(Self.capacity)
        attempts = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
    }
}
