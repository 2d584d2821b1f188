import Foundation
import OnTheMapService

/// The bot's copy of the class map: every pin of the directory (for `!where` and `!near`), and the
/// 100 most recent (the seeds' table, for `!list`, `!refresh` and the announcer).
///
/// Loaded once, on first use (the announcer's first round, at start), then kept current:
/// - a directory with a change feed (local, PostgreSQL) is asked only for what changed after the
///   last revision seen, removals included;
/// - one without (the Udacity API) is paged through at load (`skip`, up to ``pagingCap`` pins),
///   then each refresh reads its most recent page.
/// Pins the bot saves itself are added at once. Refreshes run one at a time.
public actor ClassMap {
    /// What one refresh found.
    public struct Refresh: Sendable {
        /// The most recent pins now (at most the table's limit), newest update first.
        public var pins: [StudentLocation]
        /// Pins among ``pins`` that were not on the map before, or were updated since (newest first).
        public var fresh: [StudentLocation]
        /// Every pin version the change feed brought, oldest first: a pin saved several times since
        /// the last refresh (moved, moved back) is here once per save, even where ``pins`` shows
        /// only its latest. Empty at the first load and for a directory without a change feed.
        public var versions: [StudentLocation] = []
    }

    /// Every pin, indexed for "the nearest to here" (payloads: slots of ``store``).
    public struct Neighbourhood: Sendable {
        let index: NearestIndex<Int32>
        let accounts: AccountTable
        let store: PinStore

        /// How many pins are indexed (those with a valid coordinate).
        public var count: Int { index.count }

        /// The `k` pins nearest to `origin`, nearest first, leaving out account `excludingKey`'s.
        /// With `now`, each pin is where it is shown then (``StudentLocation/shown(at:)``): a pin
        /// on a trip counts at the trip's place, its home pin again once the trip has ended.
        public func nearest(to origin: Coordinate, k: Int, excludingKey: String? = nil, at now: Date? = nil)
            -> [NearestIndex<StudentLocation>.Neighbour]
        {
            // An account with no pin here has no number, and nothing to leave out.
            let excluded = excludingKey.flatMap { accounts.owner(ofKey: $0, in: store) }
            // The index holds home places; the few pins on a trip are placed by hand. Asking for as
            // many more as there are trips keeps the k nearest whichever of them moved away.
            let away = now.map { now in store.trips.filter { $0.value.isActive(at: now) } } ?? [:]
            var found = index.nearest(to: origin, k: k + away.count, excludingKeyId: excluded).map {
                let pin = store.pin(at: Int($0.payload))
                return NearestIndex<StudentLocation>.Neighbour(
                    payload: pin, coordinate: pin.coordinate, distanceKilometres: $0.distanceKilometres)
            }
            guard !away.isEmpty else { return found }
            found.removeAll { away[$0.payload.objectId] != nil }
            for (objectId, trip) in away {
                guard let slot = store.slot(of: objectId), trip.coordinate.isValid else { continue }
                let pin = store.pin(at: slot)
                if let excludingKey, pin.uniqueKey.utf8.elementsEqual(excludingKey.utf8) { continue }
                found.append(
                    NearestIndex<StudentLocation>.Neighbour(
                        payload: pin, coordinate: trip.coordinate,
                        distanceKilometres: GreatCircle.distanceKilometres(origin, trip.coordinate)))
            }
            found.sort { $0.distanceKilometres < $1.distanceKilometres }
            return Array(found.prefix(k))
        }
    }

    /// Pins asked for at once when paging through a directory without a change feed.
    static let pagingPageSize = 1_000

    private let directory: any StudentDirectory
    private let limit: Int
    /// The most pins read from a directory without a change feed.
    public let pagingCap: Int
    /// Changes asked for at once from a change feed. A page is held whole while it is applied, so
    /// its size is what the first load of a large class needs on top of the map itself: pages of
    /// 5,000 raised the bot's peak by about 5 MiB at start, pages of 1,000 by about 1.
    private let feedPageSize: Int
    private var catalog: PinCatalog
    /// The last revision read from the change feed; nil for a directory without one.
    private var cursor: Int64?
    private var loaded = false
    /// Pins the bot saved, by objectId, with their update time: an older copy read afterwards (a
    /// read that started before the save) does not replace them.
    private var recordedHere: [String: Date] = [:]
    /// Pins the bot removed, by objectId, with their last update time: a copy as old or older read
    /// afterwards does not put them back.
    private var removedHere: [String: Date] = [:]
    /// The refresh running or queued last; the next waits for it.
    private var lastRefresh: Task<Void, Never>?

    public init(directory: any StudentDirectory, limit: Int = 100, pagingCap: Int = 10_000, feedPageSize: Int = 1_000) {
        self.directory = directory
        self.limit = limit
        self.pagingCap = max(1, pagingCap)
        self.feedPageSize = max(1, feedPageSize)
        self.catalog = PinCatalog(recentLimit: limit)
    }

    /// Loads the map the first time; afterwards reads what changed. Throws the directory's
    /// `ServiceError`; what was read before stays in place when it does.
    @discardableResult
    public func refresh() async throws -> Refresh {
        let previous = lastRefresh
        let task = Task { try await self.refreshInTurn(after: previous) }
        lastRefresh = Task { _ = try? await task.value }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// The most recent pins, newest update first, loading the map once if nothing was loaded yet.
    public func recent() async throws -> [StudentLocation] {
        if !loaded { try await refresh() }
        return catalog.recent()
    }

    /// Every pin whose name matches `query` (first, last or full name; see ``NameMatcher``),
    /// newest first.
    public func pins(named query: String) async throws -> [StudentLocation] {
        if !loaded { try await refresh() }
        return catalog.pins(named: query)
    }

    /// Every pin, newest update first (each made whole: for a copy of the class, e.g. an export).
    public func all() async throws -> [StudentLocation] {
        if !loaded { try await refresh() }
        let store = catalog.store
        return store.newestFirst(store.liveSlots).map { store.pin(at: Int($0)) }
    }

    /// Every pin as stored, loading the map once if nothing was loaded yet: what the web map reads
    /// without a copy of the class. Hold it only while reading: a change the map takes meanwhile
    /// copies the store.
    public func store() async throws -> PinStore {
        if !loaded { try await refresh() }
        return catalog.store
    }

    /// Every pin, indexed for `!near`.
    public func nearestIndex() async throws -> Neighbourhood {
        if !loaded { try await refresh() }
        return catalog.neighbourhood()
    }

    /// Adds (or moves) a pin the bot just saved, so every command sees it at once; the account's
    /// other pins (a shared backend may hold several) leave the map.
    public func record(_ pin: StudentLocation) {
        // Not loaded yet: the first load will fetch it from the directory.
        guard loaded else { return }
        for other in catalog.objectIds(ofAccount: pin.uniqueKey) where other != pin.objectId {
            catalog.remove(objectId: other)
        }
        catalog.upsert(pin)
        recordedHere[pin.objectId] = pin.updatedAt
    }

    /// Takes a pin the bot just removed off the map at once; a copy read before the removal (by a
    /// refresh already under way) does not bring it back.
    public func forget(_ pin: StudentLocation) {
        recordedHere[pin.objectId] = nil
        guard loaded else { return }
        catalog.remove(objectId: pin.objectId)
        removedHere[pin.objectId] = pin.updatedAt
    }

    /// The pin with this objectId, loading the map once if nothing was loaded yet.
    public func pin(objectId: String) async throws -> StudentLocation? {
        if !loaded { try await refresh() }
        return catalog.pin(objectId: objectId)
    }

    /// How many pins the map holds.
    public var count: Int { catalog.count }

    private func refreshInTurn(after previous: Task<Void, Never>?) async throws -> Refresh {
        await previous?.value
        guard loaded else {
            try await load()
            return Refresh(pins: catalog.recent(), fresh: [])
        }
        var fresh: Set<String> = []
        var versions: [StudentLocation] = []
        if let cursor, try await readFeed(after: cursor, into: &fresh, versions: &versions) {
            // Read from the change feed.
        } else {
            cursor = nil
            let latest = try await directory.recentLocations(limit: limit, skip: 0)
            for pin in latest.reversed() where apply(pin) { fresh.insert(pin.objectId) }
        }
        let recent = catalog.recent()
        return Refresh(pins: recent, fresh: recent.filter { fresh.contains($0.objectId) }, versions: versions)
    }

    /// Applies the change feed after `revision`, collecting each version saved (but not removed
    /// since) in `versions`; false when the directory has none.
    private func readFeed(
        after revision: Int64, into fresh: inout Set<String>, versions: inout [StudentLocation]
    ) async throws -> Bool {
        var position = revision
        while true {
            guard let page = try await directory.locationChanges(after: position, limit: feedPageSize) else {
                return false
            }
            for change in page.changes {
                switch change {
                case .saved(let pin):
                    if apply(pin) { fresh.insert(pin.objectId) }
                    versions.append(pin)
                case .removed(let objectId):
                    catalog.remove(objectId: objectId)
                    recordedHere[objectId] = nil
                    removedHere[objectId] = nil
                    fresh.remove(objectId)
                    versions.removeAll { $0.objectId == objectId }
                }
            }
            position = page.lastRevision
            cursor = position
            if page.isComplete || page.changes.isEmpty { return true }
        }
    }

    /// Puts a pin read from the directory on the map, unless the bot saved a newer copy itself;
    /// returns whether it is a new version.
    private func apply(_ pin: StudentLocation) -> Bool {
        if let removed = removedHere[pin.objectId] {
            if pin.updatedAt <= removed { return false }
            removedHere[pin.objectId] = nil
        }
        if let saved = recordedHere[pin.objectId] {
            if pin.updatedAt < saved { return false }
            recordedHere[pin.objectId] = nil
        }
        return catalog.upsert(pin)
    }

    /// The first load: the whole change feed, or pages of the most recent pins up to ``pagingCap``.
    /// Nothing replaces the (empty) map until every page was read.
    private func load() async throws {
        var loading = PinCatalog(recentLimit: limit)
        if var page = try await directory.locationChanges(after: 0, limit: feedPageSize) {
            while true {
                for change in page.changes {
                    switch change {
                    case .saved(let pin): loading.upsert(pin)
                    case .removed(let objectId): loading.remove(objectId: objectId)
                    }
                }
                if page.isComplete || page.changes.isEmpty { break }
                guard let next = try await directory.locationChanges(after: page.lastRevision, limit: feedPageSize)
                else { break }
                page = next
            }
            cursor = page.lastRevision
        } else {
            // Newest first across pages; put on the map oldest first, so later arrivals rank newer.
            for pin in try await pageThroughRecent().reversed() { loading.upsert(pin) }
            cursor = nil
        }
        catalog = loading
        loaded = true
        FreePages.release()
    }

    /// Pages of the most recent pins, newest first, until a page is empty or brings nothing new
    /// (a server that ignores `skip`), or ``pagingCap`` pins were read.
    private func pageThroughRecent() async throws -> [StudentLocation] {
        var collected: [StudentLocation] = []
        var seen: Set<String> = []
        var skip = 0
        while collected.count < pagingCap {
            let page = try await directory.recentLocations(
                limit: min(Self.pagingPageSize, pagingCap - collected.count), skip: skip)
            let new = page.filter { seen.insert($0.objectId).inserted }
            if new.isEmpty { break }
            collected += new
            skip += page.count
        }
        return collected
    }

    /// A pin's identity at one moment: a new post, or an update of an old one, gives a new version.
    nonisolated static func version(_ pin: StudentLocation) -> String {
        "\(pin.objectId)@\(Int64((pin.updatedAt.timeIntervalSince1970 * 1000).rounded()))"
    }
}
