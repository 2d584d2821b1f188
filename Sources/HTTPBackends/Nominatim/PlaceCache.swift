import OnTheMapService

/// A bounded least-recently-used cache of geocoder answers with a time to live.
/// Keys are normalized queries (case and whitespace folded).
actor PlaceCache {
    private struct Entry {
        var candidates: [PlaceCandidate]
        /// The `limit` the answer was fetched with.
        var limit: Int
        var storedAt: ContinuousClock.Instant
        var lastUse: UInt64
    }

    let capacity: Int
    let timeToLive: Duration
    /// The clock entries age by.
    private let now: @Sendable () -> ContinuousClock.Instant
    private var entries: [String: Entry] = [:]
    private var useCounter: UInt64 = 0

    init(
        capacity: Int, timeToLive: Duration,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.capacity = max(0, capacity)
        self.timeToLive = timeToLive
        self.now = now
    }

    /// "  Seattle,   WA " → "seattle, wa".
    static func normalize(_ query: String) -> String {
        query.lowercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// The cached answer for `key` when it is fresh and holds enough candidates for `limit`.
    func candidates(for key: String, limit: Int) -> [PlaceCandidate]? {
        guard var entry = entries[key] else { return nil }
        guard now() - entry.storedAt < timeToLive else {
            entries[key] = nil
            return nil
        }
        // A shorter answer than its limit is complete; otherwise it must cover this limit.
        guard entry.limit >= limit || entry.candidates.count < entry.limit else { return nil }
        useCounter += 1
        entry.lastUse = useCounter
        entries[key] = entry
        return Array(entry.candidates.prefix(limit))
    }

    func store(_ candidates: [PlaceCandidate], for key: String, limit: Int) {
        guard capacity > 0 else { return }
        useCounter += 1
        entries[key] = Entry(
            candidates: candidates, limit: limit, storedAt: now(), lastUse: useCounter)
        if entries.count > capacity {
            let now = now()
            entries = entries.filter { now - $0.value.storedAt < timeToLive }
            while entries.count > capacity,
                let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                entries[oldest] = nil
            }
        }
    }

    var count: Int { entries.count }
}
