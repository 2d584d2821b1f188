import ArgumentParser
import ClassKit
import Foundation
import OnTheMapService

extension PinsCommand {
    /// `pins coarsen`: re-stores every pin finer than a level at that level (or at its student's
    /// coarser choice): the pins made before the class kept pins at a chosen precision.
    struct Coarsen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Re-stores every pin finer than --precision (privacy.default when not given; never finer than "
                + "privacy.finest) at that level (its student's own level when coarser): "
                + "the point and place text become the nearest populated place's (or its region's, its country's), "
                + "and the finer ones are no longer stored. At city level a pin in a place smaller than "
                + "privacy.city_min_population counts as finer: it moves to the nearest place of that size in its "
                + "region (or to the region). Running bots see the change like any update.")
        @OptionGroup var options: ConfigOptions
        @Option(help: "city, region or country; privacy.default when not given.") var precision: PinPrecision?
        @Flag(help: "Only says how many pins would change.") var dryRun = false

        func run() async throws {
            let policy = try options.loadForService().privacyPolicy
            let precision = try PinsCommand.requestedLevel(
                self.precision, policy: policy, nothing: "nothing was changed")
            guard precision != .exact else {
                throw ValidationError(
                    self.precision == nil
                        ? "privacy.default is exact, so there is nothing to coarsen: give --precision city, region or country"
                        : "--precision exact would change nothing: choose city, region or country")
            }
            let stack = try await PinsCommand.open(options, placeLevels: true)
            let directory = try await PinsCommand.writable(stack, doing: "re-store pins")
            let map = try await PinsCommand.allPins(stack, options: options)
            let pins = try await map.all()
            let gate = stack.privacyGate(policy: policy)
            var finer: [PinImportRecord] = []
            // Trips are kept no finer than home pins: a lasting one is coarsened with its pin, one
            // that has ended is erased (it shows nowhere and cannot be saved again).
            var endedTrips: [String] = []
            var changed: [String] = []
            let now = Date()
            for pin in pins {
                var changes = await gate.isFiner(pin, than: precision)
                var trip: Trip?
                if let kept = pin.trip, await gate.isFiner(than: precision, at: kept.coordinate, named: kept.mapString)
                {
                    if kept.isActive(at: now) {
                        trip = kept
                        changes = true
                    } else {
                        endedTrips.append(pin.uniqueKey)
                    }
                }
                if changes {
                    // At the operator's level, or at the student's own when coarser.
                    let level = max(precision, try await gate.chosenLevel(of: pin.uniqueKey) ?? precision)
                    let coarse = try await gate.keep(pin, at: level, trip: trip)
                    finer.append(PinImportRecord(pin: coarse.pin, createdAt: pin.createdAt, updatedAt: pin.updatedAt))
                }
                if changes || endedTrips.last == pin.uniqueKey { changed.append(pin.objectId) }
            }
            guard !dryRun else {
                await stack.shutdown()
                print(
                    "\(finer.count) of \(pins.count) pins are finer than \(precision.rawValue) level and would be re-stored"
                        + (endedTrips.isEmpty
                            ? "." : "; \(endedTrips.count) ended trips finer than that would be erased.")
                )
                return
            }
            do {
                if !finer.isEmpty { _ = try await directory.importLocations(finer) }
                if let trips = stack.trips {
                    for accountKey in endedTrips { _ = try await trips.endTrip(ofAccount: accountKey, session: nil) }
                }
                // The finer places leave the files before the operator hears they are gone.
                if !changed.isEmpty { try await stack.accounts?.flushErasures(pins: changed) }
            } catch {
                await stack.shutdown()
                throw ValidationError("nothing was changed: \(ServiceErrorText.describe(error))")
            }
            await stack.shutdown()
            print(
                "Re-stored \(finer.count) of \(pins.count) pin\(pins.count == 1 ? "" : "s") at \(precision.rawValue) level or coarser."
            )
        }
    }

    /// The level an operator's command works at: `requested`, or `privacy.default` when none was
    /// given; refused (with `nothing` said) when finer than `privacy.finest`.
    static func requestedLevel(_ requested: PinPrecision?, policy: PrivacyPolicy, nothing: String) throws
        -> PinPrecision
    {
        let level = requested ?? policy.defaultPrecision
        guard level >= policy.finestPrecision else {
            let source = requested == nil ? "privacy.default \(level.rawValue)" : "--precision \(level.rawValue)"
            throw ValidationError(
                "privacy.finest is \(policy.finestPrecision.rawValue): \(source) is finer than it allows; \(nothing)")
        }
        return level
    }

    /// The pins of `records` kept at `level` (the operator's, `privacy.default` when not given), or
    /// at the level their students chose (read from the directory's state store, held to
    /// `privacy.finest`) when coarser.
    static func kept(
        _ records: [PinFile.Record], at level: PinPrecision, policy: PrivacyPolicy, stack: ServiceStack
    ) async throws -> [PinImportRecord] {
        let kept = try await stack.privacyGate(policy: policy).keepAll(records.map(\.draft), atLeast: level)
        return zip(records, kept).map { record, kept in
            PinImportRecord(pin: kept.pin, createdAt: record.createdAt, updatedAt: record.updatedAt)
        }
    }
}

extension PinPrecision: ExpressibleByArgument {}
