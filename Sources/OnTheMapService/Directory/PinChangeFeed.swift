/// One page of a directory's change feed: the pins saved and removed after a revision, in the
/// order they happened. The local and PostgreSQL directories number every save and removal of a
/// pin with a revision that only grows, and keep a tombstone for each removed pin, so a reader
/// that remembers the last revision it saw asks only for what changed since.
public struct PinChangePage: Sendable {
    /// One change: a pin saved (created, moved, renamed) or removed.
    public enum Change: Sendable {
        case saved(StudentLocation)
        /// The objectId of a removed pin.
        case removed(String)
    }

    /// The changes, oldest first.
    public var changes: [Change]
    /// The revision of the last change in this page (the cursor to ask from next); the cursor asked
    /// from when the page is empty.
    public var lastRevision: Int64
    /// True when nothing changed after ``lastRevision`` when the page was read.
    public var isComplete: Bool

    public init(changes: [Change], lastRevision: Int64, isComplete: Bool) {
        self.changes = changes
        self.lastRevision = lastRevision
        self.isComplete = isComplete
    }
}

extension PinChangePage {
    /// Merges what a directory read in one snapshot: up to `limit` saved pins and up to `limit`
    /// removals after `revision`, each list in revision order. A list that came back full may
    /// have more beyond its last revision, so nothing after that revision is kept from the other.
    public static func merging(
        saved: [(revision: Int64, pin: StudentLocation)], removed: [(revision: Int64, objectId: String)],
        after revision: Int64, limit: Int
    ) -> PinChangePage {
        var bound = Int64.max
        if saved.count >= limit, let last = saved.last { bound = min(bound, last.revision) }
        if removed.count >= limit, let last = removed.last { bound = min(bound, last.revision) }
        var merged: [(revision: Int64, change: Change)] = []
        merged.reserveCapacity(saved.count + removed.count)
        var savedPosition = 0
        var removedPosition = 0
        while savedPosition < saved.count || removedPosition < removed.count {
            let takeSaved =
                removedPosition == removed.count
                || (savedPosition < saved.count && saved[savedPosition].revision < removed[removedPosition].revision)
            if takeSaved {
                merged.append((saved[savedPosition].revision, .saved(saved[savedPosition].pin)))
                savedPosition += 1
            } else {
                merged.append((removed[removedPosition].revision, .removed(removed[removedPosition].objectId)))
                removedPosition += 1
            }
        }
        let kept = merged.prefix { $0.revision <= bound }.prefix(max(1, limit))
        return PinChangePage(
            changes: kept.map(\.change), lastRevision: kept.last?.revision ?? revision,
            isComplete: bound == .max && kept.count == merged.count)
    }
}
