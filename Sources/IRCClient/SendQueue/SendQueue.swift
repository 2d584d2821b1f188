/// The bounded queue of normal outgoing lines (everything except the priority lane: PONG, CAP,
/// AUTHENTICATE, QUIT, which are written at once), shared fairly between the places the bot's
/// askers come from and, within each, between the askers.
///
/// Lines come in with a *fairness key* — who the line is for or on whose behalf it is sent (a nick
/// for a private reply, the asker's nick for a channel reply, the channel for an announcement) — and
/// a *fairness group*: where that person connects from (the host, an IPv6 address by its /64, or
/// their services account; without one, the key itself). The queue hands out lines round-robin at
/// two levels: one line per group per turn, and inside a group one line per key per turn. While the
/// flood gate holds lines back, 400 connections from one address wait in one group and get one line
/// per turn together, like a single bystander elsewhere, who is served within one turn (at most one
/// line per other waiting group); students behind one school NAT still share their group's turns
/// fairly among themselves. Lines without a key (JOIN, WHO, NICK, MODE…) form the control lane,
/// which goes before every reply so the bot never answers in a channel it has not joined yet. Order
/// is kept within each key.
///
/// Lines that carry an ``Answer`` (what they say, to whom, on whose behalf) are also kept short while
/// they wait:
/// - a one-line channel answer whose text equals one still queued for the same channel is not queued
///   again: the waiting one names both askers ("alice, bob: pong");
/// - ``dropLines(of:)`` drops what nobody will read: private lines to a nick that is gone (quit, or
///   the server says there is no such nick), and channel answers for an asker who quit, parted or
///   was kicked (a merged answer just stops naming them);
/// - ``removeFirstEntry(packing:)`` may put the next channel answers of other askers for the same
///   channel into the line it returns ("alice: Berlin · bob: Paris"), when they would otherwise wait.
///
/// Overflow: the queue holds at most `capacity` lines in all. When a new line would exceed it, the oldest
/// line of the longest key of the *longest* group is dropped (on a tie, the one that has waited longest to
/// be served), so whoever has the largest backlog pays for it and a flood from one place cannot push out
/// other people's replies. Dropped lines are counted (``takeDroppedCount()``).
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
    private var groups: [String: Group] = [:]
    /// Groups with waiting lines, in serving order: the first is served next, then moves to the back.
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

    /// Keys that have lines waiting, in all groups (the control lane not included).
    public var waitingKeyCount: Int { groups.values.reduce(0) { $0 + $1.keyCount } }

    /// Groups that have lines waiting (the control lane not included).
    public var waitingGroupCount: Int { groups.count }

    /// Appends a serialized line (without CRLF) to the sub-queue of `fairnessKey` (`nil`: the control
    /// lane) in `fairnessGroup` (`nil`: a group of its own, named by the key); returns the number of
    /// lines dropped to make room (see the overflow rule above). With an `answer` (which says what
    /// `line` says) the line may be merged into an identical answer already waiting.
    @discardableResult
    public mutating func enqueue(
        _ line: String, fairnessKey: String? = nil, fairnessGroup: String? = nil, answer: Answer? = nil,
        ticket: Int? = nil
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
            let groupKey = fairnessGroup ?? fairnessKey
            if groups[groupKey] == nil {
                groups[groupKey] = Group()
                turns.append(groupKey)
            }
            groups[groupKey]?.append(entry, key: fairnessKey)
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
        return groups[key]?.first?.line
    }

    /// Removes and returns the next line: the control lane first, then one line of the group whose
    /// turn it is (of its key whose turn it is).
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
        guard let groupKey = turns.removeFirst(), var group = groups.removeValue(forKey: groupKey),
            let (key, taken) = group.removeFirst()
        else { return nil }
        var entry = taken
        count -= 1
        if !group.isEmpty {
            groups[groupKey] = group
            turns.append(groupKey)
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
        var dropped: [Int] = []
        let removed = updateEveryEntry { entry in
            guard var answer = entry.answer else { return true }
            let keep = answer.remove(departure)
            if keep {
                entry.answer = answer
                entry.line = answer.line
            } else {
                dropped += entry.tickets
            }
            return keep
        }
        droppedTickets += dropped
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
        groups = [:]
        turns = KeyFIFO()
        droppedTickets = []
        count = 0
    }

    /// Lets `body` change every waiting entry of every group in serving order; entries for which it
    /// returns `false` are removed (empty keys and groups with them). Returns how many were removed.
    private mutating func updateEveryEntry(_ body: (inout Entry) -> Bool) -> Int {
        var removed = 0
        for groupKey in turns.elements {
            guard var group = groups[groupKey] else { continue }
            removed += group.update(body)
            if group.isEmpty {
                groups[groupKey] = nil
                turns.remove(groupKey)
            } else {
                groups[groupKey] = group
            }
        }
        return removed
    }

    /// Adds the asker of `answer` to a waiting answer with the same text for the same channel.
    private mutating func mergeIntoWaitingAnswer(_ answer: Answer, tickets: [Int]) -> Bool {
        guard answer.isMergeable else { return false }
        var merged = false
        _ = updateEveryEntry { entry in
            guard !merged, var waiting = entry.answer, waiting.merge(answer) else { return true }
            entry.answer = waiting
            entry.line = waiting.line
            entry.tickets += tickets
            merged = true
            return true
        }
        return merged
    }

    private mutating func pack(into entry: inout Entry, answer first: Answer, skipping ownKey: String) {
        var packed = first
        var tickets = entry.tickets
        for groupKey in turns.elements {
            guard var group = groups[groupKey] else { continue }
            let taken = group.takeFirstLines(skipping: ownKey) { next in
                guard let answer = next.answer else { return false }
                return packed.pack(answer)
            }
            guard !taken.isEmpty else { continue }
            for next in taken { tickets += next.tickets }
            count -= taken.count
            if group.isEmpty {
                groups[groupKey] = nil
                turns.remove(groupKey)
            } else {
                groups[groupKey] = group
            }
        }
        entry.answer = packed
        entry.line = packed.line
        entry.tickets = tickets
    }

    /// Drops the oldest line of the longest key of the longest group (the control lane counts as one
    /// group); `false` when empty.
    private mutating func dropOneForOverflow() -> Bool {
        var longestGroup: String?
        var longest = 0
        // `turns` lists groups from the next to be served to the last, so on a tie the earliest wins.
        for groupKey in turns.elements {
            if let size = groups[groupKey]?.count, size > longest {
                longest = size
                longestGroup = groupKey
            }
        }
        if control.count > longest || (longestGroup == nil && !control.isEmpty) {
            if let entry = control.removeFirst() { droppedTickets += entry.tickets }
            count -= 1
            return true
        }
        guard let groupKey = longestGroup, var group = groups.removeValue(forKey: groupKey) else { return false }
        if let entry = group.dropOldestOfLongestKey() { droppedTickets += entry.tickets }
        count -= 1
        if group.isEmpty {
            turns.remove(groupKey)
        } else {
            groups[groupKey] = group
        }
        return true
    }

    /// The lines of one fairness group: a FIFO per key, served round-robin.
    struct Group: Sendable {
        private var lanes: [String: EntryFIFO] = [:]
        /// Keys with waiting lines, in serving order.
        private var turns = KeyFIFO()
        private(set) var count = 0

        var isEmpty: Bool { count == 0 }
        var keyCount: Int { lanes.count }

        /// The entry ``removeFirst()`` would return.
        var first: Entry? {
            guard let key = turns.first else { return nil }
            return lanes[key]?.first
        }

        mutating func append(_ entry: Entry, key: String) {
            if lanes[key] == nil {
                lanes[key] = EntryFIFO()
                turns.append(key)
            }
            lanes[key]?.append(entry)
            count += 1
        }

        /// The first line of the key whose turn it is; that key then moves to the back.
        mutating func removeFirst() -> (key: String, entry: Entry)? {
            guard let key = turns.removeFirst(), var lane = lanes.removeValue(forKey: key),
                let entry = lane.removeFirst()
            else { return nil }
            count -= 1
            if !lane.isEmpty {
                lanes[key] = lane
                turns.append(key)
            }
            return (key, entry)
        }

        /// See ``SendQueue/updateEveryEntry(_:)``.
        mutating func update(_ body: (inout Entry) -> Bool) -> Int {
            var removed = 0
            for key in turns.elements {
                guard var lane = lanes[key] else { continue }
                let before = lane.count
                lane.update(body)
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

        /// Removes, in serving order, the first line of each key but `ownKey` for which `accept`
        /// says yes; returns them.
        mutating func takeFirstLines(skipping ownKey: String, where accept: (Entry) -> Bool) -> [Entry] {
            var taken: [Entry] = []
            for key in turns.elements where key != ownKey {
                guard var lane = lanes[key], let next = lane.first, accept(next) else { continue }
                _ = lane.removeFirst()
                taken.append(next)
                count -= 1
                if lane.isEmpty {
                    lanes[key] = nil
                    turns.remove(key)
                } else {
                    lanes[key] = lane
                }
            }
            return taken
        }

        /// Drops the oldest line of the key with the most lines (on a tie, the next to be served).
        mutating func dropOldestOfLongestKey() -> Entry? {
            var longestKey: String?
            var longest = 0
            for key in turns.elements {
                if let size = lanes[key]?.count, size > longest {
                    longest = size
                    longestKey = key
                }
            }
            guard let key = longestKey, var lane = lanes.removeValue(forKey: key), let entry = lane.removeFirst()
            else { return nil }
            count -= 1
            if lane.isEmpty {
                turns.remove(key)
            } else {
                lanes[key] = lane
            }
            return entry
        }
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
