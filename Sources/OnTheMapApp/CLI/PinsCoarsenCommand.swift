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
                "Re-stores every pin finer than --precision at that level (its student's own level when coarser): "
                + "the point and place text become the nearest populated place's (or its region's, its country's), "
                + "and the finer ones are no longer stored. Running bots see the change like any update.")
        @OptionGroup var options: ConfigOptions
        @Option(help: "city, region or country.") var precision: PinPrecision = .city
        @Flag(help: "Only says how many pins would change.") var dryRun = false

        func run() async throws {
            guard precision != .exact else {
                throw ValidationError("--precision exact would change nothing: choose city, region or country")
            }
            let stack = try await PinsCommand.open(options, placeLevels: true)
            let directory = try await PinsCommand.writable(stack, doing: "re-store pins")
            let map = try await PinsCommand.allPins(stack, options: options)
            let pins = try await map.all()
            let coarsener = PinCoarsener(finder: stack.placeLevels)
            var finer: [PinImportRecord] = []
            for pin in pins where await coarsener.precision(of: pin) < precision {
                finer.append(PinImportRecord(draft: pin.draft, createdAt: pin.createdAt, updatedAt: pin.updatedAt))
            }
            guard !dryRun else {
                await stack.shutdown()
                print(
                    "\(finer.count) of \(pins.count) pins are finer than \(precision.rawValue) level and would be re-stored."
                )
                return
            }
            do {
                let records = try await PinsCommand.coarsened(finer, to: precision, stack: stack)
                if !records.isEmpty { _ = try await directory.importLocations(records) }
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

    /// `records` made no more precise than `level`, or than the level their students chose when
    /// coarser (read from the directory's state store).
    static func coarsened(_ records: [PinImportRecord], to level: PinPrecision, stack: ServiceStack) async throws
        -> [PinImportRecord]
    {
        let coarsener = PinCoarsener(finder: stack.placeLevels)
        let choices = PrecisionChoices(store: stack.state)
        var result: [PinImportRecord] = []
        result.reserveCapacity(records.count)
        for var record in records {
            let chosen = try await choices.chosen(by: record.draft.uniqueKey)
            let target = max(level, chosen ?? level)
            record.draft = await coarsener.coarsen(record.draft, to: target).draft
            result.append(record)
        }
        return result
    }
}

extension PinPrecision: ExpressibleByArgument {}
