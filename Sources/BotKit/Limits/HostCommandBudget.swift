/// How many commands one place may send the bot: a bucket per host (an IPv6 address by its /64) or
/// services account, which holds `burst` commands and fills again at `perMinute`. The per-user
/// flood rule keys on user@host, which a crowd of connections from one address varies at will; this
/// keys on what it cannot vary. A school behind one NAT address shares it, so it is generous: a
/// class of 30 all typing at once gets through, 400 scripted connections do not. Pure value type;
/// the router owns one.
public struct HostCommandBudget: Sendable {
    /// Commands a place may send at once.
    public var burst: Int
    /// Commands a place gets back each minute.
    public var perMinute: Int
    /// Refusals a place is told of each minute (the rest are silent, so that refusing a crowd
    /// does not itself fill the send queue).
    public var refusalNoticesPerMinute: Int

    private var buckets: [String: Bucket] = [:]

    private struct Bucket: Sendable {
        var tokens: Double
        var updatedAt: Duration
        var noticesSent = 0
        var noticeWindowStart: Duration
    }

    public init(burst: Int = 40, perMinute: Int = 60, refusalNoticesPerMinute: Int = 3) {
        self.burst = max(1, burst)
        self.perMinute = max(1, perMinute)
        self.refusalNoticesPerMinute = refusalNoticesPerMinute
    }

    /// What to do with one more command from a place.
    public enum Verdict: Sendable, Equatable {
        /// Go ahead.
        case allow
        /// Over the budget: the command is not run. `tell` says whether the sender gets a sentence
        /// (saying to try again after `retryAfter`) or silence.
        case refuse(retryAfter: Duration, tell: Bool)
    }

    /// Takes one command from the bucket of `place`, or refuses it.
    public mutating func register(_ place: String, at now: Duration) -> Verdict {
        let capacity = Double(burst)
        var bucket = buckets[place] ?? Bucket(tokens: capacity, updatedAt: now, noticeWindowStart: now)
        bucket.tokens = min(capacity, bucket.tokens + refill(over: now - bucket.updatedAt))
        bucket.updatedAt = now
        defer {
            buckets[place] = bucket
            if buckets.count > 10_000 { prune(now: now) }
        }
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            return .allow
        }
        if now - bucket.noticeWindowStart >= .seconds(60) {
            bucket.noticeWindowStart = now
            bucket.noticesSent = 0
        }
        let tell = bucket.noticesSent < refusalNoticesPerMinute
        if tell { bucket.noticesSent += 1 }
        let wait = (1 - bucket.tokens) * 60 / Double(perMinute)
        return .refuse(retryAfter: .milliseconds(Int64((wait * 1000).rounded(.up))), tell: tell)
    }

    private func refill(over elapsed: Duration) -> Double {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return max(0, seconds) * Double(perMinute) / 60
    }

    /// Forgets the places whose bucket is full again (they are as if never seen).
    private mutating func prune(now: Duration) {
        let capacity = Double(burst)
        buckets = buckets.filter { _, bucket in
            bucket.tokens + refill(over: now - bucket.updatedAt) < capacity
        }
    }
}
