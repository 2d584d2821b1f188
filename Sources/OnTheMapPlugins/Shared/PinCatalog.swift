import Foundation
import OnTheMapService

/// Every pin of the class in memory, kept current one change at a time: the pins in slots, their
/// names folded for `!where`, the `recentLimit` most recent (the seeds' table) and a
/// nearest-neighbour index for `!near`, rebuilt only when asked for after a change.
///
/// Order: newest update first; equal update times go to the pin that arrived later (a change
/// feed delivers pins in revision order, so this is the directory's own order).
struct PinCatalog: Sendable {
    private(set) var pins: [StudentLocation] = []
    private var names: [NameMatcher.FoldedName] = []
    /// When each slot's pin arrived here (only grows).
    private var arrival: [Int64] = []
    private var slotOfObject: [String: Int] = [:]
    private var arrivals: Int64 = 0
    /// The slots of the most recent pins, newest first; nil when it must be worked out again.
    private var recentSlots: [Int]? = []
    /// The index over ``pins`` (payload: the slot); nil after a change.
    private var index: NearestIndex<Int32>?
    let recentLimit: Int

    init(recentLimit: Int) {
        self.recentLimit = max(1, recentLimit)
    }

    var count: Int { pins.count }

    func pin(objectId: String) -> StudentLocation? {
        slotOfObject[objectId].map { pins[$0] }
    }

    /// Adds `pin`, or replaces the pin with its objectId; returns whether this is a version (objectId
    /// and update time) that was not here before.
    @discardableResult
    mutating func upsert(_ pin: StudentLocation) -> Bool {
        arrivals += 1
        if let slot = slotOfObject[pin.objectId] {
            let old = pins[slot]
            if old == pin { return false }
            pins[slot] = pin
            names[slot] = NameMatcher.FoldedName(pin)
            arrival[slot] = arrivals
            index = nil
            placeInRecent(slot, wasThere: true)
            return ClassMap.version(old) != ClassMap.version(pin)
        }
        let slot = pins.count
        pins.append(pin)
        names.append(NameMatcher.FoldedName(pin))
        arrival.append(arrivals)
        slotOfObject[pin.objectId] = slot
        index = nil
        placeInRecent(slot, wasThere: false)
        return true
    }

    /// Removes the pin with this objectId; returns whether there was one.
    @discardableResult
    mutating func remove(objectId: String) -> Bool {
        guard let slot = slotOfObject.removeValue(forKey: objectId) else { return false }
        let last = pins.count - 1
        if slot != last {
            pins[slot] = pins[last]
            names[slot] = names[last]
            arrival[slot] = arrival[last]
            slotOfObject[pins[slot].objectId] = slot
        }
        pins.removeLast()
        names.removeLast()
        arrival.removeLast()
        index = nil
        recentSlots = nil  // slots moved, and the table lost a row
        return true
    }

    /// The objectIds of the pins of account `uniqueKey` (a scan: only for the bot's own saves).
    func objectIds(ofAccount uniqueKey: String) -> [String] {
        pins.lazy.filter { $0.uniqueKey == uniqueKey }.map(\.objectId)
    }

    /// The `recentLimit` most recent pins, newest first.
    mutating func recent() -> [StudentLocation] {
        if recentSlots == nil { recentSlots = workOutRecent() }
        return (recentSlots ?? []).map { pins[$0] }
    }

    /// The pins whose names match `query` (see ``NameMatcher``), newest first.
    func pins(named query: String) -> [StudentLocation] {
        NameMatcher(query: query).matchingSlots(in: names).sorted { isNewer($0, than: $1) }.map { pins[$0] }
    }

    /// The nearest-neighbour index over every pin, built now if a change made the last one stale.
    mutating func neighbourhood() -> ClassMap.Neighbourhood {
        let built: NearestIndex<Int32>
        if let index {
            built = index
        } else {
            built = NearestIndex(
                entries: pins.indices.map {
                    NearestIndex<Int32>.Entry(
                        coordinate: pins[$0].coordinate, payload: Int32($0), key: pins[$0].uniqueKey,
                        updatedAt: pins[$0].updatedAt)
                })
            index = built
        }
        return ClassMap.Neighbourhood(index: built, pins: pins)
    }

    private func isNewer(_ a: Int, than b: Int) -> Bool {
        pins[a].updatedAt != pins[b].updatedAt ? pins[a].updatedAt > pins[b].updatedAt : arrival[a] > arrival[b]
    }

    /// Keeps the table of recent pins current after `slot` was added or replaced.
    private mutating func placeInRecent(_ slot: Int, wasThere: Bool) {
        guard var recent = recentSlots else { return }
        let previous = wasThere ? recent.firstIndex(of: slot) : nil
        if let previous { recent.remove(at: previous) }
        let position = recent.firstIndex { isNewer(slot, than: $0) } ?? recent.count
        if position < recent.count || recent.count < recentLimit {
            // At the very end only when every pin fits in the table, or it was already there
            // (then a pin outside the table may now rank above it: work it out again).
            if position == recent.count, previous != nil, pins.count > recentLimit {
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
        for slot in pins.indices {
            if best.count == recentLimit, let last = best.last, !isNewer(slot, than: last) { continue }
            let position = best.firstIndex { isNewer(slot, than: $0) } ?? best.count
            best.insert(slot, at: position)
            if best.count > recentLimit { best.removeLast() }
        }
        return best
    }
}
