import ArgumentParser
import Foundation
import OnTheMapService

extension PinsCommand {
    /// `pins import`: the whole file is checked before anything is written. With a bad record,
    /// every bad line is named and nothing is imported, unless `--skip-bad` imports the others;
    /// the import itself is one transaction (all of it or none of it).
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Imports pins from the Udacity StudentLocation JSON ({\"results\": [...]}) or CSV with the same "
                + "columns; a pin whose uniqueKey is already on the map updates it. A file with a bad record "
                + "imports nothing unless --skip-bad is given.")
        @OptionGroup var options: ConfigOptions
        @Argument(help: "The JSON or CSV file.") var file: String
        @Flag(help: "Imports the good records and skips the bad ones (each still named).") var skipBad = false
        @Flag(help: "Only checks the file and says what would be imported.") var dryRun = false
        @Option(
            help:
                "How precisely the pins are kept at most: city (the nearest populated place: its name and point, never the street), region, country or exact (as in the file); privacy.default when not given, and never finer than privacy.finest. A student's own !privacy level applies when coarser; a student who chose none is kept at privacy.default or coarser."
        )
        var precision: PinPrecision?

        func run() async throws {
            let policy = try options.loadForService().privacyPolicy
            let level = try PinsCommand.requestedLevel(precision, policy: policy, nothing: "nothing was imported")
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw ValidationError("cannot read \(file): \(error.localizedDescription)")
            }
            let contents: PinFile.Contents
            do {
                contents = try PinFile.read(data)
            } catch {
                throw ValidationError("\(file): \(error.description); nothing was imported")
            }
            for problem in contents.problems { print("\(file): \(problem)") }
            for (line, kept) in contents.superseded {
                print("\(file): line \(line): left out, line \(kept) has a newer pin of the same uniqueKey")
            }
            let bad = contents.problems.count
            let good = contents.records.count
            if bad > 0 && !skipBad {
                print(
                    "\(bad) bad record\(bad == 1 ? "" : "s"); nothing was imported. Fix \(bad == 1 ? "it" : "them"), "
                        + "or give --skip-bad to import the other \(good).")
                throw ExitCode(1)
            }
            if dryRun {
                print("\(good) pin\(good == 1 ? "" : "s") would be imported\(bad > 0 ? ", \(bad) bad skipped" : "").")
                if bad > 0 { throw ExitCode(1) }
                return
            }
            let stack = try await PinsCommand.open(options, placeLevels: true)
            let directory = try await PinsCommand.writable(stack, doing: "import pins")
            let outcome: PinImportOutcome
            do {
                let records = try await PinsCommand.kept(
                    contents.records.map(\.record), at: level, policy: policy, stack: stack)
                outcome = try await directory.importLocations(records)
            } catch {
                await stack.shutdown()
                throw ValidationError("nothing was imported: \(ServiceErrorText.describe(error))")
            }
            await stack.shutdown()
            print(
                "Imported \(good) pin\(good == 1 ? "" : "s"): \(outcome.created) new, \(outcome.updated) updated"
                    + (bad > 0 ? "; \(bad) bad record\(bad == 1 ? "" : "s") skipped." : "."))
            if bad > 0 { throw ExitCode(1) }
        }
    }
}
