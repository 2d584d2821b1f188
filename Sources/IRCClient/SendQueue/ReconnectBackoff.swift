/// Exponential reconnect backoff with jitter.
///
/// Attempt `n` (0-based) waits `minimum * multiplier^n`, capped at `maximum`, multiplied by a random
/// factor in `1 - jitter ... 1 + jitter`, and finally clamped to `minimum ... maximum`. ``reset()`` (after
/// a connection that stayed registered long enough) starts again from the minimum.
public struct ReconnectBackoff: Sendable {
    public let minimum: Duration
    public let maximum: Duration
    public let multiplier: Double
    public let jitter: Double
    /// Number of delays handed out since the last reset.
    public private(set) var attempt: Int = 0

    public init(minimum: Duration, maximum: Duration, multiplier: Double = 2, jitter: Double = 0.2) {
        self.minimum = minimum
        self.maximum = max(minimum, maximum)
        self.multiplier = max(1, multiplier)
        self.jitter = min(max(0, jitter), 1)
    }

    public init(_ configuration: IRCClientConfiguration.Reconnect) {
        self.init(
            minimum: configuration.minimumDelay,
            maximum: configuration.maximumDelay,
            multiplier: configuration.multiplier,
            jitter: configuration.jitter
        )
    }

    /// The delay before the next attempt, using the system random generator.
    public mutating func nextDelay() -> Duration {
        // Drawn through `Double.random(in:)`, never passed `inout`: the system generator has no stored
        // bytes, so its address is undefined, and ThreadSanitizer builds check inout accesses there.
        nextDelay { Double.random(in: $0) }
    }

    /// The delay before the next attempt.
    public mutating func nextDelay(using generator: inout some RandomNumberGenerator) -> Duration {
        nextDelay { Double.random(in: $0, using: &generator) }
    }

    private mutating func nextDelay(randomIn: (ClosedRange<Double>) -> Double) -> Duration {
        let minimumSeconds = Self.seconds(minimum)
        let maximumSeconds = Self.seconds(maximum)
        let exponent = Double(min(attempt, 64))
        var base = minimumSeconds * power(multiplier, exponent)
        if !base.isFinite || base > maximumSeconds { base = maximumSeconds }
        let factor = jitter > 0 ? randomIn((1 - jitter)...(1 + jitter)) : 1
        let seconds = min(max(base * factor, minimumSeconds), maximumSeconds)
        attempt += 1
        return .nanoseconds(Int64(seconds * 1_000_000_000))
    }

    /// Starts again from the minimum delay.
    public mutating func reset() {
        attempt = 0
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func power(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        var remaining = Int(exponent)
        while remaining > 0 && result.isFinite {
            result *= base
            remaining -= 1
        }
        return result
    }
}
