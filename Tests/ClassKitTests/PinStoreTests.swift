@testable import ClassKit
import Foundation
import Testing

@testable import OnTheMapService

/// The compact store of every pin: each field reads back exactly as it was given, updates and
/// removals leave the right pin findable by its objectId, compaction moves pins without losing
/// one, and the revisions say what changed after a given point.
@Suite struct PinStoreTests {
    static func pin(
        _ id: String, key: String? = nil, first: String = "Ada", last: String = "Lovelace", place: String = "London",
        link: String = "https://example.org", latitude: Double = 51.5, longitude: Double = -0.12, seconds: Double = 0
    ) -> StudentLocation {
        StudentLocation(
            objectId: id, uniqueKey: key ?? "key-\(id)", firstName: first, lastName: last, mapString: place,
            mediaURL: link, coordinate: Coordinate(latitude: latitude, longitude: longitude),
            createdAt: Date(timeIntervalSinceReferenceDate: 700_000_000.123 + seconds),
            updatedAt: Date(timeIntervalSinceReferenceDate: 700_000_100.456 + seconds))
    }

    /// Every live pin of `store` by objectId, each made whole.
    static func contents(_ store: PinStore) -> [String: StudentLocation] {
        Dictionary(uniqueKeysWithValues: store.liveSlots.map { store.pin(at: Int($0)) }.map { ($0.objectId, $0) })
    }

    @Test func anEmptyStoreHoldsNothing() {
        var store = PinStore()
        #expect(store.count == 0 && store.slotCount == 0 && store.liveSlots.isEmpty)
        #expect(store.slot(of: "anything") == nil)
        #expect(store.slot(of: "") == nil)
        #expect(store.slots(changedAfter: 0).isEmpty && store.removedObjectIds(after: 0).isEmpty)
        let compacted = store.compactIfWorthIt()
        #expect(!compacted)
        store.compact()
        #expect(store.count == 0 && store.revision == 0)
    }

    @Test func everyFieldReadsBackExactlyNonASCIIAndLongTextIncluded() {
        let long = String(repeating: "ß→", count: 300)  // a length that takes two bytes to write
        let pins = [
            Self.pin("o1", first: "Zoë", last: "Ōtsuka-Ñúñez", place: "Ålesund / Норвегия 🇳🇴"),
            Self.pin("o2", key: "", first: "", last: "", place: "", link: "", latitude: -90, longitude: 180),
            Self.pin("o3", first: "e\u{301}mile", last: long, link: "https://x.example/\(long)", seconds: -1e9),
            Self.pin("o4", first: "\t\"<b>&\u{01}\n", latitude: .nan, longitude: .infinity),
        ]
        let store = PinStore(pins)
        #expect(store.count == 4)
        for pin in pins {
            let slot = store.slot(of: pin.objectId)!
            let back = store.pin(at: slot)
            #expect(back.objectId == pin.objectId && back.uniqueKey == pin.uniqueKey)
            #expect(back.firstName == pin.firstName && back.lastName == pin.lastName)
            #expect(back.mapString == pin.mapString && back.mediaURL == pin.mediaURL)
            #expect(back.createdAt == pin.createdAt && back.updatedAt == pin.updatedAt)
            #expect(back.coordinate.latitude.bitPattern == pin.coordinate.latitude.bitPattern)
            #expect(back.coordinate.longitude.bitPattern == pin.coordinate.longitude.bitPattern)
            #expect(store.string(.firstName, at: slot).utf8.elementsEqual(pin.firstName.utf8))
        }
        let slot = store.slot(of: "o1")!
        #expect(store.string(.foldedFirst, at: slot) == "zoe")
        #expect(store.string(.foldedFull, at: slot) == "zoe otsuka-nunez")
    }

    @Test func anUpdateInPlaceWithLongerAndShorterTextKeepsTheSlotAndTheOthers() {
        var store = PinStore([Self.pin("a"), Self.pin("b", first: "Grace"), Self.pin("c", first: "Linus")])
        let slot = store.slot(of: "b")!
        let longer = Self.pin("b", first: "Grace Brewster Murray", place: "Arlington, Virginia, United States")
        let longerSlot = store.upsert(longer)
        #expect(longerSlot == slot)
        #expect(store.pin(at: slot) == longer)
        #expect(store.deadBytes > 0, "the longer record moved to the end")
        let shorter = Self.pin("b", first: "G", place: "VA", link: "")
        let shorterSlot = store.upsert(shorter)
        #expect(shorterSlot == slot)
        #expect(store.pin(at: slot) == shorter)
        #expect(store.count == 3)
        #expect(store.pin(at: store.slot(of: "a")!) == Self.pin("a"))
        #expect(store.pin(at: store.slot(of: "c")!) == Self.pin("c", first: "Linus"))
    }

    @Test func aRemovalLeavesATombstoneAndCompactionMovesThePinsTogether() {
        var store = PinStore((0..<200).map { Self.pin("o\($0)", first: "N\($0)", seconds: Double($0)) })
        for number in stride(from: 0, to: 200, by: 2) { store.remove(at: store.slot(of: "o\(number)")!) }
        #expect(store.count == 100 && store.slotCount == 200)
        #expect(store.slot(of: "o0") == nil && store.slot(of: "o1") != nil)
        #expect(!store.isLive(0))
        let before = Self.contents(store)
        let compacted = store.compactIfWorthIt()
        #expect(compacted, "half the slots are dead")
        #expect(store.slotCount == 100 && store.count == 100 && store.deadBytes == 0)
        #expect(Self.contents(store) == before)
        for number in stride(from: 1, to: 200, by: 2) {
            #expect(store.pin(at: store.slot(of: "o\(number)")!).firstName == "N\(number)")
        }
        let again = store.compactIfWorthIt()
        #expect(!again, "nothing left to reclaim")
        // Slots keep their order through compaction.
        #expect(
            store.liveSlots.map { store.string(.objectId, at: Int($0)) }
                == before.keys.sorted { a, b in
                    Int(a.dropFirst())! < Int(b.dropFirst())!
                })
    }

    @Test func revisionsSayWhatChangedAndWhatWasRemoved() {
        var store = PinStore([Self.pin("a"), Self.pin("b"), Self.pin("c")])
        let seen = store.revision
        #expect(seen == 3)
        store.upsert(Self.pin("b", place: "Paris", seconds: 10))
        store.remove(at: store.slot(of: "c")!)
        store.upsert(Self.pin("d", seconds: 5))
        #expect(store.slots(changedAfter: seen).map { store.string(.objectId, at: Int($0)) } == ["b", "d"])
        #expect(store.removedObjectIds(after: seen) == ["c"])
        store.upsert(Self.pin("c"))
        #expect(store.removedObjectIds(after: seen).isEmpty, "c is back")
        #expect(store.slots(changedAfter: store.revision).isEmpty)
        _ = store.compactIfWorthIt()
        store.compact()
        #expect(store.revision == 7 && store.slots(changedAfter: seen).count == 3)
    }

    @Test func removalsPastTheMemoryMakeOlderRevisionsForgotten() {
        var store = PinStore((0..<(PinStore.removalMemory + 5)).map { Self.pin("o\($0)") })
        let before = store.revision
        for number in 0..<(PinStore.removalMemory + 5) { store.remove(at: store.slot(of: "o\(number)")!) }
        #expect(store.forgottenUpTo > before)
        #expect(store.removedObjectIds(after: store.forgottenUpTo).count == PinStore.removalMemory)
        #expect(store.count == 0)
    }

    /// Thousands of random adds, updates of every length and removals, checked after each step
    /// against a dictionary, with compaction whenever the store finds it worth it.
    @Test func manyRandomChangesAgreeWithADictionary() {
        var store = PinStore()
        var reference: [String: StudentLocation] = [:]
        var state: UInt64 = 7
        func random(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var compactions = 0
        for step in 0..<20_000 {
            let id = "object-\(random(3_000))"
            if random(4) == 0 {
                if let slot = store.slot(of: id) { store.remove(at: slot) }
                reference[id] = nil
            } else {
                let pin = Self.pin(
                    id, first: String(repeating: "é", count: random(40)), place: "P\(step)",
                    link: String(repeating: "x", count: random(300)), seconds: Double(step))
                store.upsert(pin)
                reference[id] = pin
            }
            if store.compactIfWorthIt() { compactions += 1 }
            #expect(store.count == reference.count)
            if step % 1_000 == 0 { #expect(Self.contents(store) == reference, "step \(step)") }
        }
        #expect(Self.contents(store) == reference)
        for id in reference.keys { #expect(store.pin(at: store.slot(of: id)!) == reference[id]) }
        #expect(store.slot(of: "object-3000") == nil)
        #expect(compactions > 0)
    }

    /// `!where` over the store finds what plain string comparison of the folded names finds, for
    /// exact names, prefixes, accents, other scripts and decomposed characters.
    @Test func nameMatchingOverTheStoreAgreesWithFoldedNames() {
        let names: [(String, String)] = [
            ("Ada", "Lovelace"), ("José", "Álvarez"), ("Jose", "Alvarez-Smith"), ("e\u{301}lise", "Dupont"),
            ("Élise", "Dupond"), ("Zoë", ""), ("", "Ng"), ("ＺＯＥ", "Wide"), ("李", "小龙"), ("J.R.R.", "Tolkien"),
            ("Ada", "Byron King"),
        ]
        let pins = names.enumerated().map { Self.pin("o\($0.offset)", first: $0.element.0, last: $0.element.1) }
        let store = PinStore(pins)
        for query in [
            "ada", "ADA LOVELACE", "jose", "José Álvarez", "alv", "élise", "e\u{301}lise", "elis", "zoe", "ng",
            "李 小龙", "小龙", "j r r tolkien", "tol", "by", "byr", "ada byron", "nobody", "", "  ",
        ] {
            let matcher = NameMatcher(query: query)
            let viaStore = matcher.matchingSlots(in: store).map { store.string(.objectId, at: $0) }
            let reference = FoldedNameReference.matches(query, in: pins).map(\.objectId)
            #expect(viaStore.sorted() == reference.sorted(), "\(query)")
        }
    }

    /// `!near` leaves out every pin of the asker's account (a shared backend may hold several) and
    /// nothing for an account with no pin, over a tree (above the brute-force size) and a scan.
    @Test(arguments: [50, 12_000]) func theNeighbourhoodLeavesOutEveryPinOfOneAccount(size: Int) {
        var catalog = PinCatalog(recentLimit: 10)
        for number in 0..<size {
            catalog.upsert(
                Self.pin(
                    "o\(number)", key: "k\(number % (size / 2))", latitude: Double(number % 170) - 85,
                    longitude: Double(number % 350) - 175))
        }
        let origin = Coordinate(latitude: 0, longitude: 0)
        let neighbourhood = catalog.neighbourhood()
        let everyone = neighbourhood.nearest(to: origin, k: size)
        #expect(everyone.count == size)
        let owner = everyone[0].payload.uniqueKey
        let without = neighbourhood.nearest(to: origin, k: size, excludingKey: owner)
        #expect(without.count == size - 2)
        #expect(!without.contains { $0.payload.uniqueKey == owner })
        #expect(
            without.map(\.payload.objectId) == everyone.filter { $0.payload.uniqueKey != owner }.map(\.payload.objectId)
        )
        #expect(
            neighbourhood.nearest(to: origin, k: 5, excludingKey: "nobody").map(\.payload.objectId)
                == everyone.prefix(5).map(\.payload.objectId))
    }

    /// A trip reads back with its pin, goes with an update that has none and with the pin's
    /// removal, and survives compaction.
    @Test func tripsAreKeptBesideTheirPins() {
        let lisbon = Trip(
            mapString: "Lisbon", coordinate: Coordinate(latitude: 38.72, longitude: -9.14),
            endsAt: Date(timeIntervalSinceReferenceDate: 800_000_000))
        var store = PinStore()
        var away = Self.pin("a")
        away.trip = lisbon
        store.upsert(away)
        for number in 0..<100 { store.upsert(Self.pin("p\(number)")) }
        #expect(store.pin(at: store.slot(of: "a")!).trip == lisbon)
        for number in 0..<80 { store.remove(at: store.slot(of: "p\(number)")!) }
        let compacted = store.compactIfWorthIt()
        #expect(compacted)
        #expect(store.pin(at: store.slot(of: "a")!) == away)
        store.upsert(Self.pin("a"))
        #expect(store.pin(at: store.slot(of: "a")!).trip == nil && store.trips.isEmpty)
        store.upsert(away)
        store.remove(at: store.slot(of: "a")!)
        #expect(store.trips.isEmpty)
    }

    /// `!near` at an instant counts a pin on a trip at the trip's place while it lasts, and at its
    /// home once it has ended; the asker's own trip is left out like their home pin.
    @Test func theNeighbourhoodPlacesTripsWhereTheyAreShown() {
        var catalog = PinCatalog(recentLimit: 10)
        // Ada lives far away (London) but is on a trip next to the origin until `ends`.
        let ends = Date(timeIntervalSinceReferenceDate: 800_000_000)
        var ada = Self.pin("ada", latitude: 51.5, longitude: -0.12)
        ada.trip = Trip(mapString: "Near", coordinate: Coordinate(latitude: 0.1, longitude: 0.1), endsAt: ends)
        catalog.upsert(ada)
        for number in 0..<30 {
            catalog.upsert(Self.pin("p\(number)", latitude: Double(number + 1), longitude: Double(number + 1)))
        }
        let origin = Coordinate(latitude: 0, longitude: 0)
        let neighbourhood = catalog.neighbourhood()
        let during = neighbourhood.nearest(to: origin, k: 3, at: ends.addingTimeInterval(-1))
        #expect(during.map(\.payload.objectId) == ["ada", "p0", "p1"])
        #expect(during[0].coordinate == Coordinate(latitude: 0.1, longitude: 0.1))
        let after = neighbourhood.nearest(to: origin, k: 3, at: ends)
        #expect(after.map(\.payload.objectId) == ["p0", "p1", "p2"])
        let withoutAda = neighbourhood.nearest(
            to: origin, k: 3, excludingKey: "key-ada", at: ends.addingTimeInterval(-1))
        #expect(withoutAda.map(\.payload.objectId) == ["p0", "p1", "p2"])
    }
}
