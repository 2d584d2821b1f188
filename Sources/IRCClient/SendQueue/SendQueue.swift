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
/// Lines that carry an ``Answer`` (what they say, to whom, on whose behalf) are also kept short while
/// they wait:
/// - a one-line channel answer whose text equals one still queued for the same channel is not queued
///   again: the waiting one names both askers ("alice, bob: pong");
/// - ``dropLines(of:)`` drops what nobody will read: private lines to a nick that quit, and channel
///   answers for an asker who quit, parted or was kicked (a merged answer just stops naming them);
/// - ``removeFirstEntry(packing:)`` may put the next channel answers of other askers for the same
///   channel into the line it returns ("alice: Berlin · bob: Paris"), when they would otherwise wait.
///
/// Overflow: the queue holds at most `capacity` lines in all. When a new line would exceed it, the oldest
/// line of the *longest* sub-queue is dropped (on a tie, the one that has waited longest to be served), so
/// whoever has the largest backlog pays for it and a flood from one user cannot push out other users'
/// replies. Dropped lines are counted (``takeDroppedCount()``).
///
/// Every line may carry *tickets* (see `WriteReceipts`): a line returned by ``removeFirstEntry(packing:)``
/// hands back the tickets of every line it stands for; dropped lines' tickets are collected for
/// ``takeDroppedTickets()``.
public struct SendQueue: Sendable {
    public let capacity: Int
    /// Lines dropped because the queue was full, since the last ``takeDroppedCount()``.
    public private(set) var droppedCount = 0
    /// Normal lines waiting, in all sub-queues.
    public private(set) var count = 0

    private var control = EntryFIFO()
    private var lanes: [String: EntryFIFO] = [:]
    /// Keys with waiting lines, in serving order: the first is served next, then moves to the back.
    private var turns = KeyFIFO()
    private var droppedTickets: [Int] = []

    /// A line taken from the queue: its text and the tickets of every queued line it carries.
    public struct Entry: Sendable, Hashable {
        public var line: String
        public var tickets: [Int]
        public var answer: Answer?
    }

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    public var isEmpty: Bool { count == 0 }

    /// Keys that have lines waiting (the control lane not included).
    public var waitingKeyCount: Int { lanes.count }

    /// Appends a serialized line (without CRLF) to the sub-queue of `fairnessKey` (`nil`: the control lane);
    /// returns the number of lines dropped to make room (see the overflow rule above). With an `answer`
    /// (which says what `line` says) the line may be merged into an identical answer already waiting.
    @discardableResult
    public mutating func enqueue(
        _ line: String, fairnessKey: String? = nil, answer: Answer? = nil, ticket: Int? = nil
    ) -> Int {
        let tickets = ticket.map { [$0] } ?? []
        if let answer, mergeIntoWaitingAnswer(answer, tickets: tickets) { return 0 }
        var dropped = 0
        while count >= capacity, dropOneForOverflow() {
            dropped += 1
        }
        droppedCount += dropped
        let entry = Entry(line: line, tickets: tickets, answer: answer)
        if let fairnessKey {
            if lanes[fairnessKey] == nil {
                lanes[fairnessKey] = EntryFIFO()
                turns.append(fairnessKey)
            }
            lanes[fairnessKey]?.append(entry)
        } else {
            control.append(entry)
        }
        count += 1
        return dropped
    }

    /// The line ``removeFirst()`` would return.
    public var first: String? {
        if let entry = control.first { return entry.line }
        guard let key = turns.first else { return nil }
        return lanes[key]?.first?.line
    }

    /// Removes and returns the next line: the control lane first, then one line of the key whose turn it is.
    public mutating func removeFirst() -> String? {
        removeFirstEntry()?.line
    }

    /// Removes and returns the next entry (see ``removeFirst()``). With `packing`, a channel answer takes
    /// along the first waiting lines of the other keys, in turn, that are channel answers to the same
    /// channel, as many as fit in one line: "alice: Berlin · bob: Paris" (an answer's own further lines
    /// stay lines of their own).
    public mutating func removeFirstEntry(packing: Bool = false) -> Entry? {
        if let entry = control.removeFirst() {
            count -= 1
            return entry
        }
        guard let key = turns.removeFirst(), var lane = lanes.removeValue(forKey: key),
            var entry = lane.removeFirst()
        else { return nil }
        count -= 1
        if !lane.isEmpty {
            lanes[key] = lane
            turns.append(key)
        }
        if packing, let answer = entry.answer, answer.isChannel {
            pack(into: &entry, answer: answer, skipping: key)
        }
        return entry
    }

    /// Drops the waiting lines nobody will read once `departure` has happened; returns how many lines
    /// left the queue (a merged answer that only stops naming someone does not count).
    @discardableResult
    public mutating func dropLines(of departure: Departure) -> Int {
        var removed = 0
        for key in turns.elements {
            guard var lane = lanes[key] else { continue }
            let before = lane.count
            lane.update { entry in
                guard var answer = entry.answer else { return true }
                let keep = answer.remove(departure)
                if keep {
                    entry.answer = answer
                    entry.line = answer.line
                } else {
                    droppedTickets += entry.tickets
                }
                return keep
            }
            removed += before - lane.count
            if lane.isEmpty {
                lanes[key] = nil
                turns.remove(key)
            } else {
                lanes[key] = lane
            }
        }
        count -= removed
        return removed
    }

    /// Returns and resets the dropped-line counter.
    public mutating func takeDroppedCount() -> Int {
        defer { droppedCount = 0 }
        return droppedCount
    }

    /// Returns and forgets the tickets of lines dropped (by overflow or ``dropLines(of:)``) since the last call.
    public mutating func takeDroppedTickets() -> [Int] {
        defer { droppedTickets = [] }
        return droppedTickets
    }

    /// Empties the queue (its tickets are settled by the caller, all at once).
    public mutating func removeAll() {
        control = EntryFIFO()
        lanes = [:]
        turns = KeyFIFO()
        droppedTickets = []
        count = 0
    }

    /// Adds the asker of `answer` to a waiting answer with the same text for the same channel.
    private mutating func mergeIntoWaitingAnswer(_ answer: Answer, tickets: [Int]) -> Bool {
        guard answer.isMergeable else { return false }
        for key in turns.elements {
            guard var lane = lanes[key] else { continue }
            var merged = false
            lane.update { entry in
                guard !merged, var waiting = entry.answer, waiting.merge(answer) else { return true }
                entry.answer = waiting
                entry.line = waiting.line
                entry.tickets += tickets
                merged = true
                return true
            }
            if merged {
                lanes[key] = lane
                return true
            }
        }
        return false
    }

    private mutating func pack(into entry: inout Entry, answer first: Answer, skipping ownKey: String) {
        var packed = first
        var tickets = entry.tickets
        for key in turns.elements where key != ownKey {
            guard var lane = lanes[key], let next = lane.first, let answer = next.answer,
                packed.pack(answer)
            else { continue }
            _ = lane.removeFirst()
            tickets += next.tickets
            count -= 1
            if lane.isEmpty {
                lanes[key] = nil
                turns.remove(key)
            } else {
                lanes[key] = lane
            }
        }
        entry.answer = packed
        entry.line = packed.line
        entry.tickets = tickets
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
            if let entry = control.removeFirst() { droppedTickets += entry.tickets }
            count -= 1
            return true
        }
        guard let key = longestKey, var lane = lanes.removeValue(forKey: key) else { return false }
        if let entry = lane.removeFirst() { droppedTickets += entry.tickets }
        count -= 1
        if lane.isEmpty {
            turns.remove(key)
        } else {
            lanes[key] = lane
        }
        return true
    }
}

/// A FIFO with amortised O(1) removal at the front.
struct FIFO<Element: Sendable>: Sendable {
    private var storage: [Element] = []
    private var head = 0

    var count: Int { storage.count - head }
    var isEmpty: Bool { count == 0 }
    var first: Element? { isEmpty ? nil : storage[head] }
    var elements: ArraySlice<Element> { storage[head...] }

    mutating func append(_ element: Element) {
        storage.append(element)
    }

    mutating func removeFirst() -> Element? {
        guard !isEmpty else { return nil }
        let element = storage[head]
        head += 1
        if head > 64 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Lets `body` change every element in order; elements for which it returns `false` are removed.
    mutating func update(_ body: (inout Element) -> Bool) {
        var kept: [Element] = []
        kept.reserveCapacity(count)
        for index in storage.indices[head...] {
            var element = storage[index]
            if body(&element) { kept.append(element) }
        }
        storage = kept
        head = 0
    }
}

extension FIFO where Element: Equatable {
    /// Removes the first occurrence of `element` (linear; used only when a key's lane empties out of turn).
    mutating func remove(_ element: Element) {
        guard let index = storage[head...].firstIndex(of: element) else { return }
        storage.remove(at: index)
    }
}

typealias EntryFIFO = FIFO<SendQueue.Entry>
typealias KeyFIFO = FIFO<String>
