import Foundation
import Logging
import OnTheMapService

/// `privacy.pin_days`: a pin not updated for that many days leaves the map (its owner's account
/// stays, and posting again puts it back). The pins go through the same path as `!unpost`: the
/// directory removes them with tombstones (other instances' class maps read those; PostgreSQL also
/// notifies them), and this bot's class map and web map forget them at once.
///
/// Only the directories that keep their own pins (local, PostgreSQL) can remove one; on the
/// Udacity-compatible API the setting does nothing.
public struct PinRetention: Sendable {
    /// How often the bot looks for pins past their time.
    static let interval: Duration = .seconds(3600)

    let settings: SettingsInForce
    let accounts: (any AccountDirectory)?
    let classMap: ClassMap
    let now: @Sendable () -> Date

    /// `accounts`: the directory that can remove pins (nil: retention does nothing).
    public init(
        settings: SettingsInForce, accounts: (any AccountDirectory)?, classMap: ClassMap,
        now: @escaping @Sendable () -> Date
    ) {
        self.settings = settings
        self.accounts = accounts
        self.classMap = classMap
        self.now = now
    }

    /// The retention of the network whose assembly is `services`.
    public init(services: ClassServices) {
        self.init(
            settings: services.settingsInForce, accounts: services.accounts, classMap: services.classMap,
            now: services.now)
    }

    /// Sweeps now, then every ``interval``, until the task is cancelled. The number of days is read
    /// from the settings each time (a reload may change it; none turns retention off).
    public func run(logger: Logger) async {
        while !Task.isCancelled {
            do {
                let removed = try await sweep()
                if !removed.isEmpty {
                    logger.info("pins past privacy.pin_days left the map", metadata: ["removed": "\(removed.count)"])
                }
            } catch {
                logger.warning("pins past privacy.pin_days could not be removed", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: Self.interval)
        }
    }

    /// Removes the pins last updated more than `privacy.pin_days` days ago; returns them (none
    /// when the setting is off or the directory cannot remove pins).
    @discardableResult
    public func sweep() async throws -> [StudentLocation] {
        guard let days = settings.current.privacy.pinDays, days > 0, let accounts else {
            return []
        }
        let cutoff = now().addingTimeInterval(-Double(days) * 24 * 3600)
        let removed = try await accounts.removeLocations(updatedBefore: cutoff)
        for pin in removed { await classMap.forget(pin) }
        return removed
    }
}
