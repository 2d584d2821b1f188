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
/// A pin shows where its student is now: the place of a trip while the trip lasts, else the home
/// pin; with it go the zone of that place (``MapPinZones``) and, for a trip, its last day.
///
/// A cursor is `<epoch>-<revision>-<seconds>` (the epoch is this feed's, so a cursor from before a
/// restart is told apart; the seconds are when it was given out, so that a trip that ended since
/// comes back as a change); a cursor older than the oldest removal the store remembers, or from
/// another epoch, gets every pin again.
public actor MapPinFeed {
    public typealias Load = @Sendable () async throws -> [StudentLocation]

    /// Pins to write: slots of `store`, in order, as they show at `now`.
    public struct Pins: Sendable {
        public let store: PinStore
        public let slots: [Int32]
        /// The instant the pins show at (a trip shows until it ends).
        let now: Date
        let zones: MapPinZones
        /// The trips that last at `now`, by slot.
        let trips: [Int32: ShownTrip]

        init(
            store: PinStore, slots: [Int32], now: Date, zones: MapPinZones = MapPinZones(),
            trips: [Int32: ShownTrip] = [:]
        ) {
            self.store = store
            self.slots = slots
            self.now = now
            self.zones = zones
            self.trips = trips
        }
    }

    /// A trip that lasts: where the pin shows, the zone there and its last day there.
    struct ShownTrip: Sendable {
        let trip: Trip
        let zone: PlaceTimeZone
        let lastDay: LocalDay

        /// The trips of `store` that last at `now`, by slot, with no zone looked up (last days in UTC).
        static func lasting(in store: PinStore, at now: Date) -> [Int32: ShownTrip] {
            var trips: [Int32: ShownTrip] = [:]
            for (objectId, trip) in store.trips where trip.isActive(at: now) {
                guard let slot = store.slot(of: objectId) else { continue }
                trips[Int32(slot)] = ShownTrip(trip: trip, zone: .unknown, lastDay: trip.lastDay(in: nil))
            }
            return trips
        }
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
    private let timeZones: PinTimeZones
    private let levelFinder: (any PlaceLevelFinder)?
    private var levels = MapPinLevels()
    private var findingLevels: Task<Void, Never>?
    private var viewIndex: MapViewIndex?
    private var buildingView: Task<(MapViewIndex, Pins), Never>?
    private let now: @Sendable () -> Date
    private var zones = MapPinZones()
    private var findingZones: Task<Void, Never>?
    private let clock = ContinuousClock()
    private let epoch = String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
    private var readAt: ContinuousClock.Instant?
    private var inFlight: Task<Void, any Error>?
    /// The pins of the last list read through `load` (unused for a class map).
    private var mirror = PinStore()

    /// Reads through `load` (every pin), at most once per `maxAge`; keeps the `limit` newest.
    /// `timeZones` finds each pin's zone; `now` is the clock trips end by.
    public init(
        limit: Int = .max, maxAge: Duration = .seconds(5), timeZones: PinTimeZones = PinTimeZones(finder: nil),
        levels: (any PlaceLevelFinder)? = nil, now: @escaping @Sendable () -> Date = { Date() },
        load: @escaping Load
    ) {
        self.source = .load(load, limit: max(1, limit))
        self.maxAge = maxAge
        self.timeZones = timeZones
        self.levelFinder = levels
        self.now = now
    }

    /// Every pin of `classMap`, brought up to date (its change feed, or the newest page of a
    /// directory without one) at most once per `maxAge`.
    public init(
        classMap: ClassMap, maxAge: Duration = .seconds(5), timeZones: PinTimeZones = PinTimeZones(finder: nil),
        levels: (any PlaceLevelFinder)? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.source = .classMap(classMap)
        self.maxAge = maxAge
        self.timeZones = timeZones
        self.levelFinder = levels
        self.now = now
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
        let now = now()
        return (await shown(store.newestFirst(store.liveSlots), of: store, at: now), cursor(of: store, at: now))
    }

    /// What changed after `since`; throws ``BadCursor`` for text this feed never gave out.
    public func changes(since: String) async throws -> Changes {
        guard let (cursorEpoch, position, seconds) = Self.parse(since) else { throw BadCursor() }
        let store = try await read()
        let now = now()
        guard cursorEpoch == epoch, position >= store.forgottenUpTo, position <= store.revision else {
            if cursorEpoch == epoch && position > store.revision { throw BadCursor() }
            let every = await shown(store.newestFirst(store.liveSlots), of: store, at: now)
            return .everything(every, cursor: cursor(of: store, at: now))
        }
        // Changed pins, and those whose trip ended since the cursor was given out (home again).
        let given = Date(timeIntervalSince1970: TimeInterval(seconds))
        var changed = Set(position == store.revision ? [] : store.slots(changedAfter: position))
        for (objectId, trip) in store.trips where trip.endsAt > given && trip.endsAt <= now {
            if let slot = store.slot(of: objectId) { changed.insert(Int32(slot)) }
        }
        let removed = position == store.revision ? [] : store.removedObjectIds(after: position)
        let pins = await shown(store.newestFirst(Array(changed)), of: store, at: now)
        return .changed(pins, removed: removed, cursor: cursor(of: store, at: now))
    }

    /// The viewport index of the class as it shows now (built again only when the store changed
    /// or a lasting trip ended since it was built), the pins it was built from and their cursor.
    /// One build at a time: a page that asks while the index is built waits for that build.
    func view() async throws -> (index: MapViewIndex, pins: Pins, cursor: String) {
        while true {
            let store = try await read()
            let now = now()
            if let viewIndex, viewIndex.describes(store, at: now) {
                return (viewIndex, await shown(viewIndex.newestFirst, of: store, at: now), cursor(of: store, at: now))
            }
            if let buildingView {
                _ = await buildingView.value
                continue
            }
            viewIndex = nil
            let building = Task {
                let pins = await shown(store.newestFirst(store.liveSlots), of: store, at: now)
                let index = MapViewIndex(pins: pins, levels: await levels(for: store))
                viewIndex = index
                buildingView = nil
                return (index, pins)
            }
            buildingView = building
            let (index, pins) = await building.value
            return (index, pins, cursor(of: store, at: now))
        }
    }

    /// Reads the class and builds the viewport index ahead of the first page (at 1,000,000 pins,
    /// finding every pin's level and zone takes seconds): the number of pins the index holds.
    func prepareView() async throws -> Int {
        try await view().index.total
    }

    /// Whether anything the map shows changed after `since` (a pin saved, moved or removed, or a
    /// trip ended); throws ``BadCursor`` for text this feed never gave out.
    func hasChanged(since: String) async throws -> Bool {
        guard let (cursorEpoch, position, seconds) = Self.parse(since) else { throw BadCursor() }
        let store = try await read()
        if cursorEpoch == epoch && position > store.revision { throw BadCursor() }
        guard cursorEpoch == epoch, position == store.revision else { return true }
        let given = Date(timeIntervalSince1970: TimeInterval(seconds))
        let now = now()
        return store.trips.values.contains { $0.endsAt > given && $0.endsAt <= now }
    }

    /// The cursor of the store as it is now.
    func currentCursor() async throws -> String {
        let store = try await read()
        return cursor(of: store, at: now())
    }

    /// The levels of every pin of `store` (all `.exact` without a finder), finding those of pins
    /// new or changed since the last time, one search at a time.
    private func levels(for store: PinStore) async -> MapPinLevels {
        guard let levelFinder else { return MapPinLevels() }
        while let findingLevels { await findingLevels.value }
        let missing = levels.slotsToFind(in: store)
        guard !missing.isEmpty else { return levels }
        findingLevels = Task {
            var found: [PinPrecision] = []
            found.reserveCapacity(missing.count)
            for slot in missing {
                let place = Int(slot)
                found.append(
                    await levelFinder.precision(
                        of: store.coordinate(at: place), named: store.string(.mapString, at: place)))
            }
            levels.record(found, at: missing, of: store)
            findingLevels = nil
        }
        while let findingLevels { await findingLevels.value }
        return levels
    }

    private func cursor(of store: PinStore, at now: Date) -> String {
        "\(epoch)-\(store.revision)-\(Int64(now.timeIntervalSince1970.rounded(.down)))"
    }

    /// `slots` of `store` as they show at `now`: every pin's zone, and the trips that last.
    private func shown(_ slots: [Int32], of store: PinStore, at now: Date) async -> Pins {
        var trips: [Int32: ShownTrip] = [:]
        for (objectId, trip) in store.trips where trip.isActive(at: now) {
            guard let slot = store.slot(of: objectId) else { continue }
            let zone = await timeZones.timeZone(ofPinAt: trip.coordinate, named: trip.mapString)
            let near = await timeZones.finder?.timeZone(near: trip.coordinate).timeZone
            trips[Int32(slot)] = ShownTrip(trip: trip, zone: zone, lastDay: trip.lastDay(in: near))
        }
        return Pins(store: store, slots: slots, now: now, zones: await zones(for: store), trips: trips)
    }

    /// The zones of every pin of `store`, finding those of pins new or changed since the last time
    /// (one search at a time: a page that asks meanwhile waits for it rather than repeating it).
    private func zones(for store: PinStore) async -> MapPinZones {
        while let findingZones { await findingZones.value }
        let missing = zones.slotsToFind(in: store)
        guard !missing.isEmpty else { return zones }
        let timeZones = timeZones
        findingZones = Task {
            var found: [PlaceTimeZone] = []
            found.reserveCapacity(missing.count)
            for slot in missing {
                let place = Int(slot)
                found.append(
                    await timeZones.timeZone(
                        ofPinAt: store.coordinate(at: place), named: store.string(.mapString, at: place)))
            }
            zones.record(found, at: missing, of: store)
            findingZones = nil
        }
        while let findingZones { await findingZones.value }
        return zones
    }

    /// `<epoch>-<revision>-<seconds>`: 8 hex digits, a dash, a number, a dash, a number.
    static func parse(_ text: String) -> (String, Int64, Int64)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 8, parts[0].allSatisfy(\.isHexDigit),
            parts[0].lowercased() == parts[0], parts[1...].allSatisfy({ $0.allSatisfy(\.isASCII) }),
            let position = Int64(parts[1]), position >= 0, let seconds = Int64(parts[2]), seconds >= 0
        else { return nil }
        return (String(parts[0]), position, seconds)
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
