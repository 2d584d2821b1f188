import BotKit
import Metrics
import Foundation
import Logging
import OnTheMapService

/// Announces new pins made anywhere (another bot, the HTTP API, the Udacity backend) in the
/// `announce_to` channels, exactly once. It polls every `pollInterval` and, with PostgreSQL, also
/// wakes on each change notification. Each poll refreshes the class map too.
///
/// What was announced is remembered in the state store (``AnnouncementLedger``): the very first
/// start announces nothing old; a restart announces only pins saved while the bot was away (on
/// the poll after it started, when it has joined its channels). A burst becomes a summary line.
public struct AnnouncePlugin: BackgroundPlugin {
    public let name = "announce"
    public var commands: [Command] { [] }
    let services: ClassServices

    public init(services: ClassServices) {
        self.services = services
    }

    public func run(context: PluginContext) async {
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let interval = services.settings.pollInterval
        let pinChanges = services.pinChanges
        await withDiscardingTaskGroup { group in
            group.addTask {
                while !Task.isCancelled {
                    wake.yield()
                    try? await Task.sleep(for: interval)
                }
                wake.finish()
            }
            if let pinChanges {
                group.addTask {
                    do {
                        for await _ in try await pinChanges.pinChanges() { wake.yield() }
                    } catch {
                        context.logger.warning(
                            "pin change notifications unavailable; polling only",
                            metadata: ["error": "\(error)"])
                    }
                }
            }
            group.addTask {
                var first = true
                for await _ in wakeups {
                    if Task.isCancelled { break }
                    await announceNewPins(context: context, isFirstRound: first)
                    first = false
                }
            }
        }
    }

    /// One round: refresh the class map and announce what nobody has heard of yet.
    func announceNewPins(context: PluginContext, isFirstRound: Bool) async {
        do {
            let refresh = try await services.classMap.refresh()
            let remembered = try await services.ledger.start()
            guard remembered else {
                // The very first start: everything already there is old news.
                try await services.ledger.markAnnounced(refresh.pins, save: true)
                context.logger.info("announcer started fresh", metadata: ["pins": "\(refresh.pins.count)"])
                return
            }
            // Just started: the bot may not have joined its channels yet; announce next round.
            if isFirstRound { return }
            let fresh = await services.ledger.unannounced(refresh.pins)
            guard !fresh.isEmpty else { return }
            // Remember first: a pin is announced at most once, even if sending fails half-way.
            try await services.ledger.markAnnounced(fresh)
            let lines = Self.lines(
                for: fresh, burstLimit: services.settings.announceBurstLimit,
                prefix: services.settings.commandPrefix)
            for channel in services.settings.announceChannels {
                for line in lines { await context.say(line, in: channel) }
                Counter(label: "onthemap_announcements_total").increment(by: lines.count)
            }
            context.logger.info("announced new pins", metadata: ["count": "\(fresh.count)"])
        } catch is CancellationError {
            return  // the bot is stopping
        } catch {
            context.logger.warning("could not look for new pins", metadata: ["error": "\(error)"])
        }
    }

    /// The announcement of `fresh` (oldest first): one line each, or when there are more than
    /// `burstLimit`, the newest few and one summary line.
    public static func lines(for fresh: [StudentLocation], burstLimit: Int, prefix: String = "!") -> [String]
    {
        let limit = max(1, burstLimit)
        if fresh.count <= limit { return fresh.map(line) }
        let shown = Array(fresh.suffix(limit - 1))
        let more = fresh.count - shown.count
        return shown.map(line) + [
            "… and \(more) more new pin\(more == 1 ? "" : "s") (\(prefix)list shows them all)"
        ]
    }

    /// "New pin: Jane Doe — Seattle, WA — https://…".
    static func line(_ pin: StudentLocation) -> String {
        let isUpdate = pin.updatedAt.timeIntervalSince(pin.createdAt) > 1
        return Formatting.line([
            (isUpdate ? "Moved pin: " : "New pin: ") + Formatting.name(pin), Formatting.place(pin.mapString),
            Formatting.link(pin.mediaURL),
        ])
    }
}
