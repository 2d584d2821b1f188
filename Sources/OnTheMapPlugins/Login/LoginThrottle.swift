import Foundation

/// Slows down guessing: after `failureLimit` wrong passwords in a row from one identity, that
/// identity must wait `lockout` before it may try again.
actor LoginThrottle {
    private struct Record {
        var failures: Int
        var lockedUntil: Date?
    }

    private let failureLimit: Int
    private let lockout: TimeInterval
    private let now: @Sendable () -> Date
    private var records: [String: Record] = [:]

    init(failureLimit: Int, lockout: Duration, now: @escaping @Sendable () -> Date) {
        self.failureLimit = max(1, failureLimit)
        self.lockout = Double(lockout.components.seconds) + Double(lockout.components.attoseconds) / 1e18
        self.now = now
    }

    /// Seconds `identity` must still wait, or nil when it may try now.
    func waitTime(for identity: String) -> Int? {
        guard let until = records[identity]?.lockedUntil else { return nil }
        let remaining = until.timeIntervalSince(now())
        guard remaining > 0 else {
            records[identity] = nil
            return nil
        }
        return Int(remaining.rounded(.up))
    }

    /// Counts a wrong password; returns the lockout in seconds when this one triggered it.
    @discardableResult
    func recordFailure(for identity: String) -> Int? {
        var record = records[identity] ?? Record(failures: 0)
        record.failures += 1
        if record.failures >= failureLimit {
            record.failures = 0
            record.lockedUntil = now().addingTimeInterval(lockout)
            records[identity] = record
            return Int(lockout.rounded(.up))
        }
        records[identity] = record
        return nil
    }

    /// A successful login forgets earlier failures.
    func recordSuccess(for identity: String) {
        records[identity] = nil
    }
}
