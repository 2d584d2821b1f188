import Foundation
import OnTheMapService

/// What has been announced: the versions (objectId and update time) of the pins already known,
/// kept in the bot's state store so that a restart announces nothing old. Shared by the
/// announcer and `!post` (which announces its own saves at once).
///
/// Each bot instance keeps its own ledger (its own state-store key, named after the instance):
/// several instances on one PostgreSQL directory each announce every pin in their own channels.
///
/// A version goes through three steps: *claimed* (this process will announce it, so nobody
/// else here does), *handed over* (its lines are in the transport's send queue) and *confirmed*
/// (its lines have left for the network). Only confirmed versions are saved, so after a crash a
/// pin whose announcement was still queued is announced again by the next start, while one that
/// went out is not — except when the crash falls in the instant between the line leaving and the
/// save (see ``AnnouncePlugin`` for the guarantee).
public actor AnnouncementLedger {
    /// The state-store key of a ledger whose instance has no name.
    public static let stateKey = "announce.seen"

    /// The state-store key of `instance`'s ledger.
    public static func stateKey(instance: String?) -> String {
        StateKey.of(stateKey, instance: instance)
    }

    /// This ledger's state-store key.
    public let key: String
    /// How many versions are remembered (a little more than the class map holds).
    static let capacity = 500

    private let store: (any BotStateStore)?
    /// Claimed, handed over or confirmed in this process (or confirmed before it started).
    private var seen: [String] = []
    private var seenSet: Set<String> = []
    /// What the state store holds: versions whose announcement is known to have gone out.
    private var confirmed: [String] = []
    private var confirmedSet: Set<String> = []
    /// Handed over to the transport, not confirmed yet.
    private var awaitingDelivery: [String] = []
    private var started = false
    private var handOverWaiters: [CheckedContinuation<Void, Never>] = []

    /// `instance` names the bot instance whose ledger this is (see ``stateKey(instance:)``).
    public init(store: (any BotStateStore)?, instance: String? = nil) {
        self.store = store
        self.key = Self.stateKey(instance: instance)
    }

    /// Loads what was announced before; returns false on a first start (nothing stored yet).
    public func start() async throws -> Bool {
        guard !started else { return true }
        guard let store, let text = try await store.state(key) else {
            started = true
            return false
        }
        started = true
        let stored = (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
        for version in stored where confirmedSet.insert(version).inserted {
            confirmed.append(version)
            if seenSet.insert(version).inserted { seen.append(version) }
        }
        return true
    }

    /// The pins among `pins` not announced yet (nor being announced), oldest first.
    public func unannounced(_ pins: [StudentLocation]) -> [StudentLocation] {
        // The input is newest first; reversed and stably sorted, equal times keep their order.
        pins.reversed().filter { !seenSet.contains(ClassMap.version($0)) }.sorted {
            $0.updatedAt < $1.updatedAt
        }
    }

    /// Claims `pins` for announcement by the caller; returns those nobody claimed before (the
    /// caller announces exactly these, then calls ``handedOver(_:)``).
    public func claim(_ pins: [StudentLocation]) -> [StudentLocation] {
        var claimed: [StudentLocation] = []
        for pin in pins where seenSet.insert(ClassMap.version(pin)).inserted {
            seen.append(ClassMap.version(pin))
            claimed.append(pin)
        }
        trim()
        return claimed
    }

    /// The announcement of `pins` (claimed before) is in the send queue; the announcer saves
    /// them once it has left.
    public func handedOver(_ pins: [StudentLocation]) {
        guard !pins.isEmpty else { return }
        awaitingDelivery += pins.map(ClassMap.version)
        wakeHandOverWaiters()
    }

    /// Returns once something was handed over and awaits delivery (at once if something does),
    /// or when the calling task is cancelled.
    public func waitForHandOver() async {
        guard awaitingDelivery.isEmpty else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Something may have been handed over, or the task cancelled, before this runs.
                if awaitingDelivery.isEmpty, !Task.isCancelled {
                    handOverWaiters.append(continuation)
                } else {
                    continuation.resume()
                }
            }
        } onCancel: {
            Task { await self.wakeHandOverWaiters() }
        }
    }

    private func wakeHandOverWaiters() {
        let waiters = handOverWaiters
        handOverWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// Takes the versions handed over so far (to confirm once their lines have left).
    public func takeAwaitingDelivery() -> [String] {
        defer { awaitingDelivery = [] }
        return awaitingDelivery
    }

    /// Puts back versions that could not be confirmed (to try again).
    public func putBack(_ versions: [String]) {
        awaitingDelivery = versions + awaitingDelivery
    }

    /// Saves `versions` as announced (their lines have left).
    public func confirm(_ versions: [String]) async throws {
        var changed = false
        for version in versions where confirmedSet.insert(version).inserted {
            confirmed.append(version)
            changed = true
        }
        trim()
        if changed { try await save() }
    }

    /// Remembers `pins` as known without announcing them (the very first start: old news) and
    /// saves at once, even when there are none.
    public func markKnown(_ pins: [StudentLocation]) async throws {
        for pin in pins {
            let version = ClassMap.version(pin)
            if seenSet.insert(version).inserted { seen.append(version) }
            if confirmedSet.insert(version).inserted { confirmed.append(version) }
        }
        trim()
        try await save()
    }

    private func save() async throws {
        guard let store else { return }
        let data = try JSONEncoder().encode(confirmed)
        try await store.setState(key, String(decoding: data, as: UTF8.self))
    }

    private func trim() {
        if seen.count > Self.capacity {
            let dropped = seen.prefix(seen.count - Self.capacity)
            for version in dropped { seenSet.remove(version) }
            seen.removeFirst(dropped.count)
        }
        if confirmed.count > Self.capacity {
            let dropped = confirmed.prefix(confirmed.count - Self.capacity)
            for version in dropped { confirmedSet.remove(version) }
            confirmed.removeFirst(dropped.count)
        }
    }
}
