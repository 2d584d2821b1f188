import Foundation
import OnTheMapService

/// Each student's privacy choices (`!privacy`), by account key: the precision their pin is kept at
/// and the form their name shows in. With a state store each choice is one key
/// (`precision/<accountKey>`, `name/<accountKey>`), shared by every bot instance on the directory
/// and erased with the student's data; it is read from the store each time a pin is kept, so a
/// choice made through another instance holds at once. Without a store (the Udacity backend)
/// choices last until a restart.
public actor PrivacyChoices {
    /// The state-store key of one account's precision.
    public static func stateKey(accountKey: String) -> String { "precision/\(accountKey)" }
    /// The state-store key of one account's name form (kept only when it is not the full name).
    public static func nameKey(accountKey: String) -> String { "name/\(accountKey)" }

    private let store: (any BotStateStore)?
    /// The choices, when there is no store to keep them.
    private var inMemory: [String: PinPrecision] = [:]
    private var namesInMemory: [String: NameForm] = [:]

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

    /// How the student's name shows to others: their choice, or in full.
    public func nameForm(chosenBy accountKey: String) async throws -> NameForm {
        guard let store else { return namesInMemory[accountKey] ?? .full }
        return try await store.state(Self.nameKey(accountKey: accountKey)).flatMap(NameForm.init(word:)) ?? .full
    }

    /// Keeps `form` as the student's choice (the full name, the default, keeps nothing).
    public func set(_ form: NameForm, for accountKey: String) async throws {
        guard let store else {
            namesInMemory[accountKey] = form == .full ? nil : form
            return
        }
        try await store.setState(Self.nameKey(accountKey: accountKey), form == .full ? nil : form.rawValue)
    }

    /// Forgets the student's choices (their data is being erased).
    public func forget(_ accountKey: String) async throws {
        guard let store else {
            inMemory[accountKey] = nil
            namesInMemory[accountKey] = nil
            return
        }
        try await store.setState(Self.stateKey(accountKey: accountKey), nil)
        try await store.setState(Self.nameKey(accountKey: accountKey), nil)
    }
}

extension PrivacyChoices {
    /// Every precision kept in the store, by account key (the few students who chose, in one read);
    /// the in-memory ones without a store.
    public func all() async throws -> [String: PinPrecision] {
        guard let store else { return inMemory }
        return try await Self.byAccount(in: store, prefix: Self.stateKey(accountKey: ""), PinPrecision.init(word:))
    }

    /// Every name form kept in the store (those not in full), by account key, in one read.
    public func allNameForms() async throws -> [String: NameForm] {
        guard let store else { return namesInMemory }
        return try await Self.byAccount(in: store, prefix: Self.nameKey(accountKey: ""), NameForm.init(word:))
    }

    private static func byAccount<Choice>(
        in store: any BotStateStore, prefix: String, _ parse: (String) -> Choice?
    ) async throws -> [String: Choice] {
        var choices: [String: Choice] = [:]
        for (key, value) in try await store.states(prefix: prefix) {
            if let choice = parse(value) { choices[String(key.dropFirst(prefix.count))] = choice }
        }
        return choices
    }
}
