/// Ignores a user who sends too many commands (Limnoria's rule: more than 12 a minute, then
/// ignored for 5 minutes). Pure value type; the router owns one.
public struct CommandFloodGuard: Sendable {
    public var maxCommands: Int
    public var window: Duration
    public var ignoreFor: Duration

    private var recent: [String: [Duration]] = [:]
    private var ignoredUntil: [String: Duration] = [:]

    public init(maxCommands: Int = 12, window: Duration = .seconds(60), ignoreFor: Duration = .seconds(300)) {
        self.maxCommands = maxCommands
        self.window = window
        self.ignoreFor = ignoreFor
    }

    /// What to do with one more command from `key`.
    public enum Verdict: Sendable, Equatable {
        /// Go ahead.
        case allow
        /// The user just crossed the limit: tell them once, then ignore.
        case startIgnoring(Duration)
        /// The user is being ignored: say nothing.
        case ignore
    }

    public mutating func register(_ key: String, at now: Duration) -> Verdict {
        if let until = ignoredUntil[key] {
            if now < until { return .ignore }
            ignoredUntil[key] = nil
        }
        var times = recent[key, default: []].filter { now - $0 < window }
        times.append(now)
        if times.count > maxCommands {
            recent[key] = nil
            ignoredUntil[key] = now + ignoreFor
            return .startIgnoring(ignoreFor)
        }
        recent[key] = times
        if recent.count > 10_000 { prune(now: now) }
        return .allow
    }

    /// Whether `key` is being ignored right now.
    public func isIgnored(_ key: String, at now: Duration) -> Bool {
        ignoredUntil[key].map { now < $0 } ?? false
    }

    private mutating func prune(now: Duration) {
        recent = recent.filter { _, times in times.contains { now - $0 < window } }
        ignoredUntil = ignoredUntil.filter { _, until in until > now }
    }
}

/// Remembers when each (command, user or venue) last ran, for ``RateLimit`` declarations.
public struct CommandCooldowns: Sendable {
    private var lastRun: [String: Duration] = [:]

    public init() {}

    /// Returns nil when the command may run now (and records it), or how long to wait.
    public mutating func check(_ key: String, every interval: Duration, at now: Duration) -> Duration? {
        if let last = lastRun[key], now - last < interval {
            return interval - (now - last)
        }
        lastRun[key] = now
        if lastRun.count > 10_000 {
            lastRun = lastRun.filter { now - $0.value < .seconds(3600) }
        }
        return nil
    }
}
