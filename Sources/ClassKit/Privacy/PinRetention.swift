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

    let services: ClassServices

    public init(services: ClassServices) {
        self.services = services
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
        guard let days = services.settings.privacy.pinDays, days > 0, let accounts = services.accounts else {
            return []
        }
        let cutoff = services.now().addingTimeInterval(-Double(days) * 24 * 3600)
        let removed = try await accounts.removeLocations(updatedBefore: cutoff)
        for pin in removed { await services.classMap.forget(pin) }
        return removed
    }
}
