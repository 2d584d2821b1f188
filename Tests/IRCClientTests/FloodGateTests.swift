import IRCClient
import Testing

@Suite("FloodGate")
struct FloodGateTests {
    let start = ContinuousClock.now

    @Test func burstThenSteadyRate() {
        var gate = FloodGate(burst: 4, linesPerSecond: 1, now: start)
        for _ in 0..<4 {
            #expect(gate.delay(beforeSending: 1, at: start) == .zero)
            gate.recordSend(costing: 1, at: start)
        }
        // The fifth line must wait one full second.
        #expect(gate.delay(beforeSending: 1, at: start) == .seconds(1))
        #expect(gate.delay(beforeSending: 1, at: start + .milliseconds(500)) == .milliseconds(500))
        #expect(gate.delay(beforeSending: 1, at: start + .seconds(1)) == .zero)
    }

    @Test func refillIsCappedAtBurst() {
        var gate = FloodGate(burst: 3, linesPerSecond: 2, now: start)
        gate.recordSend(costing: 1, at: start)
        #expect(gate.availableTokens(at: start + .seconds(60)) == 3)
    }

    @Test func aLineCostsWhatInspircdChargesForItsCommand() {
        #expect(FloodGate.cost(of: "PRIVMSG #class :hi") == 1)
        #expect(FloodGate.cost(of: "PRIVMSG #class :" + String(repeating: "x", count: 480)) == 1)
        #expect(FloodGate.cost(of: "NOTICE alice :\u{01}VERSION x\u{01}") == 1)
        #expect(FloodGate.cost(of: "JOIN #class") == 2)
        #expect(FloodGate.cost(of: "@label=1 JOIN #class") == 2)
        #expect(FloodGate.cost(of: "PRIVMSG #class :JOIN") == 1)
        var gate = FloodGate(burst: 4, linesPerSecond: 1, now: start)
        gate.recordSend(costing: FloodGate.cost(of: "JOIN #a"), at: start)
        gate.recordSend(costing: FloodGate.cost(of: "JOIN #b"), at: start)
        #expect(gate.availableTokens(at: start) == 0)
        #expect(gate.delay(beforeSending: 2, at: start) == .seconds(2))
    }

    @Test func priorityDebtDelaysNormalLines() {
        var gate = FloodGate(burst: 2, linesPerSecond: 1, now: start)
        for _ in 0..<4 { gate.recordSend(costing: 1, at: start) }
        #expect(gate.availableTokens(at: start) == -2)
        #expect(gate.delay(beforeSending: 1, at: start) == .seconds(3))
    }

    @Test func lineCostingMoreThanBurstIsNotBlockedForever() {
        var gate = FloodGate(burst: 1, linesPerSecond: 1, now: start)
        #expect(gate.delay(beforeSending: 2, at: start) == .zero)
    }

    @Test func sustainedRateNeverExceedsConfiguration() {
        // Simulate a writer sending 100 lines as fast as the gate allows; count lines per sliding 10 s window.
        var gate = FloodGate(burst: 4, linesPerSecond: 1, now: start)
        var now = start
        var sentAt: [ContinuousClock.Instant] = []
        while sentAt.count < 100 {
            let wait = gate.delay(beforeSending: 1, at: now)
            now = now + wait
            gate.recordSend(costing: 1, at: now)
            sentAt.append(now)
        }
        for (index, instant) in sentAt.enumerated() {
            let inWindow = sentAt[index...].prefix { $0 < instant + .seconds(10) }.count
            #expect(inWindow <= 4 + 10)
        }
        #expect(start.duration(to: sentAt[99]) >= .seconds(95))
    }
}

@Suite("ReconnectBackoff")
struct ReconnectBackoffTests {
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    @Test func growsExponentiallyWithinJitterAndCaps() {
        var backoff = ReconnectBackoff(
            minimum: .seconds(10),
            maximum: .seconds(300),
            multiplier: 2,
            jitter: 0.2
        )
        var generator = SeededGenerator(state: 42)
        let expectedBases: [Double] = [10, 20, 40, 80, 160, 300, 300, 300]
        for base in expectedBases {
            let delay = backoff.nextDelay(using: &generator)
            let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
            #expect(seconds >= max(10, base * 0.8) - 0.001)
            #expect(seconds <= min(300, base * 1.2) + 0.001)
        }
        #expect(backoff.attempt == expectedBases.count)
    }

    @Test func jitterActuallyVaries() {
        var generator = SeededGenerator(state: 7)
        var delays: Set<Duration> = []
        for _ in 0..<20 {
            var backoff = ReconnectBackoff(minimum: .seconds(10), maximum: .seconds(300), jitter: 0.2)
            _ = backoff.nextDelay(using: &generator)
            delays.insert(backoff.nextDelay(using: &generator))
        }
        #expect(delays.count > 10)
        #expect(delays.allSatisfy { $0 >= .seconds(16) && $0 <= .seconds(24) })
    }

    @Test func resetStartsFromTheMinimum() {
        var backoff = ReconnectBackoff(minimum: .milliseconds(100), maximum: .seconds(5), jitter: 0)
        for _ in 0..<5 { _ = backoff.nextDelay() }
        backoff.reset()
        #expect(backoff.nextDelay() == .milliseconds(100))
        #expect(backoff.nextDelay() == .milliseconds(200))
    }
}
