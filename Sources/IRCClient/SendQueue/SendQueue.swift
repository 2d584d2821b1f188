/// The bounded queue of normal outgoing lines (everything except the priority lane: PONG, CAP,
/// AUTHENTICATE, QUIT, which are written at once), shared fairly between the people the bot answers.
///
/// Lines come in with a *fairness key*: who the line is for or on whose behalf it is sent (a nick for a
/// private reply, the asker's nick for a channel reply, the channel for an announcement). Each key has its
/// own FIFO sub-queue, and the queue hands out lines round-robin, one line per key per turn: while the
/// flood gate holds lines back, a user who asks for a lot gets one line per turn like everyone else, and a
/// new asker is served within one turn (at most one line per other waiting key) instead of behind the whole
/// backlog. Lines without a key (JOIN, WHO, NICK, MODE…) form the control lane, which goes before every
/// reply so the bot never answers in a channel it has not joined yet. Order is kept within each key.
///
/// Overflow: the queue holds at most `capacity` lines in all. When a new line would exceed it, the oldest
/// line of the *longest* sub-queue is dropped (on a tie, the one that has waited longest to be served), so
/// whoever has the largest backlog pays for it and a flood from one user cannot push out other users'
/// replies. Dropped lines are counted (``takeDroppedCount()``).
public struct SendQueue: Sendable {
    public let capacity: Int
    /// Lines dropped because the queue was full, since the last ``takeDroppedCount()``.
    public private(set) var droppedCount = 0
    /// Normal lines waiting, in all sub-queues.
    public private(set) var count = 0

    private var control = LineFIFO()
    private var lanes: [String: LineFIFO] = [:]
    /// Keys with waiting lines, in serving order: the first is served next, then moves to the back.
    private var turns = LineFIFO()

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    public var isEmpty: Bool { count == 0 }

    /// Keys that have lines waiting (the control lane not included).
    public var waitingKeyCount: Int { lanes.count }

    /// Appends a serialized line (without CRLF) to the sub-queue of `fairnessKey` (`nil`: the control lane);
    /// returns the number of lines dropped to make room (see the overflow rule above).
    @discardableResult
    public mutating func enqueue(_ line: String, fairnessKey: String? = nil) -> Int {
        var dropped = 0
        while count >= capacity, dropOneForOverflow() {
            dropped += 1
        }
        droppedCount += dropped
        if let fairnessKey {
            if lanes[fairnessKey] == nil {
                lanes[fairnessKey] = LineFIFO()
                turns.append(fairnessKey)
            }
            lanes[fairnessKey]?.append(line)
        } else {
            control.append(line)
        }
        count += 1
        return dropped
    }

    /// The line ``removeFirst()`` would return.
    public var first: String? {
        if let line = control.first { return line }
        guard let key = turns.first else { return nil }
        return lanes[key]?.first
    }

    /// Removes and returns the next line: the control lane first, then one line of the key whose turn it is.
    public mutating func removeFirst() -> String? {
        if let line = control.removeFirst() {
            count -= 1
            return line
        }
        guard let key = turns.removeFirst(), var lane = lanes.removeValue(forKey: key),
            let line = lane.removeFirst()
        else { return nil }
        count -= 1
        if !lane.isEmpty {
            lanes[key] = lane
            turns.append(key)
        }
        return line
    }

    /// Returns and resets the dropped-line counter.
    public mutating func takeDroppedCount() -> Int {
        defer { droppedCount = 0 }
        return droppedCount
    }

    public mutating func removeAll() {
        control = LineFIFO()
        lanes = [:]
        turns = LineFIFO()
        count = 0
    }

    /// Drops the oldest line of the longest sub-queue (the control lane counts as one); `false` when empty.
    private mutating func dropOneForOverflow() -> Bool {
        var longestKey: String?
        var longest = 0
        // `turns` lists keys from the next to be served to the last, so on a tie the earliest in it wins.
        for key in turns.elements {
            if let size = lanes[key]?.count, size > longest {
                longest = size
                longestKey = key
            }
        }
        if control.count > longest || (longestKey == nil && !control.isEmpty) {
            _ = control.removeFirst()
            count -= 1
            return true
        }
        guard let key = longestKey, var lane = lanes.removeValue(forKey: key) else { return false }
        _ = lane.removeFirst()
        count -= 1
        if lane.isEmpty {
            turns.remove(key)
        } else {
            lanes[key] = lane
        }
        return true
    }
}

/// A FIFO of strings with amortised O(1) removal at the front.
struct LineFIFO: Sendable {
    private var storage: [String] = []
    private var head = 0

    var count: Int { storage.count - head }
    var isEmpty: Bool { count == 0 }
    var first: String? { isEmpty ? nil : storage[head] }
    var elements: ArraySlice<String> { storage[head...] }

    mutating func append(_ element: String) {
        storage.append(element)
    }

    mutating func removeFirst() -> String? {
        guard !isEmpty else { return nil }
        let element = storage[head]
        head += 1
        if head > 64 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Removes the first occurrence of `element` (linear; used only on overflow).
    mutating func remove(_ element: String) {
        guard let index = storage[head...].firstIndex(of: element) else { return }
        storage.remove(at: index)
    }
}
