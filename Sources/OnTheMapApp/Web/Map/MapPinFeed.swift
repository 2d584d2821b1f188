import Foundation
import OnTheMapPlugins
import OnTheMapService

/// The pins the web map shows: every pin of the class, newest update first, read at most once per
/// `maxAge` however many pages poll, and what changed between two reads, so that an open page
/// asks only for that (`/api/locations.json?since=<cursor>`).
///
/// Each read that changes something takes the next sequence number; every pin remembers the one
/// that last changed it, and the latest ``removalMemory`` removals are remembered too. A cursor is
/// `<epoch>-<sequence>` (the epoch is this feed's, so a cursor from before a restart is told
/// apart); a cursor older than the oldest removal remembered, or from another epoch, gets every
/// pin again.
public actor MapPinFeed {
    public typealias Load = @Sendable () async throws -> [StudentLocation]

    /// What changed after a cursor.
    public enum Changes: Sendable, Equatable {
        /// The pins saved or moved since (newest first) and the objectIds removed since.
        case changed([StudentLocation], removed: [String], cursor: String)
        /// The cursor is too old or from before a restart: every pin, as without `since`.
        case everything([StudentLocation], cursor: String)
    }

    /// A `since` value this feed never gave out.
    public struct BadCursor: Error, Equatable {}

    /// How many removals are remembered for pages that poll.
    static let removalMemory = 10_000

    private let load: Load
    private let maxAge: Duration
    private let limit: Int
    private let clock = ContinuousClock()
    private let epoch = String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
    private var readAt: ContinuousClock.Instant?
    private var inFlight: Task<[StudentLocation], any Error>?
    /// The pins now, newest update first.
    private var current: [StudentLocation] = []
    /// Each pin's fingerprint (its hash: every field) and the sequence that last changed it. Not the
    /// pin itself: the class map already holds every pin once.
    private var known: [String: (fingerprint: Int, sequence: Int64)] = [:]
    private var removals: [(sequence: Int64, objectId: String)] = []
    /// Cursors at or below this may have missed a removal that is no longer remembered.
    private var forgottenUpTo: Int64 = 0
    private var sequence: Int64 = 0

    /// Reads through `load` (every pin), at most once per `maxAge`; keeps the `limit` newest.
    public init(limit: Int = .max, maxAge: Duration = .seconds(5), load: @escaping Load) {
        self.load = load
        self.maxAge = maxAge
        self.limit = max(1, limit)
    }

    /// Every pin of `classMap`, brought up to date (its change feed, or the newest page of a
    /// directory without one) before each read.
    public init(classMap: ClassMap, maxAge: Duration = .seconds(5)) {
        self.init(maxAge: maxAge) {
            try await classMap.refresh()
            return try await classMap.all()
        }
    }

    /// Every pin (at most `limit`), newest update first. Throws the directory's error when it
    /// cannot be read and nothing fresh enough was read before.
    public func pins() async throws -> [StudentLocation] {
        try await readIfStale()
        return current
    }

    /// Every pin and the cursor to ask for changes from.
    public func everything() async throws -> (pins: [StudentLocation], cursor: String) {
        try await readIfStale()
        return (current, cursor)
    }

    /// What changed after `since`; throws ``BadCursor`` for text this feed never gave out.
    public func changes(since: String) async throws -> Changes {
        guard let (cursorEpoch, position) = Self.parse(since) else { throw BadCursor() }
        try await readIfStale()
        guard cursorEpoch == epoch, position >= forgottenUpTo, position <= sequence else {
            if cursorEpoch == epoch && position > sequence { throw BadCursor() }
            return .everything(current, cursor: cursor)
        }
        if position == sequence { return .changed([], removed: [], cursor: cursor) }
        let changed = current.filter { (known[$0.objectId]?.sequence ?? 0) > position }
        let removed = removals.lazy.filter { $0.sequence > position }.map(\.objectId)
            .filter { self.known[$0] == nil }
        return .changed(changed, removed: Array(Set(removed)).sorted(), cursor: cursor)
    }

    private var cursor: String { "\(epoch)-\(sequence)" }

    /// `<epoch>-<sequence>`: 8 hex digits, a dash, a number.
    static func parse(_ text: String) -> (String, Int64)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 8, parts[0].allSatisfy(\.isHexDigit),
            parts[0].lowercased() == parts[0], let position = Int64(parts[1]), position >= 0,
            parts[1].allSatisfy(\.isASCII)
        else { return nil }
        return (String(parts[0]), position)
    }

    private func readIfStale() async throws {
        if let readAt, clock.now - readAt < maxAge { return }
        if let inFlight {
            _ = try await inFlight.value
            return
        }
        let load = self.load
        let limit = self.limit
        let task = Task {
            let pins = try await load()
            // Newest update first; ties keep the directory's order. Sorting positions, not pins,
            // keeps a class of 100,000 from being copied twice over.
            let ordered = pins.indices.sorted {
                pins[$0].updatedAt != pins[$1].updatedAt ? pins[$0].updatedAt > pins[$1].updatedAt : $0 < $1
            }
            if ordered.elementsEqual(pins.indices), pins.count <= limit { return pins }
            return ordered.prefix(limit).map { pins[$0] }
        }
        inFlight = task
        defer { inFlight = nil }
        let pins = try await task.value
        apply(pins)
        readAt = clock.now
    }

    /// Takes a new read: what differs from the last one gets the next sequence number.
    private func apply(_ pins: [StudentLocation]) {
        let next = sequence + 1
        var changed = false
        var seen: Set<String> = []
        seen.reserveCapacity(pins.count)
        for pin in pins {
            seen.insert(pin.objectId)
            let fingerprint = pin.hashValue
            if let old = known[pin.objectId], old.fingerprint == fingerprint { continue }
            known[pin.objectId] = (fingerprint, next)
            changed = true
        }
        if known.count != seen.count {
            for objectId in known.keys where !seen.contains(objectId) {
                known[objectId] = nil
                removals.append((next, objectId))
                changed = true
            }
            if removals.count > Self.removalMemory {
                let dropped = removals.count - Self.removalMemory
                forgottenUpTo = removals[dropped - 1].sequence
                removals.removeFirst(dropped)
            }
        }
        current = pins
        if changed { sequence = next }
    }
}
