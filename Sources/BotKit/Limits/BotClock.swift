import Synchronization

/// The time source of the plugin host. Production uses the continuous clock; tests use a
/// ``ManualBotClock`` they move by hand, so that rate limits are tested without waiting.
public protocol BotClock: Sendable {
    /// Monotonic time since an arbitrary origin.
    func now() -> Duration
}

/// The real monotonic clock.
public struct SystemBotClock: BotClock {
    private let origin = ContinuousClock.now
    public init() {}
    public func now() -> Duration { ContinuousClock.now - origin }
}

/// A clock that only moves when told to (for tests and simulations).
public final class ManualBotClock: BotClock {
    private let current = Mutex<Duration>(.zero)
    public init() {}
    public func now() -> Duration { current.withLock { $0 } }
    /// Moves the clock forward.
    public func advance(by duration: Duration) { current.withLock { $0 += duration } }
}
