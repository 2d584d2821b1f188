import IRCClient
import Testing

@Suite("SendQueue: round-robin between askers")
struct FairSendQueueTests {
    static func drain(_ queue: inout SendQueue) -> [String] {
        var lines: [String] = []
        while let line = queue.removeFirst() { lines.append(line) }
        return lines
    }

    @Test func oneKeyIsFirstInFirstOut() {
        var queue = SendQueue(capacity: 10)
        for index in 0..<5 { queue.enqueue("PRIVMSG bob :\(index)", fairnessKey: "bob") }
        #expect(queue.count == 5)
        #expect(queue.first == "PRIVMSG bob :0")
        #expect(Self.drain(&queue) == (0..<5).map { "PRIVMSG bob :\($0)" })
        #expect(queue.isEmpty)
        #expect(queue.first == nil)
    }

    @Test func keysAreServedRoundRobinOneLineATurn() {
        var queue = SendQueue(capacity: 100)
        for index in 0..<4 { queue.enqueue("spam\(index)", fairnessKey: "spammer") }
        queue.enqueue("alice0", fairnessKey: "alice")
        queue.enqueue("alice1", fairnessKey: "alice")
        queue.enqueue("bob0", fairnessKey: "bob")
        #expect(queue.waitingKeyCount == 3)
        #expect(Self.drain(&queue) == ["spam0", "alice0", "bob0", "spam1", "alice1", "spam2", "spam3"])
        #expect(queue.waitingKeyCount == 0)
    }

    @Test func aNewAskerWaitsAtMostOneLinePerWaitingKey() {
        // A spammer has 50 lines queued; a student who asks now is answered after at most one more
        // spammer line, not after all 50.
        var queue = SendQueue(capacity: 500)
        for index in 0..<50 { queue.enqueue("spam\(index)", fairnessKey: "spammer") }
        #expect(queue.removeFirst() == "spam0")
        queue.enqueue("answer for carol", fairnessKey: "carol")
        #expect(queue.removeFirst() == "spam1")
        #expect(queue.removeFirst() == "answer for carol")
        #expect(queue.removeFirst() == "spam2")
        #expect(queue.count == 47)
    }

    @Test func controlLinesGoBeforeReplies() {
        var queue = SendQueue(capacity: 100)
        queue.enqueue("PRIVMSG #class :hello", fairnessKey: "#class")
        queue.enqueue("JOIN #other")
        queue.enqueue("PRIVMSG alice :hi", fairnessKey: "alice")
        queue.enqueue("WHO #other")
        #expect(queue.first == "JOIN #other")
        #expect(Self.drain(&queue) == ["JOIN #other", "WHO #other", "PRIVMSG #class :hello", "PRIVMSG alice :hi"])
    }

    @Test func firstIsWhatRemoveFirstReturns() {
        var queue = SendQueue(capacity: 100)
        queue.enqueue("a0", fairnessKey: "a")
        queue.enqueue("a1", fairnessKey: "a")
        queue.enqueue("b0", fairnessKey: "b")
        queue.enqueue("c0")
        while let peeked = queue.first {
            #expect(queue.removeFirst() == peeked)
        }
        #expect(queue.isEmpty)
    }

    @Test func overflowDropsTheOldestLineOfTheLongestBacklog() {
        var queue = SendQueue(capacity: 6)
        for index in 0..<4 { queue.enqueue("spam\(index)", fairnessKey: "spammer") }
        queue.enqueue("alice0", fairnessKey: "alice")
        queue.enqueue("bob0", fairnessKey: "bob")
        // Full: the spammer's backlog (4) is the longest, so its oldest line goes.
        #expect(queue.enqueue("carol0", fairnessKey: "carol") == 1)
        #expect(queue.enqueue("spam4", fairnessKey: "spammer") == 1)
        #expect(queue.count == 6)
        #expect(queue.takeDroppedCount() == 2)
        #expect(queue.takeDroppedCount() == 0)
        #expect(Self.drain(&queue) == ["spam2", "alice0", "bob0", "carol0", "spam3", "spam4"])
    }

    @Test func overflowNeverDropsOtherUsersWhileOneKeyHoldsMore() {
        // A spammer floods a full queue: every other user's line survives.
        var queue = SendQueue(capacity: 20)
        let students = (0..<10).map { "student\($0)" }
        for student in students { queue.enqueue("answer for \(student)", fairnessKey: student) }
        for index in 0..<1000 { queue.enqueue("spam\(index)", fairnessKey: "spammer") }
        #expect(queue.count == 20)
        let lines = Self.drain(&queue)
        for student in students { #expect(lines.contains("answer for \(student)")) }
        #expect(lines.filter { $0.hasPrefix("spam") } == (990..<1000).map { "spam\($0)" })
    }

    @Test func overflowTieDropsFromTheKeyServedNext() {
        var queue = SendQueue(capacity: 4)
        queue.enqueue("a0", fairnessKey: "a")
        queue.enqueue("a1", fairnessKey: "a")
        queue.enqueue("b0", fairnessKey: "b")
        queue.enqueue("b1", fairnessKey: "b")
        #expect(queue.enqueue("c0", fairnessKey: "c") == 1)
        #expect(Self.drain(&queue) == ["a1", "b0", "c0", "b1"])
    }

    @Test func aKeyThatEmptiesByOverflowLeavesTheRotation() {
        var queue = SendQueue(capacity: 1)
        queue.enqueue("a0", fairnessKey: "a")
        queue.enqueue("b0", fairnessKey: "b")
        #expect(queue.waitingKeyCount == 1)
        #expect(Self.drain(&queue) == ["b0"])
        queue.enqueue("a1", fairnessKey: "a")
        #expect(Self.drain(&queue) == ["a1"])
    }

    @Test func groupsAreServedRoundRobinBeforeTheirKeys() {
        // 400 connections from one address, each with lines waiting, take one turn together: a
        // bystander from elsewhere is served after at most one of their lines.
        var queue = SendQueue(capacity: 2000)
        for index in 0..<400 {
            queue.enqueue("crowd\(index) a", fairnessKey: "crowd\(index)", fairnessGroup: "h:203.0.113.9")
            queue.enqueue("crowd\(index) b", fairnessKey: "crowd\(index)", fairnessGroup: "h:203.0.113.9")
        }
        #expect(queue.removeFirst() == "crowd0 a")
        queue.enqueue("pong for ada", fairnessKey: "ada", fairnessGroup: "h:198.51.100.7")
        #expect(queue.waitingGroupCount == 2)
        #expect(queue.waitingKeyCount == 401)
        #expect(queue.removeFirst() == "crowd1 a")
        #expect(queue.removeFirst() == "pong for ada")
        // Inside the group, its keys still take turns one line each.
        #expect(Array(Self.drain(&queue).prefix(3)) == ["crowd2 a", "crowd3 a", "crowd4 a"])
    }

    @Test func studentsBehindOneAddressShareItsTurnsFairly() {
        // A student asking for a lot does not hold up a classmate behind the same NAT address.
        var queue = SendQueue(capacity: 100)
        for index in 0..<5 { queue.enqueue("list\(index)", fairnessKey: "kim", fairnessGroup: "h:school") }
        queue.enqueue("pong for lou", fairnessKey: "lou", fairnessGroup: "h:school")
        queue.enqueue("pong for ada", fairnessKey: "ada", fairnessGroup: "h:home")
        #expect(Self.drain(&queue) == ["list0", "pong for ada", "pong for lou", "list1", "list2", "list3", "list4"])
    }

    @Test func overflowDropsFromTheLongestGroupsLongestKey() {
        var queue = SendQueue(capacity: 6)
        queue.enqueue("c0 1", fairnessKey: "c0", fairnessGroup: "h:crowd")
        for index in 0..<3 { queue.enqueue("c1 \(index)", fairnessKey: "c1", fairnessGroup: "h:crowd") }
        queue.enqueue("ada0", fairnessKey: "ada", fairnessGroup: "h:ada")
        queue.enqueue("ada1", fairnessKey: "ada", fairnessGroup: "h:ada")
        // Full: the crowd's group (4 lines) pays, and in it c1, the key with the most.
        #expect(queue.enqueue("bob0", fairnessKey: "bob", fairnessGroup: "h:bob") == 1)
        #expect(Self.drain(&queue) == ["c0 1", "ada0", "bob0", "c1 1", "ada1", "c1 2"])
    }

    @Test func removeAllEmptiesEveryLane() {
        var queue = SendQueue(capacity: 10)
        queue.enqueue("JOIN #a")
        queue.enqueue("x", fairnessKey: "x")
        queue.removeAll()
        #expect(queue.isEmpty)
        #expect(queue.waitingKeyCount == 0)
        #expect(queue.removeFirst() == nil)
        queue.enqueue("y", fairnessKey: "y")
        #expect(Self.drain(&queue) == ["y"])
    }

    @Test func manyKeysStayFairOverALongRun() {
        // 200 users with 1…3 lines each plus a spammer with 600: in every window of 201 lines served, each
        // user with lines left gets one.
        var queue = SendQueue(capacity: 2000)
        var expected: [String: Int] = [:]
        for user in 0..<200 {
            let lines = 1 + user % 3
            expected["u\(user)"] = lines
            for index in 0..<lines { queue.enqueue("u\(user) \(index)", fairnessKey: "u\(user)") }
        }
        for index in 0..<600 { queue.enqueue("spam \(index)", fairnessKey: "spammer") }
        let lines = Self.drain(&queue)
        let userLines = expected.values.reduce(0, +)
        #expect(lines.count == userLines + 600)
        // Every user's last line is out before the spammer's 4th line.
        let fourthSpam = lines.firstIndex(of: "spam 3") ?? -1
        #expect(fourthSpam == userLines + 3)
        for (user, count) in expected {
            let last = lines.firstIndex(of: "\(user) \(count - 1)") ?? Int.max
            #expect(last < fourthSpam)
        }
    }
}

@Suite("FloodGate against InspIRCd's penalty")
struct FloodGateServerModelTests {
    /// InspIRCd 3's command flood control as measured on 3.15 with Debian's stock `<connect>`: each command
    /// processed adds its penalty (PRIVMSG 1, JOIN 2) × 1000; commands are processed only while the
    /// penalty is below threshold × 1000 (10 000), the rest wait in the receive queue; once a second the
    /// penalty drops by commandrate (1000). The receive queue over 8192 bytes means "RecvQ exceeded".
    struct InspircdPenalty {
        var penalty = 0
        var heldBytes = 0
        var held: [(bytes: Int, cost: Int)] = []
        var maximumPenalty = 0
        var maximumHeldBytes = 0
        var linesHeld = 0

        mutating func receive(bytes: Int, cost: Int) {
            held.append((bytes, cost))
            heldBytes += bytes
            process()
        }

        mutating func tick() {
            penalty = max(0, penalty - 1000)
            process()
        }

        mutating func process() {
            if !held.isEmpty, penalty >= 10_000 { linesHeld += 1 }
            while !held.isEmpty, penalty < 10_000 {
                let line = held.removeFirst()
                heldBytes -= line.bytes
                penalty += line.cost * 1000
                maximumPenalty = max(maximumPenalty, penalty)
            }
            maximumHeldBytes = max(maximumHeldBytes, heldBytes)
        }
    }

    /// Ten minutes of a bot that always has something to send (replies of 40…`longest` bytes, and 1 line in
    /// 50 a JOIN, which the server charges 2), in 10 ms steps, the server ticking on whole seconds at an
    /// offset of 0.37 s.
    static func simulate(
        burst: Int, linesPerSecond: Double, longest: Int
    ) -> (server: InspircdPenalty, sent: Int) {
        let start = ContinuousClock.now
        var gate = FloodGate(burst: burst, linesPerSecond: linesPerSecond, now: start)
        var server = InspircdPenalty()
        var generator = SplitMix(state: 99)
        var nextTick = start + .milliseconds(370)
        var now = start
        var sent = 0
        var next: (bytes: Int, isJoin: Bool)?
        while now < start + .seconds(600) {
            while now >= nextTick {
                server.tick()
                nextTick += .seconds(1)
            }
            while true {
                let isJoin = next?.isJoin ?? (generator.next() % 50 == 0)
                let line = next ?? (isJoin ? 20 : 40 + Int(generator.next() % UInt64(longest - 39)), isJoin)
                let cost: Double = line.isJoin ? FloodGate.cost(of: "JOIN #c") : FloodGate.cost(of: "PRIVMSG #c :x")
                guard gate.delay(beforeSending: cost, at: now) == .zero else {
                    next = line
                    break
                }
                next = nil
                gate.recordSend(costing: cost, at: now)
                server.receive(bytes: line.bytes, cost: line.isJoin ? 2 : 1)
                sent += 1
            }
            now += .milliseconds(10)
        }
        return (server, sent)
    }

    @Test func theDefaultGateUsesStockInspircdsAllowanceAndNeverFillsItsReceiveQueue() {
        // The server's allowance in 600 s is 10 + 600 penalty points (a JOIN takes 2): the gate sends
        // nearly all of it, and at most one line ever waits at the server, for less than its next tick.
        let defaults = IRCClientConfiguration.Flood()
        #expect(defaults.burst == 10 && defaults.linesPerSecond == 1)
        for longest in [200, 450] {
            let (server, sent) = Self.simulate(
                burst: defaults.burst, linesPerSecond: defaults.linesPerSecond, longest: longest)
            #expect(sent >= 580)
            #expect(server.maximumPenalty <= 11_000)
            #expect(server.maximumHeldBytes <= longest)
        }
    }

    @Test func twoLinesASecondWouldBeHeldAndThenDisconnected() {
        let (server, _) = Self.simulate(burst: 4, linesPerSecond: 2, longest: 200)
        #expect(server.linesHeld > 0)
        #expect(server.maximumHeldBytes > 8192)
    }

    @Test func rateZeroTurnsTheGateOff() {
        let start = ContinuousClock.now
        var gate = FloodGate(burst: 4, linesPerSecond: 0, now: start)
        #expect(gate.isUnlimited)
        for _ in 0..<1000 {
            #expect(gate.delay(beforeSending: 1, at: start) == .zero)
            gate.recordSend(costing: 1, at: start)
        }
    }

    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }
}
