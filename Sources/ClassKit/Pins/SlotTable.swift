/// A hash table from one text field of a ``PinStore``'s records (an objectId, an account key) to
/// the slot holding it: open addressing with linear probing over 32-bit slots, the keys themselves
/// read from the store's arena, so the table is 4 bytes a bucket and keeps no strings.
///
/// Hashes are `Hasher`'s, seeded per process: keys chosen to collide cannot be prepared in advance.
struct SlotTable: Sendable {
    private static let empty: Int32 = -1
    /// A bucket whose slot was removed: probes go on past it.
    private static let removed: Int32 = -2

    private var buckets: [Int32] = []
    private var used = 0
    private(set) var count = 0

    /// The slot whose `field` is `key`.
    func find(_ key: UnsafeBufferPointer<UInt8>, field: PinStore.Field, in store: PinStore) -> Int? {
        guard !buckets.isEmpty else { return nil }
        let mask = buckets.count - 1
        var index = Self.hash(key) & mask
        while true {
            let slot = buckets[index]
            if slot == Self.empty { return nil }
            if slot >= 0, store.withUTF8(field, at: Int(slot), { NameMatcher.equal($0, key) }) { return Int(slot) }
            index = (index + 1) & mask
        }
    }

    /// Adds `slot` under its own `field` (the caller knows the key is not in the table yet).
    mutating func insert(_ slot: Int, field: PinStore.Field, in store: PinStore) {
        if (used + 1) * 4 > buckets.count * 3 { rehash(for: count + 1, field: field, in: store) }
        let hash = store.withUTF8(field, at: slot) { Self.hash($0) }
        place(Int32(slot), hash: hash)
        count += 1
    }

    /// Takes `slot` out (its record must still be readable: its key finds the bucket).
    mutating func remove(_ slot: Int, field: PinStore.Field, in store: PinStore) {
        guard !buckets.isEmpty else { return }
        let mask = buckets.count - 1
        var index = store.withUTF8(field, at: slot) { Self.hash($0) } & mask
        while buckets[index] != Self.empty {
            if buckets[index] == Int32(slot) {
                buckets[index] = Self.removed
                count -= 1
                return
            }
            index = (index + 1) & mask
        }
    }

    private mutating func place(_ slot: Int32, hash: Int) {
        let mask = buckets.count - 1
        var index = hash & mask
        while buckets[index] >= 0 { index = (index + 1) & mask }
        if buckets[index] == Self.empty { used += 1 }
        buckets[index] = slot
    }

    /// Rebuilds the table for `entries` keys at most half full, dropping removed buckets.
    private mutating func rehash(for entries: Int, field: PinStore.Field, in store: PinStore) {
        var size = 16
        while size < entries * 2 { size *= 2 }
        let old = buckets
        buckets = Array(repeating: Self.empty, count: size)
        used = 0
        for slot in old where slot >= 0 {
            place(slot, hash: store.withUTF8(field, at: Int(slot)) { Self.hash($0) })
        }
    }

    static func hash(_ key: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(key))
        return hasher.finalize()
    }
}

/// The owners of the pins a nearest-neighbour index was built over: each account key is numbered
/// by the first slot that holds it, so that `!near` can leave out the asker's pins by number.
struct AccountTable: Sendable {
    private var table = SlotTable()

    /// The number of `slot`'s owner, numbering it now if it is new.
    mutating func owner(of slot: Int, in store: PinStore) -> Int32 {
        if let first = store.withUTF8(.uniqueKey, at: slot, { table.find($0, field: .uniqueKey, in: store) }) {
            return Int32(first)
        }
        table.insert(slot, field: .uniqueKey, in: store)
        return Int32(slot)
    }

    /// The number of account `key`, if it owns a pin of the index.
    func owner(ofKey key: String, in store: PinStore) -> Int32? {
        var key = key
        return key.withUTF8 { table.find($0, field: .uniqueKey, in: store) }.map { Int32($0) }
    }
}
