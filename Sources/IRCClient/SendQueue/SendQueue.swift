/// The bounded queue of normal outgoing lines (everything except the priority lane: PONG, CAP,
/// AUTHENTICATE, QUIT, which are written at once). When full, the oldest lines are dropped and counted.
public struct SendQueue: Sendable {
    public let capacity: Int
    private var storage: [String] = []
    private var head = 0
    /// Lines dropped because the queue was full, since the last ``takeDroppedCount()``.
    public private(set) var droppedCount = 0

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    public var count: Int { storage.count - head }
    public var isEmpty: Bool { count == 0 }

    /// Appends a serialized line (without CRLF); returns the number of old lines dropped to make room.
    @discardableResult
    public mutating func enqueue(_ line: String) -> Int {
        var dropped = 0
        while count >= capacity {
            head += 1
            dropped += 1
        }
        droppedCount += dropped
        storage.append(line)
        compactIfNeeded()
        return dropped
    }

    public var first: String? { isEmpty ? nil : storage[head] }

    public mutating func removeFirst() -> String? {
        guard !isEmpty else { return nil }
        let line = storage[head]
        head += 1
        compactIfNeeded()
        return line
    }

    /// Returns and resets the dropped-line counter.
    public mutating func takeDroppedCount() -> Int {
        defer { droppedCount = 0 }
        return droppedCount
    }

    public mutating func removeAll() {
        storage.removeAll()
        head = 0
    }

    private mutating func compactIfNeeded() {
        if head > 64 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }
}
