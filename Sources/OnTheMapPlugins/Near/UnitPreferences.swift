import BotKit
import IRCProtocol
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
    }

    /// The state-store key of `instance`'s choices.
    static func stateKey(instance: String?) -> String {
        StateKey.of("units", instance: instance)
    }

    private let defaultUnit: UnitSystem
    private var chosen: [String: UnitSystem] = [:]
    /// The keys of `chosen`, least recently set first.
    private var order: [String] = []
    private let kept: KeptState<[Kept]>
    private var restored = false

    public init(defaultUnit: UnitSystem, store: (any BotStateStore)? = nil, instance: String? = nil) {
        self.defaultUnit = defaultUnit
        self.kept = KeptState(key: Self.stateKey(instance: instance), store: store)
    }

    /// Reads back the choices kept before a restart (once); choices made meanwhile win.
    public func restore(logger: Logger) async {
        guard !restored else { return }
        restored = true
        do {
            guard case .value(let list) = try await kept.load() else { return }
            for entry in list.reversed() where chosen[entry.key] == nil {
                chosen[entry.key] = entry.unit
                order.insert(entry.key, at: 0)
            }
            trim()
        } catch {
            logger.warning("kept unit choices could not be read", metadata: ["error": "\(error)"])
        }
    }

    /// The unit `sender` sees (nicks compared under `caseMapping`).
    public func unit(for sender: UserIdentity, caseMapping: CaseMapping) -> UnitSystem {
        chosen[sender.key(by: .nick, caseMapping: caseMapping)] ?? defaultUnit
    }

    /// Remembers `unit` for `sender` (nicks compared under `caseMapping`), and keeps it.
    public func set(_ unit: UnitSystem, for sender: UserIdentity, caseMapping: CaseMapping) async {
        let key = sender.key(by: .nick, caseMapping: caseMapping)
        if chosen.updateValue(unit, forKey: key) != nil { order.removeAll { $0 == key } }
        order.append(key)
        trim()
        await kept.save { await self.keptForm() }
    }

    private func keptForm() -> [Kept] {
        order.compactMap { key in chosen[key].map { Kept(key: key, unit: $0) } }
    }

    private func trim() {
        guard order.count > Self.capacity else { return }
        for key in order.prefix(order.count - Self.capacity) { chosen[key] = nil }
        order.removeFirst(order.count - Self.capacity)
    }
}

/// `!units km|mi`: the distance unit of `!near` for one student.
struct UnitsCommand {
    let units: UnitPreferences

    var command: Command {
        let units = self.units
        return Command(
            "units", usage: "!units [km | mi]",
            help: "Shows or sets the unit of distances for you (km or mi).",
            examples: [
                CommandExample("!units mi", answer: "OK, I will show you distances in miles (mi)."),
                CommandExample("!units", answer: "Your distances are in km. Change with !units km or !units mi."),
            ]
        ) { call in
            guard let word = call.words.first?.lowercased() else {
                let unit = await units.unit(for: call.sender, caseMapping: call.caseMapping)
                await call.reply(
                    "Your distances are in \(unit.rawValue). Change with \(call.prefix)units km or \(call.prefix)units mi."
                )
                return
            }
            let aliases: [String: UnitSystem] = [
                "km": .km, "kilometre": .km, "kilometres": .km, "kilometer": .km, "kilometers": .km,
                "mi": .mi, "mile": .mi, "miles": .mi,
            ]
            guard let unit = aliases[word], call.words.count == 1 else {
                throw UserFacingError("Units are km or mi: \(call.prefix)units km or \(call.prefix)units mi.")
            }
            await units.set(unit, for: call.sender, caseMapping: call.caseMapping)
            await call.reply(
                "OK, I will show you distances in \(unit == .km ? "kilometres (km)" : "miles (mi)").")
        }
    }
}
