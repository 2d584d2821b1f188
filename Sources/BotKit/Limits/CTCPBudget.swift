/// How many CTCP queries (VERSION, PING, TIME, CLIENTINFO) the bot answers: a few per host and a few
/// in all, each budget a token bucket that refills slowly. A query beyond either budget is ignored, not
/// queued, so a CTCP flood from many connections costs the commands waiting behind it at most a few lines
/// of the bot's outgoing allowance. Pure value type; the router owns one.
public struct CTCPBudget: Sendable {
    /// Answers one host may get back to back, and how often it earns one more.
    public var perHost: Rate
    /// Answers all hosts together may get back to back, and how often they earn one more.
    public var overall: Rate

    /// A burst and the time it takes to earn back one answer.
    public struct Rate: Sendable, Equatable {
        public var burst: Int
        public var every: Duration

        public init(burst: Int, every: Duration) {
            self.burst = max(1, burst)
            self.every = every
        }
    }

    private struct Bucket: Sendable {
        var tokens: Double
        var updatedAt: Duration

        mutating func refill(_ rate: Rate, at now: Duration) {
            let elapsed = now - updatedAt
            guard elapsed > .zero else { return }
            tokens = min(Double(rate.burst), tokens + elapsed / rate.every)
            updatedAt = now
        }
    }

    private var hosts: [String: Bucket] = [:]
    private var all: Bucket?

    public init(
        perHost: Rate = Rate(burst: 3, every: .seconds(30)), overall: Rate = Rate(burst: 5, every: .seconds(5))
    ) {
        self.perHost = perHost
        self.overall = overall
    }

    /// Whether a query from `host` is answered at `now` (it is then charged to both budgets).
    public mutating func allows(host: String, at now: Duration) -> Bool {
        var overallBucket = all ?? Bucket(tokens: Double(overall.burst), updatedAt: now)
        overallBucket.refill(overall, at: now)
        var hostBucket = hosts[host] ?? Bucket(tokens: Double(perHost.burst), updatedAt: now)
        hostBucket.refill(perHost, at: now)
        guard overallBucket.tokens >= 1, hostBucket.tokens >= 1 else {
            all = overallBucket
            if hosts[host] != nil { hosts[host] = hostBucket }
            return false
        }
        overallBucket.tokens -= 1
        hostBucket.tokens -= 1
        all = overallBucket
        hosts[host] = hostBucket
        if hosts.count > 10_000 { prune(at: now) }
        return true
    }

    /// Forgets hosts whose budget is full again.
    private mutating func prune(at now: Duration) {
        let rate = perHost
        hosts = hosts.filter { _, bucket in
            var bucket = bucket
            bucket.refill(rate, at: now)
            return bucket.tokens < Double(rate.burst)
        }
    }
}
