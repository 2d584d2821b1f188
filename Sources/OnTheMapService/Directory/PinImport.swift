import Foundation

/// One pin of an operator's import (`onthemap-bot pins import`): what to save for its account,
/// and the times the file gives it (now when it gives none).
public struct PinImportRecord: Sendable, Hashable {
    /// The pin, kept at its student's level.
    public var pin: KeptPin
    public var createdAt: Date?
    public var updatedAt: Date?

    public init(pin: KeptPin, createdAt: Date? = nil, updatedAt: Date? = nil) {
        self.pin = pin
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The times to store at `now`: the file's, never in the future, the update never before
    /// the creation.
    public func times(now: Date) -> (created: Date, updated: Date) {
        let created = min(createdAt ?? updatedAt ?? now, now)
        let updated = max(min(updatedAt ?? now, now), created)
        return (created, updated)
    }
}

/// What an import did.
public struct PinImportOutcome: Sendable, Hashable {
    /// Pins of accounts that had none.
    public var created: Int
    /// Pins of accounts that had one (it keeps its objectId).
    public var updated: Int

    public init(created: Int, updated: Int) {
        self.created = created
        self.updated = updated
    }
}
