/// A token bucket that paces outgoing lines at what the server allows, so that the server never
/// disconnects the client for flooding and the allowance is used in full.
///
/// The bucket holds at most `burst` tokens and refills at `linesPerSecond`. A line costs what the server
/// charges for its command (``cost(of:)``): 2 for JOIN, 1 for everything else, whatever its length. A
/// line may be sent when the bucket holds at least its cost (capped at `burst`, so a line is never
/// blocked forever); sending may take the balance below zero (priority lines always go out), and the
/// debt delays later lines.
///
/// The defaults (10 lines of burst, then 1 a second) are stock InspIRCd 3's own limits (measured on 3.15
/// with Debian's `<connect>`: threshold 10, built-in commandrate 1000 = 1 command/s, fakelag on, recvq
/// 8192): the server adds a penalty per command processed (1 for PRIVMSG/NOTICE/WHO, 2 for JOIN), takes 1
/// off once a second, and holds a client's commands in its receive queue while the penalty is 10 or
/// more; it disconnects with "RecvQ exceeded" (or "Excess Flood" where fakelag is off) only once that
/// queue passes 8 KiB. The gate lets at most `burst + t` tokens out in any `t` seconds and charges what
/// the server charges, so the server is never more than its next one-second tick behind: at most one
/// line waits there, for less than a second, and the receive queue never comes near its limit.
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

    /// The number of tokens a serialized line (without CRLF) costs: what InspIRCd charges for its command.
    public static func cost(of line: some StringProtocol) -> Double {
        var command = line.utf8.prefix { $0 != 0x20 }[...]
        if command.first == UInt8(ascii: "@") || command.first == UInt8(ascii: ":") {
            // A tag or source prefix: the command is the next word.
            let rest = line.utf8.drop { $0 != 0x20 }.drop { $0 == 0x20 }
            command = rest.prefix { $0 != 0x20 }
        }
        return command.elementsEqual("JOIN".utf8) ? 2 : 1
    }

    /// Tokens available at `now`.
    public mutating func availableTokens(at now: ContinuousClock.Instant) -> Double {
        refill(at: now)
        return tokens
    }

    /// How long to wait from `now` before a line costing `cost` tokens may be sent (zero when it may go now).
    public mutating func delay(beforeSending cost: Double, at now: ContinuousClock.Instant) -> Duration {
        if isUnlimited { return .zero }
        refill(at: now)
        let needed = min(cost, burst)
        if tokens >= needed { return .zero }
        let seconds = (needed - tokens) / linesPerSecond
        return .nanoseconds(Int64((seconds * 1_000_000_000).rounded(.up)))
    }

    /// Records that a line costing `cost` tokens was sent at `now` (the balance may go negative).
    public mutating func recordSend(costing cost: Double, at now: ContinuousClock.Instant) {
        if isUnlimited { return }
        refill(at: now)
        tokens -= cost
    }

    private mutating func refill(at now: ContinuousClock.Instant) {
        guard now > updatedAt else { return }
        let elapsed = updatedAt.duration(to: now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(burst, tokens + seconds * linesPerSecond)
        updatedAt = now
    }
}
