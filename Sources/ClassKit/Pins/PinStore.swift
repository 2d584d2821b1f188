import Foundation
import OnTheMapService

/// Every pin of the class in a handful of flat arrays, instead of one `StudentLocation` per pin.
///
/// A pin's text (objectId, account key, names, place, link, and the names folded for `!where`)
/// is one record of length-prefixed UTF-8 in a single byte arena; the numbers sit in parallel
/// arrays indexed by the pin's slot (where its record starts, coordinate, creation and update
/// times, the revision that last changed it); the objectId → slot table is open-addressed over
/// 32-bit slots. A `StudentLocation` is made only for the pins an answer shows (``pin(at:)``).
///
/// What it saves: a `StudentLocation` is 128 bytes with every string longer than 15 bytes on the
/// heap (a 32-byte header each and malloc's rounding), its folded names three more strings, the
/// objectId table a `Dictionary` entry and a hash per pin. Here a pin of the benchmark's class
/// costs its text plus 9 length bytes in the arena, 45 bytes of numbers and about 8 bytes of
/// table (BENCHMARKS.md, "Class size", has the figures at 100,000 and 1,000,000 pins).
///
/// Trips are few (a student away for a while), so they sit beside the records in a dictionary by
/// objectId rather than in every record: ``pin(at:)`` gives a pin with its trip, and
/// ``trips`` lists them for readers that place pins where they are shown (`!near`).
///
/// A removed pin leaves a tombstone: its slot and record stay until ``compactIfWorthIt()`` moves
/// the live pins together (slots change then; callers holding slots drop them). An update writes
/// the new record over the old one when it fits, else at the end of the arena.
///
/// Every change takes the next ``revision``: a slot remembers the one that last changed it and
/// the latest ``removalMemory`` removals are remembered with theirs, so a reader that saw the
/// store at one revision can ask what changed since (the web map's `since`).
public struct PinStore: Sendable {
    /// The text fields of a pin's record, in the order they are written.
    public enum Field: Int, CaseIterable, Sendable {
        case foldedFirst, foldedLast, foldedFull, objectId, uniqueKey, firstName, lastName, mapString, mediaURL
    }

    /// Marks a removed slot in ``recordStart``.
    static let tombstone = UInt32.max
    /// How many removals are remembered for readers that ask what changed.
    public static let removalMemory = 10_000

    private var arena: [UInt8] = []
    /// Per slot: where its record starts in ``arena`` (``tombstone`` once removed).
    private var recordStart: [UInt32] = []
    private var latitude: [Double] = []
    private var longitude: [Double] = []
    /// Seconds since the reference date, as `Date` keeps them (exact round trip).
    private var createdSeconds: [Double] = []
    private var updatedSeconds: [Double] = []
    /// Per slot: a 16-bit hash of each folded name (first, last, full; ``nameHash(_:)``), so that
    /// `!where` reads the arena only for the few pins whose hash matches.
    private var nameHints: [UInt64] = []
    /// Per slot: the revision of its last change.
    private var changeRevision: [Int64] = []
    private var objectIds = SlotTable()
    /// The trips of the pins that have one (ended ones too, until replaced or ended), by objectId.
    public private(set) var trips: [String: Trip] = [:]
    /// Bytes of the arena no live record uses.
    private(set) var deadBytes = 0
    /// The number of live pins.
    public private(set) var count = 0
    /// The revision of the last change (0: none yet).
    public private(set) var revision: Int64 = 0
    private var removals: [(revision: Int64, objectId: String)] = []
    /// Readers that saw a revision at or below this may have missed a removal no longer remembered.
    public private(set) var forgottenUpTo: Int64 = 0

    public init() {}

    /// A store of `pins`, added in order.
    public init(_ pins: [StudentLocation]) {
        for pin in pins { upsert(pin) }
    }

    /// Slots `0..<slotCount` (removed ones included until compaction).
    public var slotCount: Int { recordStart.count }

    /// Whether `slot` holds a pin (it was not removed).
    public func isLive(_ slot: Int) -> Bool { recordStart[slot] != Self.tombstone }

    /// The live slots, in slot order.
    public var liveSlots: [Int32] {
        var slots: [Int32] = []
        slots.reserveCapacity(count)
        for slot in recordStart.indices where recordStart[slot] != Self.tombstone { slots.append(Int32(slot)) }
        return slots
    }

    // MARK: Reading

    /// The slot of the pin with this objectId.
    public func slot(of objectId: String) -> Int? {
        var key = objectId
        return key.withUTF8 { bytes in objectIds.find(bytes, field: .objectId, in: self) }
    }

    /// The pin in `slot`, made whole.
    public func pin(at slot: Int) -> StudentLocation {
        precondition(isLive(slot), "slot \(slot) holds no pin")
        return arena.withUnsafeBufferPointer { arena in
            var reader = RecordReader(arena: arena, start: Int(recordStart[slot]))
            for _ in 0..<Field.objectId.rawValue { reader.skip() }
            let objectId = reader.string()
            let uniqueKey = reader.string()
            let firstName = reader.string()
            let lastName = reader.string()
            let mapString = reader.string()
            let mediaURL = reader.string()
            return StudentLocation(
                objectId: objectId, uniqueKey: uniqueKey, firstName: firstName, lastName: lastName,
                mapString: mapString, mediaURL: mediaURL, coordinate: coordinate(at: slot),
                createdAt: Date(timeIntervalSinceReferenceDate: createdSeconds[slot]),
                updatedAt: Date(timeIntervalSinceReferenceDate: updatedSeconds[slot]), trip: trips[objectId])
        }
    }

    public func coordinate(at slot: Int) -> Coordinate {
        Coordinate(latitude: latitude[slot], longitude: longitude[slot])
    }

    public func updatedAt(at slot: Int) -> Date { Date(timeIntervalSinceReferenceDate: updatedSeconds[slot]) }

    /// The revision that last changed `slot` (unique to that change of that pin).
    public func revision(at slot: Int) -> Int64 { changeRevision[slot] }

    /// One text field of `slot` as the UTF-8 bytes it was given in.
    public func withUTF8<Result>(
        _ field: Field, at slot: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result {
        try arena.withUnsafeBufferPointer { arena in
            try body(Self.field(field, of: Int(recordStart[slot]), in: arena))
        }
    }

    public func string(_ field: Field, at slot: Int) -> String {
        withUTF8(field, at: slot) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the arena and every slot's record start (``tombstone`` for removed ones),
    /// for scans of every record with a ``RecordReader``.
    func withRecords<Result>(
        _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt32>) throws -> Result
    ) rethrows -> Result {
        try arena.withUnsafeBufferPointer { arena in
            try recordStart.withUnsafeBufferPointer { try body(arena, $0) }
        }
    }

    /// Calls `body` with every slot's ``nameHints`` (removed slots included).
    func withNameHints<Result>(_ body: (UnsafeBufferPointer<UInt64>) throws -> Result) rethrows -> Result {
        try nameHints.withUnsafeBufferPointer(body)
    }

    /// A folded name's 16-bit hash (FNV-1a, folded), as ``nameHints`` keeps it.
    static func nameHash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return (hash ^ (hash >> 16) ^ (hash >> 32) ^ (hash >> 48)) & 0xFFFF
    }

    private static func nameHints(_ names: SearchKeys) -> UInt64 {
        func hash(_ text: String) -> UInt64 {
            var text = text
            return text.withUTF8 { nameHash($0) }
        }
        return hash(names.first) | hash(names.last) << 16 | hash(names.full) << 32
    }

    /// `field` of the record starting at `start`.
    static func field(_ field: Field, of start: Int, in arena: UnsafeBufferPointer<UInt8>)
        -> UnsafeBufferPointer<UInt8>
    {
        var reader = RecordReader(arena: arena, start: start)
        for _ in 0..<field.rawValue { reader.skip() }
        return reader.next()
    }

    /// Whether `a` is newer than `b`: the later update, then the later change.
    public func isNewer(_ a: Int, than b: Int) -> Bool {
        updatedSeconds[a] != updatedSeconds[b]
            ? updatedSeconds[a] > updatedSeconds[b] : changeRevision[a] > changeRevision[b]
    }

    /// `slots` ordered newest first (``isNewer(_:than:)``).
    public func newestFirst(_ slots: [Int32]) -> [Int32] {
        slots.sorted { isNewer(Int($0), than: Int($1)) }
    }

    /// The live slots changed after `revision`, newest first.
    public func slots(changedAfter revision: Int64) -> [Int32] {
        var slots: [Int32] = []
        for slot in recordStart.indices where recordStart[slot] != Self.tombstone && changeRevision[slot] > revision {
            slots.append(Int32(slot))
        }
        return newestFirst(slots)
    }

    /// The objectIds removed after `revision` that are not back since, sorted; only meaningful
    /// for `revision >= forgottenUpTo`.
    public func removedObjectIds(after revision: Int64) -> [String] {
        let removed = removals.lazy.filter { $0.revision > revision }.map(\.objectId).filter { slot(of: $0) == nil }
        return Array(Set(removed)).sorted()
    }

    // MARK: Changing

    /// Adds `pin`, or writes it over the pin with its objectId; returns its slot.
    @discardableResult
    public mutating func upsert(_ pin: StudentLocation) -> Int {
        revision += 1
        let names = SearchKeys(pin)
        let record = Self.record(of: pin, names: names)
        let slot: Int
        if let existing = self.slot(of: pin.objectId) {
            slot = existing
            let start = Int(recordStart[slot])
            let oldLength = recordLength(at: start)
            if record.count <= oldLength {
                arena.replaceSubrange(start..<start + record.count, with: record)
                deadBytes += oldLength - record.count
            } else {
                recordStart[slot] = appendToArena(record)
                deadBytes += oldLength
            }
        } else {
            slot = recordStart.count
            let start = appendToArena(record)
            recordStart.append(start)
            latitude.append(0)
            longitude.append(0)
            createdSeconds.append(0)
            updatedSeconds.append(0)
            changeRevision.append(0)
            nameHints.append(0)
            count += 1
            changeObjectIds { $0.insert(slot, field: .objectId, in: $1) }
        }
        latitude[slot] = pin.coordinate.latitude
        longitude[slot] = pin.coordinate.longitude
        createdSeconds[slot] = pin.createdAt.timeIntervalSinceReferenceDate
        updatedSeconds[slot] = pin.updatedAt.timeIntervalSinceReferenceDate
        changeRevision[slot] = revision
        nameHints[slot] = Self.nameHints(names)
        trips[pin.objectId] = pin.trip
        return slot
    }

    /// Removes the pin in `slot`, leaving a tombstone.
    public mutating func remove(at slot: Int) {
        precondition(isLive(slot), "slot \(slot) holds no pin")
        revision += 1
        let objectId = string(.objectId, at: slot)
        changeObjectIds { $0.remove(slot, field: .objectId, in: $1) }
        trips[objectId] = nil
        deadBytes += recordLength(at: Int(recordStart[slot]))
        recordStart[slot] = Self.tombstone
        count -= 1
        removals.append((revision, objectId))
        if removals.count > Self.removalMemory {
            let dropped = removals.count - Self.removalMemory
            forgottenUpTo = removals[dropped - 1].revision
            removals.removeFirst(dropped)
        }
    }

    /// Compacts when a quarter or more of the slots or of the arena is dead (and enough to be worth
    /// a copy); returns whether it did (slots then changed).
    public mutating func compactIfWorthIt() -> Bool {
        let deadSlots = recordStart.count - count
        guard
            (deadSlots >= 64 && deadSlots * 4 >= recordStart.count)
                || (deadBytes >= 16_384 && deadBytes * 4 >= arena.count)
        else { return false }
        compact()
        return true
    }

    /// Moves the live pins together, in slot order, and drops every tombstone and dead byte.
    public mutating func compact() {
        var compacted = PinStore()
        compacted.arena.reserveCapacity(arena.count - deadBytes)
        compacted.recordStart.reserveCapacity(count)
        arena.withUnsafeBufferPointer { arena in
            for slot in recordStart.indices where recordStart[slot] != Self.tombstone {
                let start = Int(recordStart[slot])
                let length = RecordReader.length(of: start, in: arena)
                compacted.recordStart.append(UInt32(compacted.arena.count))
                compacted.arena.append(contentsOf: arena[start..<start + length])
                compacted.latitude.append(latitude[slot])
                compacted.longitude.append(longitude[slot])
                compacted.createdSeconds.append(createdSeconds[slot])
                compacted.updatedSeconds.append(updatedSeconds[slot])
                compacted.changeRevision.append(changeRevision[slot])
                compacted.nameHints.append(nameHints[slot])
            }
        }
        compacted.count = count
        compacted.revision = revision
        compacted.trips = trips
        compacted.removals = removals
        compacted.forgottenUpTo = forgottenUpTo
        compacted.changeObjectIds { table, store in
            for slot in store.recordStart.indices { table.insert(slot, field: .objectId, in: store) }
        }
        self = compacted
    }

    /// Changes the objectId table, which reads its keys from this store meanwhile.
    private mutating func changeObjectIds(_ change: (inout SlotTable, PinStore) -> Void) {
        var table = objectIds
        objectIds = SlotTable()  // the table's buffer stays unshared while it changes
        change(&table, self)
        objectIds = table
    }

    private mutating func appendToArena(_ record: [UInt8]) -> UInt32 {
        let start = arena.count
        precondition(start + record.count < Int(Self.tombstone), "the pins' text passed 4 GiB")
        arena.append(contentsOf: record)
        return UInt32(start)
    }

    private func recordLength(at start: Int) -> Int {
        arena.withUnsafeBufferPointer { RecordReader.length(of: start, in: $0) }
    }

    /// A pin's record: each field's length (LEB128) and its UTF-8 bytes, in ``Field`` order.
    static func record(of pin: StudentLocation, names: SearchKeys) -> [UInt8] {
        let fields = [
            names.first, names.last, names.full, pin.objectId, pin.uniqueKey, pin.firstName, pin.lastName,
            pin.mapString, pin.mediaURL,
        ]
        var record: [UInt8] = []
        record.reserveCapacity(fields.reduce(Field.allCases.count) { $0 + $1.utf8.count })
        for field in fields {
            var length = field.utf8.count
            while length >= 0x80 {
                record.append(UInt8(length & 0x7F) | 0x80)
                length >>= 7
            }
            record.append(UInt8(length))
            record.append(contentsOf: field.utf8)
        }
        return record
    }
}

/// A pin's names as `!where` compares them: folded (``NameMatcher/fold(_:)``), then in canonical
/// composed form, so that comparing bytes is comparing the strings.
struct SearchKeys {
    var first: String
    var last: String
    var full: String

    init(_ pin: StudentLocation) {
        first = Self.key(pin.firstName)
        last = Self.key(pin.lastName)
        full = Self.key("\(pin.firstName) \(pin.lastName)")
    }

    static func key(_ text: String) -> String { composed(NameMatcher.fold(text)) }

    /// `folded` in canonical composed form (plain ASCII is already).
    static func composed(_ folded: String) -> String {
        folded.utf8.allSatisfy { $0 < 0x80 } ? folded : folded.precomposedStringWithCanonicalMapping
    }
}

/// Walks the fields of one record in a ``PinStore``'s arena.
struct RecordReader {
    let arena: UnsafeBufferPointer<UInt8>
    var position: Int

    init(arena: UnsafeBufferPointer<UInt8>, start: Int) {
        self.arena = arena
        self.position = start
    }

    /// The next field's bytes.
    mutating func next() -> UnsafeBufferPointer<UInt8> {
        let length = readLength()
        let start = position
        position += length
        return UnsafeBufferPointer(rebasing: arena[start..<position])
    }

    mutating func skip() { position += readLength() }

    mutating func string() -> String { String(decoding: next(), as: UTF8.self) }

    private mutating func readLength() -> Int {
        var length = 0
        var shift = 0
        while true {
            let byte = arena[position]
            position += 1
            length |= Int(byte & 0x7F) << shift
            if byte < 0x80 { return length }
            shift += 7
        }
    }

    /// The bytes the record starting at `start` takes.
    static func length(of start: Int, in arena: UnsafeBufferPointer<UInt8>) -> Int {
        var reader = RecordReader(arena: arena, start: start)
        for _ in PinStore.Field.allCases { reader.skip() }
        return reader.position - start
    }
}
