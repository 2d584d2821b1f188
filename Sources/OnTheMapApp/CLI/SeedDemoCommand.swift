import ArgumentParser
import Logging
import OnTheMapService

/// `onthemap-bot seed-demo`: fills a local or PostgreSQL directory with the demo class
/// (about 30 pins around the world) and prints the demo logins. Safe to run again.
struct SeedDemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed-demo", abstract: "Adds a demo class and demo logins (for trying the bot locally).")

    @OptionGroup var options: ConfigOptions
    @Flag(help: "Removes the demo class instead: its pins and its three demo logins.") var remove = false

    func run() async throws {
        let config = try options.loadForService()
        let logger = Logger(label: "onthemap.demo", factory: { _ in SwiftLogNoOpLogHandler() })
        let stack: ServiceStack
        do {
            stack = try await ServiceStack.make(config: config, logger: logger, loadGeocoder: !remove)
        } catch {
            throw ValidationError("cannot open the directory: \(ServiceErrorText.describe(error))")
        }
        guard let accounts = stack.accounts else {
            await stack.shutdown()
            throw ValidationError(
                "the demo class can only be added to or removed from the local or postgres backends "
                    + "(the Udacity-compatible API has no delete in its contract)")
        }
        if remove {
            let removal: DemoClass.Removal
            do {
                removal = try await DemoClass.remove(from: accounts)
            } catch {
                await stack.shutdown()
                throw ValidationError("could not remove the demo class: \(ServiceErrorText.describe(error))")
            }
            await stack.shutdown()
            print("Demo class removed: \(removal.pinsRemoved) pins, \(removal.accountsRemoved) demo logins.")
            return
        }
        let outcome: DemoClass.Outcome
        do {
            outcome = try await DemoClass.seed(
                into: accounts, geocoder: stack.geocoder, gate: stack.privacyGate(policy: config.privacyPolicy),
                precision: config.privacy.defaultPrecision)
        } catch {
            await stack.shutdown()
            throw ValidationError("could not add the demo class: \(ServiceErrorText.describe(error))")
        }
        await stack.shutdown()
        print("Demo class: \(outcome.pinsAdded) pins added, \(outcome.accountsAdded) accounts added.")
        for place in outcome.placesNotFound { print("  (no pin: the gazetteer does not know \(place))") }
        print("Demo logins (send them to the bot in a private message):")
        for account in DemoClass.accounts {
            print(
                "  /msg \(config.irc.nick.isEmpty ? "MapBot" : config.irc.nick) !login \(account.email) \(account.password)"
            )
        }
    }
}
