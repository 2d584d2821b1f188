import Foundation
import OnTheMapService

/// Each student's choice of pin precision (`!privacy`), by account key. With a state store each
/// choice is one key, `precision/<accountKey>`, shared by every bot instance on the directory and
/// erased with the student's data; it is read from the store each time a pin is made, so a choice
/// made through another instance holds at once. Without a store (the Udacity backend) choices last
/// until a restart.
public actor PrecisionChoices {
    /// The state-store key of one account's choice.
    public static func stateKey(accountKey: String) -> String { "precision/\(accountKey)" }

    private let store: (any BotStateStore)?
    /// The choices, when there is no store to keep them.
    private var inMemory: [String: PinPrecision] = [:]

    public init(store: (any BotStateStore)?) {
        self.store = store
    }

    /// What the student chose, or nil when they never chose (the operator's default applies).
    /// Throws when the store cannot be read.
    public func chosen(by accountKey: String) async throws -> PinPrecision? {
        guard let store else { return inMemory[accountKey] }
        return try await store.state(Self.stateKey(accountKey: accountKey)).flatMap(PinPrecision.init(word:))
    }

    /// Keeps `level` as the student's choice.
    public func set(_ level: PinPrecision, for accountKey: String) async throws {
        guard let store else {
            inMemory[accountKey] = level
            return
        }
        try await store.setState(Self.stateKey(accountKey: accountKey), level.rawValue)
    }

    /// Forgets the student's choice (their data is being erased).
    public func forget(_ accountKey: String) async throws {
        guard let store else {
            inMemory[accountKey] = nil
            return
        }
        try await store.setState(Self.stateKey(accountKey: accountKey), nil)
    }
}

extension PrecisionChoices {
    /// Every choice kept in the store, by account key: the few students who chose (read in one
    /// listing of keys, then one read each); the in-memory ones without a store.
    public func all() async throws -> [String: PinPrecision] {
        guard let store else { return inMemory }
        let prefix = Self.stateKey(accountKey: "")
        var choices: [String: PinPrecision] = [:]
        for key in try await store.stateKeys(prefix: prefix) {
            if let level = try await store.state(key).flatMap(PinPrecision.init(word:)) {
                choices[String(key.dropFirst(prefix.count))] = level
            }
        }
        return choices
    }
}
