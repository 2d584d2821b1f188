import Foundation
import OnTheMapService

/// The class's one privacy boundary for what is stored. Every way a pin or trip is made or changed
/// passes here: `!post` and its trips, the web scene and the served API, `pins import`,
/// `pins coarsen`, a `!privacy` change and the demo class. It works out the student's level (their
/// `!privacy` choice held to `privacy.finest`, else `privacy.default`), applies it with the class's
/// small-place rule (`privacy.city_min_population`), puts the name in the form the student chose
/// (`!privacy name`), and returns a `KeptPin` or `KeptTrip`, the only forms a directory takes, with
/// the level stored beside the pin.
///
/// It also reads stored places back at their level (`!near`'s distances, `!privacy`'s answer, the
/// count of pins finer than their level).
public struct PrivacyGate: Sendable {
    /// The operator's privacy rules in force.
    public let policy: PrivacyPolicy
    private let coarsener: PinCoarsener
    private let choices: PrivacyChoices

    /// `places`: the offline gazetteer's levels, which pins are moved to (nil: a grid).
    public init(places: (any PlaceLevelFinder)?, policy: PrivacyPolicy, choices: PrivacyChoices) {
        self.policy = policy
        self.coarsener = PinCoarsener(finder: places, cityMinimumPopulation: policy.cityMinimumPopulation)
        self.choices = choices
    }

    /// `privacy.city_min_population` as in force.
    public var cityMinimumPopulation: Int { coarsener.cityMinimumPopulation }

    /// The level the pins of `accountKey` are kept at: the student's choice held to the finest the
    /// operator allows, or the operator's default. Throws when the choices cannot be read.
    public func level(of accountKey: String) async throws -> PinPrecision {
        policy.allowed(try await choices.chosen(by: accountKey))
    }

    /// The level the student `accountKey` chose, held to the finest the operator allows; nil when
    /// they never chose.
    public func chosenLevel(of accountKey: String) async throws -> PinPrecision? {
        try await choices.chosen(by: accountKey).map { policy.allowed($0) }
    }

    /// How the name of `accountKey` shows to others.
    public func nameForm(of accountKey: String) async throws -> NameForm {
        try await choices.nameForm(chosenBy: accountKey)
    }

    /// `draft` (and a trip it carries) at its student's level and with their name in the form they
    /// chose, as a directory takes it, and whether its place was widened. `resolved`: the place the
    /// geocoder found for what the student typed, when there was one.
    public func keep(_ draft: PinDraft, resolved: PlaceCandidate? = nil) async throws -> PinCoarsener.CoarsePin {
        try await keep(draft, at: try await level(of: draft.uniqueKey), resolved: resolved)
    }

    /// `draft` at `level`, a level already worked out for its student (the one a `!privacy` change
    /// just set, or the coarser of theirs and the operator's for `pins coarsen` and `pins import`),
    /// with their name in the form they chose.
    public func keep(_ draft: PinDraft, at level: PinPrecision, resolved: PlaceCandidate? = nil) async throws
        -> PinCoarsener.CoarsePin
    {
        await keep(draft, at: level, nameForm: try await nameForm(of: draft.uniqueKey), resolved: resolved)
    }

    /// The pins of a whole file as `pins import` keeps them: each at `level` or at its student's own
    /// level when that is coarser, with the name form they chose. The class's choices are read
    /// once (two reads in all), not twice a pin. The file is kept in as many parts side by side as
    /// the machine has cores (each pin's nearest place is most of the work), in the file's order.
    public func keepAll(_ drafts: [PinDraft], atLeast level: PinPrecision) async throws -> [PinCoarsener.CoarsePin] {
        let levels = try await choices.all()
        let names = try await choices.allNameForms()
        let parts = min(max(1, ProcessInfo.processInfo.activeProcessorCount), max(1, drafts.count / 1_000))
        let size = (drafts.count + parts - 1) / max(1, parts)
        let gate = self
        let keptParts = await withTaskGroup(of: (Int, [PinCoarsener.CoarsePin]).self) { group in
            for part in 0..<parts {
                let slice = drafts[min(drafts.count, part * size)..<min(drafts.count, (part + 1) * size)]
                group.addTask {
                    var kept: [PinCoarsener.CoarsePin] = []
                    kept.reserveCapacity(slice.count)
                    for draft in slice {
                        let target = max(level, levels[draft.uniqueKey].map { gate.policy.allowed($0) } ?? level)
                        kept.append(
                            await gate.keep(draft, at: target, nameForm: names[draft.uniqueKey] ?? .full, resolved: nil)
                        )
                    }
                    return (part, kept)
                }
            }
            var done: [[PinCoarsener.CoarsePin]] = Array(repeating: [], count: parts)
            for await (part, kept) in group { done[part] = kept }
            return done
        }
        return keptParts.flatMap { $0 }
    }

    private func keep(_ draft: PinDraft, at level: PinPrecision, nameForm: NameForm, resolved: PlaceCandidate?) async
        -> PinCoarsener.CoarsePin
    {
        var named = draft
        (named.firstName, named.lastName) = nameForm.applied(first: draft.firstName, last: draft.lastName)
        return await coarsener.coarsening(named, to: max(level, policy.finestPrecision), resolved: resolved)
    }

    /// A stored pin kept again at `level` (a `!privacy` change, `pins coarsen`), with `trip` when
    /// given: read at the level it is kept at, so a place already at `level` or coarser stays as it
    /// is (but for a town too small for city level, which is widened) and a finer one is moved.
    public func keep(_ pin: StudentLocation, at level: PinPrecision, trip: Trip? = nil) async throws
        -> PinCoarsener.CoarsePin
    {
        var draft = pin.draft
        draft.trip = trip
        let stored = PlaceCandidate(
            displayName: pin.mapString, adminArea: nil, country: nil, countryCode: nil, coordinate: pin.coordinate,
            kind: await precision(of: pin).kind, population: 0)
        return try await keep(draft, at: level, resolved: stored)
    }

    /// `trip` at the level of `accountKey`, as a directory takes it.
    public func keep(_ trip: Trip, of accountKey: String) async throws -> KeptTrip {
        await keep(trip, at: try await level(of: accountKey))
    }

    /// `trip` at `level` (see ``keep(_:at:resolved:)``).
    public func keep(_ trip: Trip, at level: PinPrecision) async -> KeptTrip {
        await coarsener.coarsen(trip, to: max(level, policy.finestPrecision))
    }

    /// `place` (a geocoder's answer) as it will be kept at `level`: what a student is shown before
    /// anything is stored, so that a finer place is never offered back to them or kept in an open
    /// step either.
    public func shown(_ place: PlaceCandidate, at level: PinPrecision) async -> PlaceCandidate {
        await coarsener.coarsen(place, to: level)
    }

    /// The level a stored pin is kept at (see `PinCoarsener.precision(of:)`).
    public func precision(of pin: StudentLocation) async -> PinPrecision {
        await coarsener.precision(of: pin)
    }

    /// The level of a stored place from its point and text (a trip's, or the place a pin shows).
    public func precision(of coordinate: Coordinate, named name: String) async -> PinPrecision {
        await coarsener.precision(of: coordinate, named: name)
    }

    /// Whether `pin`'s home place shows more than `level` allows.
    public func isFiner(_ pin: StudentLocation, than level: PinPrecision) async -> Bool {
        await coarsener.isFiner(pin, than: level)
    }

    /// Whether a stored place shows more than `level` allows.
    public func isFiner(than level: PinPrecision, at coordinate: Coordinate, named name: String) async -> Bool {
        await coarsener.isFiner(than: level, at: coordinate, named: name)
    }
}
