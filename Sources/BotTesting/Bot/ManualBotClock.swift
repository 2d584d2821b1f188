import BotKit
import NIOConcurrencyHelpers

/// A clock that only moves when told to, so that rate limits are tested without waiting.
public final class ManualBotClock: BotClock {
    private let current = NIOLockedValueBox<Duration>(.zero)
    public init() {}
    public func now() -> Duration { current.withLockedValue { $0 } }
    /// Moves the clock forward.
    public func advance(by duration: Duration) { current.withLockedValue { $0 += duration } }
}
