import Foundation
import OnTheMapService

/// The state-store keys of the parts of the bot's state.
public enum StateKey {
    /// `base` for a bot instance without a name, `base@instance` otherwise: each instance on a shared
    /// directory keeps its own.
    public static func of(_ base: String, instance: String?) -> String {
        guard let instance, !instance.isEmpty else { return base }
        return base + "@" + instance
    }
}

/// The JSON text of a kept value (what ``KeptState`` writes).
public enum KeptJSON {
    public static func encode<Value: Encodable>(_ value: Value) -> String? {
        (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// One part of the bot's state kept across restarts: a JSON value under one key of the state store
/// (SQLite or PostgreSQL; with no store, nothing is kept). Writes go one at a time and each writes
/// the state as it is when it starts, so the last state always wins; a write asked for while one
/// waits to start joins it.
///
/// Nothing is written before what is stored was read: a store that could not be read at start is
/// never overwritten with less than it holds.
public actor KeptState<Value: Codable & Sendable> {
    /// What ``load()`` found.
    public enum Loaded: Sendable {
        /// The value stored.
        case value(Value)
        /// Nothing is stored (or there is no store).
        case nothing
        /// Something is stored that this version cannot read; it will be replaced.
        case unreadable
    }

    public let key: String
    private let store: (any BotStateStore)?
    private var loaded = false
    private var tail: Task<Bool, Never>?
    private var waiting: Task<Bool, Never>?

    /// Run before each write is queued: brings the memory the value is made from up to date with
    /// what changed elsewhere (a student erased by another process), so it is not written back.
    private let beforeWrite: (@Sendable () async -> Void)?

    public init(key: String, store: (any BotStateStore)?, beforeWrite: (@Sendable () async -> Void)? = nil) {
        self.key = key
        self.store = store
        self.beforeWrite = beforeWrite
    }

    /// Reads what is stored; throws when the store cannot be read (then nothing is written).
    public func load() async throws -> Loaded {
        guard let store else {
            loaded = true
            return .nothing
        }
        let text = try await store.state(key)
        loaded = true
        guard let text else { return .nothing }
        guard let value = try? JSONDecoder().decode(Value.self, from: Data(text.utf8)) else { return .unreadable }
        return .value(value)
    }

    /// Writes the value `current` gives when the write starts; returns whether it was written
    /// (false with no store, before a successful ``load()``, or when the store failed: the next
    /// write writes the whole state again).
    @discardableResult
    public func save(_ current: @escaping @Sendable () async -> Value) async -> Bool {
        guard let store, loaded else { return false }
        if let beforeWrite { await beforeWrite() }
        if let waiting { return await waiting.value }
        let previous = tail
        let key = self.key
        let task = Task<Bool, Never> {
            _ = await previous?.value
            self.started()
            let value = await current()
            guard let data = try? JSONEncoder().encode(value) else { return false }
            do {
                try await store.setState(key, String(decoding: data, as: UTF8.self))
                return true
            } catch {
                return false
            }
        }
        waiting = task
        tail = task
        return await task.value
    }

    private func started() { waiting = nil }
}
