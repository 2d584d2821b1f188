import BotKit
import ClassKit
import Foundation
import IRCProtocol
import Localization
import Logging
import OnTheMapService

/// Each student's choice of kilometres or miles (`!units`). Keyed by services account when there is
/// one, otherwise by nick (see ``UserIdentity/key(by:caseMapping:)``). With a state store the
/// choices are kept across restarts (the `capacity` most recent).
public actor UnitPreferences {
    /// The most choices kept (the least recent is dropped first).
    static let capacity = 10_000

    /// One kept choice.
    struct Kept: Codable, Sendable, Equatable {
        var key: String
        var unit: UnitSystem
        /// When it was chosen (seconds since 1970; absent in choices kept by earlier versions).
        var at: Double?
    }

    /// The state-store key of `instance`'s choices.
    static func stateKey(instance: String?) -> String {
        StateKey.of("units", instance: instance)
    }

    private let defaultUnit: UnitSystem
    private var chosen: [String: UnitSystem] = [:]
    private var chosenAt: [String: Date] = [:]
    /// The keys of `chosen`, least recently set first.
    private var order: [String] = []
    private let kept: KeptState<[Kept]>
    private let now: @Sendable () -> Date
    private var restored = false

    public init(
        defaultUnit: UnitSystem, store: (any BotStateStore)? = nil, instance: String? = nil,
        now: @escaping @Sendable () -> Date = { Date() }, beforeWrite: (@Sendable () async -> Void)? = nil
    ) {
        self.defaultUnit = defaultUnit
        self.kept = KeptState(key: Self.stateKey(instance: instance), store: store, beforeWrite: beforeWrite)
        self.now = now
    }

    /// Reads back the choices kept before a restart (once); choices made meanwhile win.
    public func restore(logger: Logger) async {
        guard !restored else { return }
        restored = true
        do {
            guard case .value(let list) = try await kept.load() else { return }
            for entry in list.reversed() where chosen[entry.key] == nil {
                chosen[entry.key] = entry.unit
                chosenAt[entry.key] = entry.at.map(Date.init(timeIntervalSince1970:))
                order.insert(entry.key, at: 0)
            }
            trim()
        } catch {
            logger.warning("kept unit choices could not be read", metadata: ["error": "\(error)"])
        }
    }

    /// The unit `sender` sees (nicks compared under `caseMapping`): their choice, else the one
    /// the readers of `language` use (kilometres for all but English, which is read on both
    /// sides), else the operator's default.
    public func unit(for sender: UserIdentity, caseMapping: CaseMapping, language: Language) -> UnitSystem {
        if let chosen = chosen[sender.key(by: .nick, caseMapping: caseMapping)] { return chosen }
        return language.usesKilometres.map { $0 ? .km : .mi } ?? defaultUnit
    }

    /// Remembers `unit` for `sender` (nicks compared under `caseMapping`), and keeps it.
    public func set(_ unit: UnitSystem, for sender: UserIdentity, caseMapping: CaseMapping) async {
        let key = sender.key(by: .nick, caseMapping: caseMapping)
        if chosen.updateValue(unit, forKey: key) != nil { order.removeAll { $0 == key } }
        chosenAt[key] = now()
        order.append(key)
        trim()
        await kept.save { await self.keptForm() }
    }

    /// What `sender` chose and when (nil: they never chose; they see the default).
    public func choice(of sender: UserIdentity, caseMapping: CaseMapping) -> (unit: UnitSystem, at: Date?)? {
        let key = sender.key(by: .nick, caseMapping: caseMapping)
        return chosen[key].map { ($0, chosenAt[key]) }
    }

    /// Forgets the choices made under `keys` (see ``keys(of:)``) and keeps the rest; returns how
    /// many were forgotten.
    @discardableResult
    public func forget(keys: Set<String>) async -> Int {
        let gone = order.filter { keys.contains($0) }
        guard !gone.isEmpty else { return 0 }
        for key in gone {
            chosen[key] = nil
            chosenAt[key] = nil
        }
        order.removeAll { keys.contains($0) }
        await kept.save { await self.keptForm() }
        return gone.count
    }

    /// The keys a choice of any of `identities` is kept under, whatever the network's case mapping.
    public static func keys(of identities: [UserIdentity]) -> Set<String> {
        Set(identities.flatMap { identity in CaseMapping.allCases.map { identity.key(by: .nick, caseMapping: $0) } })
    }

    /// The kept choices `text` holds without those under `keys`; nil when it holds none of them
    /// (or cannot be read).
    static func scrub(_ text: String, keys: Set<String>) -> String? {
        guard let list = try? JSONDecoder().decode([Kept].self, from: Data(text.utf8)),
            list.contains(where: { keys.contains($0.key) })
        else { return nil }
        return KeptJSON.encode(list.filter { !keys.contains($0.key) })
    }

    /// The kept choices `text` holds (none when it cannot be read).
    static func kept(in text: String) -> [Kept] {
        (try? JSONDecoder().decode([Kept].self, from: Data(text.utf8))) ?? []
    }

    private func keptForm() -> [Kept] {
        order.compactMap { key in
            chosen[key].map { Kept(key: key, unit: $0, at: chosenAt[key]?.timeIntervalSince1970) }
        }
    }

    private func trim() {
        guard order.count > Self.capacity else { return }
        for key in order.prefix(order.count - Self.capacity) {
            chosen[key] = nil
            chosenAt[key] = nil
        }
        order.removeFirst(order.count - Self.capacity)
    }
}

/// `!units km|mi`: the distance unit of `!near` for one student.
struct UnitsCommand {
    let units: UnitPreferences

    var command: Command {
        let units = self.units
        return Command(
            "units",
            examples: [
                CommandExample(
                    "!units mi", explained: "example.units.miles",
                    answer: "OK, I will show you distances in miles (mi)."),
                CommandExample(
                    "!units", explained: "example.units.current",
                    answer: "Your distances are in km. Change with !units km or !units mi."),
            ]
        ) { call in
            guard let word = call.words.first?.lowercased() else {
                let unit = await units.unit(for: call.sender, caseMapping: call.caseMapping, language: call.language)
                await call.reply(
                    call.phrases("units.current", ["unit": unit.rawValue, "command": call.prefix + "units"]))
                return
            }
            let aliases: [String: UnitSystem] = [
                "km": .km, "kilometre": .km, "kilometres": .km, "kilometer": .km, "kilometers": .km,
                "mi": .mi, "mile": .mi, "miles": .mi,
            ]
            guard let unit = aliases[word], call.words.count == 1 else {
                throw UserFacingError(call.phrases("units.unknown", ["command": call.prefix + "units"]))
            }
            await units.set(unit, for: call.sender, caseMapping: call.caseMapping)
            await call.reply(call.phrases(unit == .km ? "units.setKm" : "units.setMi"))
        }
    }
}
