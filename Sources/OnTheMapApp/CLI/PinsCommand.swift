import ArgumentParser
import ClassKit
import Foundation
import Logging
import IRCProtocol
import OnTheMapService

/// `onthemap-bot pins …`: the operator's tools for the pins of a class.
struct PinsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pins", abstract: "Imports, exports, lists and removes the pins of the class map.",
        subcommands: [Import.self, Export.self, List.self, Remove.self, Coarsen.self])

    /// Opens the directory of the config (without the geocoder; with the gazetteer's places by level
    /// when `placeLevels`, to coarsen pins with).
    static func open(_ options: ConfigOptions, placeLevels: Bool = false) async throws -> ServiceStack {
        var config = try options.loadForService()
        config.geocoder.kind = .gazetteer
        let logger = Logger(label: "onthemap.pins", factory: { _ in SwiftLogNoOpLogHandler() })
        do {
            return try await ServiceStack.make(
                config: config, logger: logger, loadGeocoder: false, loadPlaceLevels: placeLevels)
        } catch {
            throw ValidationError(
                "cannot open the \(config.service.backend.rawValue) directory: \(ServiceErrorText.describe(error))")
        }
    }

    /// The directory that can change pins, or a refusal naming the backend that cannot.
    static func writable(_ stack: ServiceStack, doing what: String) async throws -> any AccountDirectory {
        guard let accounts = stack.accounts else {
            await stack.shutdown()
            throw ValidationError(
                "the \(stack.directory.backendName) backend (the Udacity-compatible API) cannot \(what): its "
                    + "contract has no delete, and saves a pin only for the student logged in; pins are removed and "
                    + "imported only on the local and postgres backends")
        }
        return accounts
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Takes one pin off the map, by its objectId or its uniqueKey (account key); running bots forget it "
                + "(at once on PostgreSQL, at their next poll on SQLite).")
        @OptionGroup var options: ConfigOptions
        @Argument(help: "The pin's objectId, or the uniqueKey of its account.") var pin: String

        func run() async throws {
            let stack = try await PinsCommand.open(options)
            let directory = try await PinsCommand.writable(stack, doing: "delete a pin")
            do {
                var removed = try await directory.removeLocation(objectId: pin)
                if removed == nil { removed = try await directory.removeLocation(ofAccount: pin, session: nil) }
                await stack.shutdown()
                guard let removed else { throw ValidationError("no pin has the objectId or uniqueKey \(pin)") }
                print("Removed \(removed.fullName) — \(removed.mapString) (objectId \(removed.objectId)).")
            } catch let error as ServiceError {
                await stack.shutdown()
                throw ValidationError(ServiceErrorText.describe(error))
            }
        }
    }

    /// Every pin of the directory (a directory without a change feed: up to `service.udacity_max_pins`).
    static func allPins(_ stack: ServiceStack, options: ConfigOptions) async throws -> ClassMap {
        let config = try options.loadForService()
        let map = ClassMap(directory: stack.directory, pagingCap: config.service.udacityMaxPins)
        do {
            try await map.refresh()
        } catch {
            await stack.shutdown()
            throw ValidationError("cannot read the pins: \(ServiceErrorText.describe(error))")
        }
        return map
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lists the pins, newest update first: objectId, uniqueKey, name, place, last update.")
        @OptionGroup var options: ConfigOptions
        @Option(help: "Only the pins whose first, last or full name matches (as !where finds them).")
        var name: String?

        func run() async throws {
            let stack = try await PinsCommand.open(options)
            let map = try await PinsCommand.allPins(stack, options: options)
            let pins: [StudentLocation]
            if let name { pins = try await map.pins(named: name) } else { pins = try await map.all() }
            await stack.shutdown()
            for pin in pins {
                let fields = [
                    pin.objectId, pin.uniqueKey, pin.fullName, pin.mapString, PinFile.formatDate(pin.updatedAt),
                ]
                print(fields.map { TextSanitizer.untrusted($0, maxBytes: 600) }.joined(separator: "\t"))
            }
            print("\(pins.count) pin\(pins.count == 1 ? "" : "s").")
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Writes every pin as the Udacity StudentLocation JSON ({\"results\": [...]}), newest first.")
        @OptionGroup var options: ConfigOptions
        @Option(name: .shortAndLong, help: "The file to write (standard output without it).") var output: String?

        func run() async throws {
            let stack = try await PinsCommand.open(options)
            let map = try await PinsCommand.allPins(stack, options: options)
            let pins = try await map.all()
            await stack.shutdown()
            let data = try PinExport.json(pins)
            if let output {
                do {
                    try data.write(to: URL(fileURLWithPath: output), options: .atomic)
                } catch {
                    throw ValidationError("cannot write \(output): \(error.localizedDescription)")
                }
                print("Wrote \(pins.count) pin\(pins.count == 1 ? "" : "s") to \(output).")
            } else {
                FileHandle.standardOutput.write(data)
                FileHandle.standardOutput.write(Data("\n".utf8))
            }
        }
    }
}
