import Foundation
import OnTheMapService

/// Every pin of the class in memory, kept current one change at a time: the pins in a compact
/// ``PinStore`` (their names folded for `!where` among them), the `recentLimit` most recent (the
/// seeds' table) and a nearest-neighbour index for `!near`, rebuilt only when asked for after a
/// change.
///
/// Order: newest update first; equal update times go to the pin that changed later (a change
/// feed delivers pins in revision order, so this is the directory's own order).
struct PinCatalog: Sendable {
    private(set) var store = PinStore()
    /// The slots of the most recent pins, newest first; nil when it must be worked out again.
    private var recentSlots: [Int]? = []
    /// The index over the store's slots, and its owners' table; nil after a change.
    private var index: (nearest: NearestIndex<Int32>, accounts: AccountTable)?
    let recentLimit: Int

    init(recentLimit: Int) {
        self.recentLimit = max(1, recentLimit)
    }

    var count: Int { store.count }

    func pin(objectId: String) -> StudentLocation? {
        store.slot(of: objectId).map { store.pin(at: $0) }
    }

    /// Adds `pin`, or replaces the pin with its objectId; returns whether this is a version (objectId
    /// and update time) that was not here before.
    @discardableResult
    mutating func upsert(_ pin: StudentLocation) -> Bool {
        if let slot = store.slot(of: pin.objectId) {
            let old = store.pin(at: slot)
            if old == pin { return false }
            store.upsert(pin)
            index = nil
            placeInRecent(slot, wasThere: true)
            if store.compactIfWorthIt() { recentSlots = nil }
            return ClassMap.version(old) != ClassMap.version(pin)
        }
        let slot = store.upsert(pin)
        index = nil
        placeInRecent(slot, wasThere: false)
        return true
    }

    /// Removes the pin with this objectId; returns whether there was one.
    @discardableResult
    mutating func remove(objectId: String) -> Bool {
        guard let slot = store.slot(of: objectId) else { return false }
        store.remove(at: slot)
        index = nil
        if recentSlots?.contains(slot) == true { recentSlots = nil }  // the table lost a row
        if store.compactIfWorthIt() { recentSlots = nil }  // slots moved
        return true
    }

    /// The objectIds of the pins of account `uniqueKey` (a scan: only for the bot's own saves).
    func objectIds(ofAccount uniqueKey: String) -> [String] {
        var key = uniqueKey
        return key.withUTF8 { key in
            store.liveSlots.filter { slot in store.withUTF8(.uniqueKey, at: Int(slot)) { NameMatcher.equal($0, key) } }
        }.map { store.string(.objectId, at: Int($0)) }
    }

    /// The `recentLimit` most recent pins, newest first.
    mutating func recent() -> [StudentLocation] {
        if recentSlots == nil { recentSlots = workOutRecent() }
        return (recentSlots ?? []).map { store.pin(at: $0) }
    }

    /// The pins whose names match `query` (see ``NameMatcher``), newest first.
    func pins(named query: String) -> [StudentLocation] {
        NameMatcher(query: query).matchingSlots(in: store).sorted { isNewer($0, than: $1) }.map { store.pin(at: $0) }
    }

    /// The nearest-neighbour index over every pin, built now if a change made the last one stale.
    mutating func neighbourhood() -> ClassMap.Neighbourhood {
        let built: (nearest: NearestIndex<Int32>, accounts: AccountTable)
        if let index {
            built = index
        } else {
            built = buildIndex()
            index = built
            if store.count >= 10_000 { FreePages.release() }
        }
        return ClassMap.Neighbourhood(index: built.nearest, accounts: built.accounts, store: store)
    }

    /// Numbers the owners (the first slot of each account key) and indexes every live slot.
    private func buildIndex() -> (nearest: NearestIndex<Int32>, accounts: AccountTable) {
        let slots = store.liveSlots
        var accounts = AccountTable()
        var keyIds: [Int32] = []
        keyIds.reserveCapacity(slots.count)
        for slot in slots { keyIds.append(accounts.owner(of: Int(slot), in: store)) }
        let updatedAt = slots.map { store.updatedAt(at: Int($0)).timeIntervalSinceReferenceDate }
        let nearest = NearestIndex(
            count: slots.count, coordinate: { store.coordinate(at: Int(slots[$0])) }, payloads: slots,
            keyIds: consume keyIds, updatedAt: consume updatedAt)
        return (nearest, accounts)
    }

    private func isNewer(_ a: Int, than b: Int) -> Bool { store.isNewer(a, than: b) }

    /// Keeps the table of recent pins current after `slot` was added or replaced.
    private mutating func placeInRecent(_ slot: Int, wasThere: Bool) {
        guard var recent = recentSlots else { return }
        let previous = wasThere ? recent.firstIndex(of: slot) : nil
        if let previous { recent.remove(at: previous) }
        let position = recent.firstIndex { isNewer(slot, than: $0) } ?? recent.count
        if position < recent.count || recent.count < recentLimit {
            // At the very end only when every pin fits in the table, or it was already there
            // (then a pin outside the table may now rank above it: work it out again).
            if position == recent.count, previous != nil, store.count > recentLimit {
                recentSlots = nil
                return
            }
            recent.insert(slot, at: position)
            if recent.count > recentLimit { recent.removeLast() }
        } else if previous != nil {
            recentSlots = nil
            return
        }
        recentSlots = recent
    }

    /// The most recent `recentLimit` slots, newest first, in one pass over every pin.
    private func workOutRecent() -> [Int] {
        var best: [Int] = []
        best.reserveCapacity(recentLimit + 1)
        for slot in 0..<store.slotCount where store.isLive(slot) {
            if best.count == recentLimit, let last = best.last, !isNewer(slot, than: last) { continue }
            let position = best.firstIndex { isNewer(slot, than: $0) } ?? best.count
            best.insert(slot, at: position)
            if best.count > recentLimit { best.removeLast() }
        }
        return best
    }
}
