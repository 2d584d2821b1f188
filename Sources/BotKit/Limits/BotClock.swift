/// The time source of the plugin host's limits: the continuous clock in the bot, a clock moved by
/// hand in tests (so that rate limits are tested without waiting).
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
