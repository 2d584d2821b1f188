import BotKit
import IRCProtocol

/// Each student's choice of kilometres or miles (`!units`), kept while the bot runs. Keyed by
/// services account when there is one, otherwise by nick (see ``UserIdentity/key(by:caseMapping:)``).
public actor UnitPreferences {
    private let defaultUnit: UnitSystem
    private var chosen: [String: UnitSystem] = [:]

    public init(defaultUnit: UnitSystem) {
        self.defaultUnit = defaultUnit
    }

    /// The unit `sender` sees (nicks compared under `caseMapping`).
    public func unit(for sender: UserIdentity, caseMapping: CaseMapping) -> UnitSystem {
        chosen[sender.key(by: .nick, caseMapping: caseMapping)] ?? defaultUnit
    }

    /// Remembers `unit` for `sender` (nicks compared under `caseMapping`).
    public func set(_ unit: UnitSystem, for sender: UserIdentity, caseMapping: CaseMapping) {
        chosen[sender.key(by: .nick, caseMapping: caseMapping)] = unit
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
