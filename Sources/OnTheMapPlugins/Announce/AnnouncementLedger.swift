import Foundation
import OnTheMapService

/// What has been announced: the versions (objectId and update time) of the pins already known,
/// kept in the bot's state store so that a restart announces nothing old. Shared by the
/// announcer and `!post` (which announces its own saves at once).
public actor AnnouncementLedger {
    /// The state-store key.
    public static let stateKey = "announce.seen"
    /// How many versions are remembered (a little more than the class map holds).
    static let capacity = 500

    private let store: (any BotStateStore)?
    private var seen: [String] = []
    private var seenSet: Set<String> = []
    private var started = false

    public init(store: (any BotStateStore)?) {
        self.store = store
    }

    /// Loads what was announced before; returns false on a first start (nothing stored yet).
    func start() async throws -> Bool {
        guard !started else { return true }
        started = true
        guard let store, let text = try await store.state(Self.stateKey) else { return false }
        let data = Data(text.utf8)
        let stored = (try? JSONDecoder().decode([String].self, from: data)) ?? []
        for version in stored where seenSet.insert(version).inserted { seen.append(version) }
        return true
    }

    /// The pins among `pins` not announced yet, oldest first.
    func unannounced(_ pins: [StudentLocation]) -> [StudentLocation] {
        // The input is newest first; reversed and stably sorted, equal times keep their order.
        pins.reversed().filter { !seenSet.contains(ClassMap.version($0)) }.sorted {
            $0.updatedAt < $1.updatedAt
        }
    }

    /// Whether this version of `pin` was announced.
    public func wasAnnounced(_ pin: StudentLocation) -> Bool {
        seenSet.contains(ClassMap.version(pin))
    }

    /// Remembers `pins` as announced and saves the list when it changed (always with `save`, so
    /// that even an empty first start is remembered).
    func markAnnounced(_ pins: [StudentLocation], save: Bool = false) async throws {
        var changed = save
        for pin in pins where seenSet.insert(ClassMap.version(pin)).inserted {
            seen.append(ClassMap.version(pin))
            changed = true
        }
        if seen.count > Self.capacity {
            let dropped = seen.prefix(seen.count - Self.capacity)
            for version in dropped { seenSet.remove(version) }
            seen.removeFirst(dropped.count)
        }
        guard changed, let store else { return }
        let data = try JSONEncoder().encode(seen)
        try await store.setState(Self.stateKey, String(decoding: data, as: UTF8.self))
    }
}
