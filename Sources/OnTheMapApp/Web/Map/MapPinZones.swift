import ClassKit
import OnTheMapService

/// The time zone of each pin the web map shows (its popup and table give the student's local
/// time), found once per change of a pin rather than on every page load: per slot of the pin
/// store, the zone's number in a table of names and the revision of the pin it was found for (a
/// revision belongs to one change of one pin, so a moved, replaced or compacted slot is found
/// again).
struct MapPinZones: Sendable {
    private static let unknown: UInt16 = 0
    private static let several: UInt16 = 1

    private var zoneOfSlot: [UInt16] = []
    private var foundFor: [Int64] = []
    private var names: [String] = ["", "several"]
    private var numberOfName: [String: UInt16] = [:]

    /// What the page gets for `slot`: an IANA zone name, "several" (a country whose towns keep
    /// different times), or nil when the zone is not known.
    func text(of slot: Int) -> String? {
        guard slot < zoneOfSlot.count else { return nil }
        let number = zoneOfSlot[slot]
        return number == Self.unknown ? nil : names[Int(number)]
    }

    /// The live slots of `store` whose zone was not found for their current revision.
    func slotsToFind(in store: PinStore) -> [Int32] {
        var slots: [Int32] = []
        for slot in 0..<store.slotCount where store.isLive(slot) {
            if slot >= foundFor.count || foundFor[slot] != store.revision(at: slot) { slots.append(Int32(slot)) }
        }
        return slots
    }

    /// Keeps `zones[i]` as the zone of `slots[i]` of `store`.
    mutating func record(_ zones: [PlaceTimeZone], at slots: [Int32], of store: PinStore) {
        if zoneOfSlot.count < store.slotCount {
            zoneOfSlot += [UInt16](repeating: Self.unknown, count: store.slotCount - zoneOfSlot.count)
            foundFor += [Int64](repeating: 0, count: store.slotCount - foundFor.count)
        }
        for (slot, zone) in zip(slots, zones) {
            zoneOfSlot[Int(slot)] = number(of: zone)
            foundFor[Int(slot)] = store.revision(at: Int(slot))
        }
    }

    /// The text the page gets for `zone` (see ``text(of:)``).
    static func text(of zone: PlaceTimeZone) -> String? {
        switch zone {
        case .zone(let name): name
        case .several: "several"
        case .unknown: nil
        }
    }

    private mutating func number(of zone: PlaceTimeZone) -> UInt16 {
        switch zone {
        case .unknown: return Self.unknown
        case .several: return Self.several
        case .zone(let name):
            if let number = numberOfName[name] { return number }
            // A gazetteer names a few hundred zones; past the table's room a zone is not shown.
            guard names.count < Int(UInt16.max) else { return Self.unknown }
            let number = UInt16(names.count)
            names.append(name)
            numberOfName[name] = number
            return number
        }
    }
}
