import ClassKit
import OnTheMapService

/// The level each pin of the web map is kept at (``PinPrecision``, from its point and place text
/// through the gazetteer), found once per change of a pin, as ``MapPinZones`` finds zones: per
/// slot of the pin store, the level and the revision of the pin it was found for.
struct MapPinLevels: Sendable {
    private var levelOfSlot: [UInt8] = []
    private var foundFor: [Int64] = []

    private static let levels: [PinPrecision] = [.exact, .city, .region, .country]

    /// The level of the pin in `slot` (`.exact` when it was never found).
    func level(of slot: Int) -> PinPrecision {
        slot < levelOfSlot.count ? Self.levels[Int(levelOfSlot[slot])] : .exact
    }

    /// The live slots of `store` whose level was not found for their current revision.
    func slotsToFind(in store: PinStore) -> [Int32] {
        var slots: [Int32] = []
        for slot in 0..<store.slotCount where store.isLive(slot) {
            if slot >= foundFor.count || foundFor[slot] != store.revision(at: slot) { slots.append(Int32(slot)) }
        }
        return slots
    }

    /// Keeps `levels[i]` as the level of `slots[i]` of `store`.
    mutating func record(_ levels: [PinPrecision], at slots: [Int32], of store: PinStore) {
        if levelOfSlot.count < store.slotCount {
            levelOfSlot += [UInt8](repeating: 0, count: store.slotCount - levelOfSlot.count)
            foundFor += [Int64](repeating: 0, count: store.slotCount - foundFor.count)
        }
        for (slot, level) in zip(slots, levels) {
            levelOfSlot[Int(slot)] = UInt8(Self.levels.firstIndex(of: level) ?? 0)
            foundFor[Int(slot)] = store.revision(at: Int(slot))
        }
    }
}
