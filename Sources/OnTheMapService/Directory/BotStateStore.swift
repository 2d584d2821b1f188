/// A small persistent key–value memory for the bot (e.g. which posts were already announced).
/// The SQLite and PostgreSQL directories implement it with a `bot_state` table.
public protocol BotStateStore: Sendable {
    /// The value stored under `key`, or nil.
    func state(_ key: String) async throws -> String?
    /// Stores `value` under `key`; nil removes the key.
    func setState(_ key: String, _ value: String?) async throws
    /// Every key stored that starts with `prefix` (each instance's copy of one part of the state).
    func stateKeys(prefix: String) async throws -> [String]
    /// Every key stored that starts with `prefix`, with its value, in one read (the choices of a
    /// whole class at once, for an import).
    func states(prefix: String) async throws -> [String: String]
    /// Removes `key` and returns what it held, in one step: of two callers taking the same key at
    /// once, only one gets the value (single-use things, such as sign-in links).
    func takeState(_ key: String) async throws -> String?
}
