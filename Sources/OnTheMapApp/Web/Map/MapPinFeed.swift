import ClassKit
import Foundation
import OnTheMapService

/// The pins the web map shows: every pin of the class, newest update first, brought up to date at
/// most once per `maxAge` however many pages poll, and what changed after a cursor, so that an open
/// page asks only for that (`/api/locations.json?since=<cursor>`).
///
/// Read from a ``ClassMap``, the feed hands out the map's own ``PinStore`` (no copy of the class):
/// the store's revisions say what changed after a cursor. Read through a `load` closure (a list of
/// pins), the feed keeps its own store of the `limit` newest and applies each list to it.
///
/// A cursor is `<epoch>-<revision>` (the epoch is this feed's, so a cursor from before a restart is
/// told apart); a cursor older than the oldest removal the store remembers, or from another epoch,
/// gets every pin again.
public actor MapPinFeed {
    public typealias Load = @Sendable () async throws -> [StudentLocation]

    /// Pins to write: slots of `store`, in order.
    public struct Pins: Sendable {
        public let store: PinStore
        public let slots: [Int32]
    }

    /// What changed after a cursor.
    public enum Changes: Sendable {
        /// The pins saved or moved since (newest first) and the objectIds removed since.
        case changed(Pins, removed: [String], cursor: String)
        /// The cursor is too old or from before a restart: every pin, as without `since`.
        case everything(Pins, cursor: String)
    }

    /// A `since` value this feed never gave out.
    public struct BadCursor: Error, Equatable {}

    private enum Source {
        case classMap(ClassMap)
        case load(Load, limit: Int)
    }

    private let source: Source
    private let maxAge: Duration
    private let clock = ContinuousClock()
    private let epoch = String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
    private var readAt: ContinuousClock.Instant?
    private var inFlight: Task<Void, any Error>?
    /// The pins of the last list read through `load` (unused for a class map).
    private var mirror = PinStore()

    /// Reads through `load` (every pin), at most once per `maxAge`; keeps the `limit` newest.
    public init(limit: Int = .max, maxAge: Duration = .seconds(5), load: @escaping Load) {
        self.source = .load(load, limit: max(1, limit))
        self.maxAge = maxAge
    }

    /// Every pin of `classMap`, brought up to date (its change feed, or the newest page of a
    /// directory without one) at most once per `maxAge`.
    public init(classMap: ClassMap, maxAge: Duration = .seconds(5)) {
        self.source = .classMap(classMap)
        self.maxAge = maxAge
    }

    /// Every pin (at most `limit`), newest update first, each made whole. Throws the directory's
    /// error when it cannot be read and nothing fresh enough was read before.
    public func pins() async throws -> [StudentLocation] {
        let store = try await read()
        return store.newestFirst(store.liveSlots).map { store.pin(at: Int($0)) }
    }

    /// Every pin, newest update first, and the cursor to ask for changes from.
    public func everything() async throws -> (pins: Pins, cursor: String) {
        let store = try await read()
        return (Pins(store: store, slots: store.newestFirst(store.liveSlots)), cursor(of: store))
    }

    /// What changed after `since`; throws ``BadCursor`` for text this feed never gave out.
    public func changes(since: String) async throws -> Changes {
        guard let (cursorEpoch, position) = Self.parse(since) else { throw BadCursor() }
        let store = try await read()
        guard cursorEpoch == epoch, position >= store.forgottenUpTo, position <= store.revision else {
            if cursorEpoch == epoch && position > store.revision { throw BadCursor() }
            return .everything(Pins(store: store, slots: store.newestFirst(store.liveSlots)), cursor: cursor(of: store))
        }
        let changed = position == store.revision ? [] : store.slots(changedAfter: position)
        let removed = position == store.revision ? [] : store.removedObjectIds(after: position)
        return .changed(Pins(store: store, slots: changed), removed: removed, cursor: cursor(of: store))
    }

    private func cursor(of store: PinStore) -> String { "\(epoch)-\(store.revision)" }

    /// `<epoch>-<revision>`: 8 hex digits, a dash, a number.
    static func parse(_ text: String) -> (String, Int64)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 8, parts[0].allSatisfy(\.isHexDigit),
            parts[0].lowercased() == parts[0], let position = Int64(parts[1]), position >= 0,
            parts[1].allSatisfy(\.isASCII)
        else { return nil }
        return (String(parts[0]), position)
    }

    /// The store as of now, its source brought up to date first when `maxAge` has passed.
    private func read() async throws -> PinStore {
        try await updateIfStale()
        switch source {
        case .classMap(let classMap): return try await classMap.store()
        case .load: return mirror
        }
    }

    private func updateIfStale() async throws {
        if let readAt, clock.now - readAt < maxAge { return }
        if let inFlight {
            try await inFlight.value
            return
        }
        let task: Task<Void, any Error>
        switch source {
        case .classMap(let classMap):
            task = Task { _ = try await classMap.refresh() }
        case .load(let load, let limit):
            task = Task {
                let pins = try await load()
                // Newest update first; ties keep the list's order. Sorting positions, not pins.
                let ordered = pins.indices.sorted {
                    pins[$0].updatedAt != pins[$1].updatedAt ? pins[$0].updatedAt > pins[$1].updatedAt : $0 < $1
                }
                self.take(ordered.prefix(limit).map { pins[$0] })
            }
        }
        inFlight = task
        defer { inFlight = nil }
        try await task.value
        readAt = clock.now
    }

    /// Makes the mirror hold exactly `pins` (newest first): what differs takes a new revision.
    private func take(_ pins: [StudentLocation]) {
        var kept = [Bool](repeating: false, count: mirror.slotCount + pins.count)
        // Oldest first, so that of two pins updated at the same time the earlier in the list ranks newer.
        for pin in pins.reversed() {
            if let slot = mirror.slot(of: pin.objectId), mirror.pin(at: slot) == pin {
                kept[slot] = true
            } else {
                kept[mirror.upsert(pin)] = true
            }
        }
        for slot in mirror.liveSlots where !kept[Int(slot)] { mirror.remove(at: Int(slot)) }
        _ = mirror.compactIfWorthIt()
    }
}
