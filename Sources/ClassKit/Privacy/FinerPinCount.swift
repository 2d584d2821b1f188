import OnTheMapService

/// How many pins of the class are kept finer than their students' level: `privacy.default`, or
/// the level a student chose with `!privacy` (held to `privacy.finest`). Such pins were stored
/// before the class's privacy rules, imported at `exact`, or changed in the database by hand;
/// distances to them are exact to the kilometre. `onthemap-bot pins coarsen` re-stores them.
public struct FinerPinCount: Sendable, Equatable {
    public var finer: Int
    public var total: Int

    public init(finer: Int, total: Int) {
        self.finer = finer
        self.total = total
    }

    /// The sentence for the log and `!status`, or nil when no pin is finer.
    public func sentence(default level: PinPrecision) -> String? {
        guard finer > 0 else { return nil }
        return
            "\(finer) of \(total) pins are kept finer than their students' level (privacy.default: \(level.rawValue)), "
            + "so distances to them are exact; `onthemap-bot pins coarsen --config <file>` re-stores them"
    }
}

extension ClassServices {
    /// Counts the class map's pins finer than their students' level (``PrivacyGates/finerPinCount(in:)``).
    public func finerPinCount() async throws -> FinerPinCount {
        try await privacyGates.finerPinCount(in: classMap)
    }
}

extension PrivacyGates {
    /// Counts the pins of `classMap` finer than their students' level (the level stored with each pin; a gazetteer lookup for a pin kept before levels were stored).
    public func finerPinCount(in classMap: ClassMap) async throws -> FinerPinCount {
        let gate = current
        let choices = try await self.choices.all()
        // One pin made whole at a time, from the store as kept: a copy of the class as whole pins
        // (about 300 bytes each) would add 30 MiB at 100,000 pins to the bot's peak at start.
        let store = try await classMap.store()
        let slots = store.liveSlots
        var finer = 0
        for slot in slots {
            let pin = store.pin(at: Int(slot))
            let level = gate.policy.allowed(choices[pin.uniqueKey])
            if await gate.precision(of: pin) < level { finer += 1 }
        }
        return FinerPinCount(finer: finer, total: slots.count)
    }
}
