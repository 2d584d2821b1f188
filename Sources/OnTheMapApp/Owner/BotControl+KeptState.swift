import BotKit
import Foundation

/// One `!ignore` entry as kept across restarts: its end as a wall-clock time.
struct KeptIgnore: Codable, Sendable, Equatable {
    var mask: String
    /// Seconds since 1970 when the entry lapses; nil for "until lifted".
    var until: Double?
    var addedBy: String
}

extension BotControl {
    /// The state-store key of `instance`'s ignore list.
    static func ignoresKey(instance: String?) -> String {
        guard let instance, !instance.isEmpty else { return "ignores" }
        return "ignores@" + instance
    }

    /// Restores what the bot kept across restarts, before it reads commands: the plugins' state
    /// (sessions, open posts, unit choices; see ``RestoringPlugin``) and the ignore list (entries
    /// that lapsed while the bot was down are dropped). The account events are followed from before
    /// the read (see `AccountEventWatch`).
    func restoreKeptState() async {
        guard let router else { return }
        // Account events from here on are acted on, even those made while the kept state is read.
        await services.accountEvents?.start()
        await router.restorePlugins()
        do {
            if case .value(let kept) = try await keptIgnores.load() {
                let now = Date()
                for entry in kept {
                    let remaining = entry.until.map { Date(timeIntervalSince1970: $0).timeIntervalSince(now) }
                    if let remaining, remaining <= 0 { continue }
                    _ = await router.ignore(
                        entry.mask, for: remaining.map { .milliseconds(Int64($0 * 1000)) }, addedBy: entry.addedBy)
                }
            }
        } catch {
            logger.warning("the kept ignore list could not be read", metadata: ["error": "\(error)"])
        }
        markRestored()
    }

    /// Keeps the ignore list as it is now.
    func saveIgnores() async {
        guard let router else { return }
        await keptIgnores.save {
            let now = Date()
            return await router.ignoredMasks().map { entry in
                KeptIgnore(
                    mask: entry.mask,
                    until: entry.remaining.map { now.addingTimeInterval(BotControl.seconds($0)).timeIntervalSince1970 },
                    addedBy: entry.addedBy)
            }
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
