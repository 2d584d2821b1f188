/// A token bucket that paces outgoing lines so the server never disconnects the client for flooding.
///
/// The bucket holds at most `burst` tokens and refills at `linesPerSecond`. A line costs
/// `1 + bytes / 256` tokens (integer division, bytes including CRLF): a short line costs 1, a full
/// 512-byte line costs 2, because servers' penalty schemes charge long lines more. A line may be sent
/// when the bucket holds at least its cost (capped at `burst`, so a line is never blocked forever);
/// sending may take the balance below zero (priority lines always go out), and the debt delays later
/// lines.
///
/// Why the defaults (4 lines of burst, then 0.9 lines a second) are safe on stock InspIRCd 3 (measured on
/// 3.15 with Debian's `<connect>`: threshold 10, built-in commandrate 1000 = 1 command/s, fakelag on,
/// recvq 8192): the server adds a penalty per command processed (1 for PRIVMSG/NOTICE/WHO, 2 for JOIN),
/// takes 1 off once a second, and holds a client's commands in its receive queue while the penalty is 10
/// or more; it disconnects with "RecvQ exceeded" (or "Excess Flood" where fakelag is off) once that
/// queue passes 8 KiB. The gate lets at most `burst + 0.9 t` tokens out in any `t` seconds, so the penalty
/// stays near `burst + 1` and no line of the bot is even held back, whatever the load. Exactly 1 line a
/// second would have no margin: each JOIN's extra point, or a server tick missed under load, would stay
/// for good while the bot is busy.
///
/// `linesPerSecond` of 0 (or less) turns the gate off: every line may go at once (benchmarks, or a
/// server whose operator exempts the bot).
///
/// The gate is a pure value: every call takes the current instant, so tests control time completely.
public struct FloodGate: Sendable {
    public let burst: Double
    /// The sustained rate; 0 when the gate is off.
    public let linesPerSecond: Double
    /// `true` when the gate never holds a line back.
    public var isUnlimited: Bool { linesPerSecond == 0 }
    private var tokens: Double
    private var updatedAt: ContinuousClock.Instant

    public init(burst: Int, linesPerSecond: Double, now: ContinuousClock.Instant) {
        self.burst = Double(max(1, burst))
        self.linesPerSecond = linesPerSecond > 0 ? max(0.01, linesPerSecond) : 0
        self.tokens = self.burst
        self.updatedAt = now
    }

    /// The number of tokens a line of `byteCount` bytes (including CRLF) costs.
    public static func cost(ofLineWithByteCount byteCount: Int) -> Double {
        1 + Double(max(0, byteCount) / 256)
    }

    /// Tokens available at `now`.
    public mutating func availableTokens(at now: ContinuousClock.Instant) -> Double {
        refill(at: now)
        return tokens
    }

    /// How long to wait from `now` before a line of `byteCount` bytes may be sent (zero when it may go now).
    public mutating func delay(
        beforeSendingLineOf byteCount: Int,
        at now: ContinuousClock.Instant
    ) -> Duration {
        if isUnlimited { return .zero }
        refill(at: now)
        let needed = min(Self.cost(ofLineWithByteCount: byteCount), burst)
        if tokens >= needed { return .zero }
        let seconds = (needed - tokens) / linesPerSecond
        return .nanoseconds(Int64((seconds * 1_000_000_000).rounded(.up)))
    }

    /// Records that a line of `byteCount` bytes was sent at `now` (the balance may go negative).
    public mutating func recordSend(ofLineWithByteCount byteCount: Int, at now: ContinuousClock.Instant) {
        if isUnlimited { return }
        refill(at: now)
        tokens -= Self.cost(ofLineWithByteCount: byteCount)
    }

    private mutating func refill(at now: ContinuousClock.Instant) {
        guard now > updatedAt else { return }
        let elapsed = updatedAt.duration(to: now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(burst, tokens + seconds * linesPerSecond)
        updatedAt = now
    }
}
