import BotKit
import ClassKit
import Foundation
import IRCProtocol
import Localization
import Logging
import Metrics
import OnTheMapService

/// Announces new pins made anywhere (another bot, the HTTP API, the Udacity backend) in the
/// `announce_to` channels. It polls every `pollInterval` and, with PostgreSQL, also wakes on each
/// change notification. Each poll refreshes the class map too.
///
/// Every version of a pin is announced once: a new pin, and each move (a new place or link), even
/// when several came between two rounds: the PostgreSQL directory's change feed brings the versions
/// a save replaced for an hour (``ClassMap/Refresh/versions``), whichever instance or API saved
/// them. An instance that was stopped meanwhile announces each pin's latest version.
///
/// What was announced is remembered in the state store (``AnnouncementLedger``): the very first
/// start announces nothing old; a restart announces only pins saved while the bot was away (on
/// the poll after it started, when it has joined its channels). A burst becomes a summary line.
///
/// **Across a crash, announcements are at-least-once.** A pin is saved as announced only after
/// the transport reports that its line has left for the network (not when it was queued behind
/// the flood limit), so a bot killed at any moment announces after its restart every current pin
/// whose announcement had not gone out — none is skipped. It repeats one only when it dies in the
/// instant between that line leaving and the save (a few milliseconds); a class channel would
/// rather see a rare repeated line than silently miss a classmate's pin. Without a crash (or on a
/// clean shutdown, which drains the queue first), every pin version is announced exactly once.
/// Limits: a line dropped from a full send queue counts as gone; a version older than the 100
/// most recent pins is not looked at again.
///
/// Each round ends with the debug log line "announcer round finished": the one sign from outside
/// that a look at the directory is over, also when it found nothing to say.
///
/// A channel anyone may join (no key, not invite-only) hears the students' names only while the
/// class is for the class and `privacy.open_channel` is `names` (``NamesOnlyWording``).
public struct AnnouncePlugin: BackgroundPlugin {
    /// What `plugins.announce:` can set.
    public struct Settings: ClassPluginSettings {
        /// How often the announcer looks for posts made elsewhere.
        public var pollInterval: Duration = .seconds(300)
        /// New pins announced one by one in a round; more than this becomes a summary line.
        public var burstLimit = 3

        public init() {}

        public init(pollInterval: Duration, burstLimit: Int = 3) {
            self.pollInterval = pollInterval
            self.burstLimit = burstLimit
        }

        public mutating func read(_ section: inout SettingsSection) {
            var seconds = Int(pollInterval.components.seconds)
            section.int("poll_seconds", into: &seconds, range: 10...86_400)
            pollInterval = .seconds(seconds)
        }
    }

    public static let registration = ClassPluginRegistration("announce", settings: Settings.self) {
        AnnouncePlugin(services: Needs($0), settings: $1)
    }

    public let name = "announce"
    public var commands: [Command] { [] }
    /// What the announcer uses: the class map, this network's announcement ledger, the settings
    /// (channels, languages), the clock, the trips' time zones, and what wakes it (pins saved in
    /// this process, and the directory's change feed when it has one).
    public struct Needs: ReadsClassSettings {
        public let settingsInForce: SettingsInForce
        public let classMap: ClassMap
        public let ledger: AnnouncementLedger
        public let timeZones: PinTimeZones
        public let pinWakeups: PinWakeups
        public let pinChanges: (any PinChangeNotifying)?
        public let now: @Sendable () -> Date

        public init(
            settingsInForce: SettingsInForce, classMap: ClassMap, ledger: AnnouncementLedger,
            timeZones: PinTimeZones, pinWakeups: PinWakeups, pinChanges: (any PinChangeNotifying)?,
            now: @escaping @Sendable () -> Date
        ) {
            self.settingsInForce = settingsInForce
            self.classMap = classMap
            self.ledger = ledger
            self.timeZones = timeZones
            self.pinWakeups = pinWakeups
            self.pinChanges = pinChanges
            self.now = now
        }
    }

    let services: Needs
    let settings: Settings

    public init(services: Needs, settings: Settings = Settings()) {
        self.services = services
        self.settings = settings
    }

    public func run(context: PluginContext) async {
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let interval = settings.pollInterval
        let pinChanges = services.pinChanges
        let ledger = services.ledger
        let services = self.services
        await withDiscardingTaskGroup { group in
            group.addTask {
                while !Task.isCancelled {
                    wake.yield()
                    try? await Task.sleep(for: interval)
                }
                wake.finish()
            }
            group.addTask {
                // Pins saved in this process (the HTTP API, a post on another network): announced at once.
                for await _ in services.pinWakeups.stream() { wake.yield() }
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
                    // What a round found is decided (and said) by now: whoever watches the bot's log
                    // (a test among them) knows a look at the directory is over, whatever it found.
                    context.logger.debug("announcer round finished")
                }
            }
            group.addTask {
                // Each hand-over is waited for on its own, from the moment it happens, so that it is
                // saved as soon as its own lines have left (not those queued after them).
                await withDiscardingTaskGroup { confirmations in
                    while !Task.isCancelled {
                        await ledger.waitForHandOver()
                        if Task.isCancelled { break }
                        let versions = await ledger.takeAwaitingDelivery()
                        confirmations.addTask {
                            if !(await Self.confirmDelivery(versions, ledger: ledger, context: context)) {
                                try? await Task.sleep(for: .seconds(1))  // stopped or failed: later
                                await ledger.putBack(versions)
                            }
                        }
                    }
                }
            }
        }
        // Stopping: what has left by now is saved (a clean shutdown drains the queue first).
        await Task {
            let versions = await ledger.takeAwaitingDelivery()
            if !(await Self.confirmDelivery(versions, ledger: ledger, context: context)) {
                await ledger.putBack(versions)
            }
        }.value
    }

    /// Saves `versions` as announced once every line said so far has left; false when that could
    /// not be known (stopped, cancelled) or saved.
    static func confirmDelivery(_ versions: [String], ledger: AnnouncementLedger, context: PluginContext)
        async -> Bool
    {
        guard !versions.isEmpty else { return true }
        // Stopped (or cancelled) before the lines left: not saved, so announced again later.
        guard await context.waitUntilSent() else { return false }
        do {
            // Not cancelled with the announcer: the lines are out, so this must be saved.
            try await Task { try await ledger.confirm(versions) }.value
            return true
        } catch {
            context.logger.warning("could not save what was announced", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// One round: refresh the class map and announce what nobody has heard of yet.
    func announceNewPins(context: PluginContext, isFirstRound: Bool) async {
        do {
            let refresh = try await services.classMap.refresh()
            let remembered = try await services.ledger.start()
            guard remembered else {
                // The very first start: everything already there is old news.
                try await services.ledger.markKnown(refresh.pins)
                context.logger.info("announcer started fresh", metadata: ["pins": "\(refresh.pins.count)"])
                return
            }
            // Just started: the bot may not have joined its channels yet; announce next round.
            if isFirstRound { return }
            // The recent pins, and every version the change feed brought (each move of a pin that
            // moved several times since the last round, wherever it was saved).
            let fresh = await services.ledger.claim(
                await services.ledger.unannounced(refresh.pins + refresh.versions))
            guard !fresh.isEmpty else { return }
            // A version that set a trip lasting now is said as one: "Jane Doe is in Lisbon until 24 Dec".
            // Each channel hears it in its own language; the lines of one language are made once.
            let now = services.now()
            let prefix = services.settings.commandPrefix
            let languages = services.settings.languages
            // Both names are as configured (`announce_to`, `channels`): folded as a server does before it
            // says otherwise.
            let caseMapping = CaseMapping.rfc1459
            var made: [String: [String]] = [:]
            for channel in services.settings.announceChannels {
                let namesOnly = await NamesOnlyWording.withholdsPlaces(
                    in: channel, services, isOpen: context.isOpenChannel)
                let phrases = Catalogs.bundled.phrasebook(languages.language(of: channel, caseMapping: caseMapping))
                let key = "\(phrases.language.tag)|\(namesOnly)"
                let lines: [String]
                if let done = made[key] {
                    lines = done
                } else {
                    var away: [String: String] = [:]
                    for pin in fresh {
                        let sentence =
                            namesOnly
                            ? await NamesOnlyWording.away(pin, now: now, zones: services.timeZones, phrases: phrases)
                            : await TripWording.away(pin, now: now, zones: services.timeZones, phrases: phrases)
                        if let sentence { away[Self.versionKey(pin)] = sentence }
                    }
                    lines = Self.lines(
                        for: fresh, burstLimit: settings.burstLimit, prefix: prefix, away: away, namesOnly: namesOnly,
                        phrases: phrases)
                    made[key] = lines
                }
                for line in lines { await context.say(line, in: channel) }
                Counter(
                    label: "onthemap_announcements_total",
                    dimensions: [("network", services.settings.networkName ?? ClassSettings.defaultNetworkName)]
                ).increment(by: lines.count)
            }
            // Saved as announced once these lines have left (see the type's documentation).
            await services.ledger.handedOver(fresh)
            context.logger.info("announced new pins", metadata: ["count": "\(fresh.count)"])
        } catch is CancellationError {
            return  // the bot is stopping
        } catch {
            context.logger.warning("could not look for new pins", metadata: ["error": "\(error)"])
        }
    }

    /// The announcement of `fresh` (oldest first): one line each, or when there are more than
    /// `burstLimit`, the newest few and one summary line.
    /// `away` holds the sentence of each version (``versionKey(_:)``) that is a trip. `namesOnly`:
    /// for a channel that hears names only, without places or links (``NamesOnlyWording``; `away`
    /// then holds its sentences).
    public static func lines(
        for fresh: [StudentLocation], burstLimit: Int, prefix: String = "!", away: [String: String] = [:],
        namesOnly: Bool = false, phrases: Phrasebook
    ) -> [String] {
        let limit = max(1, burstLimit)
        let line = { (pin: StudentLocation) -> String in
            if let sentence = away[Self.versionKey(pin)] {
                return namesOnly ? sentence : Formatting.line([sentence, Formatting.link(pin.mediaURL)])
            }
            return
                namesOnly
                ? NamesOnlyWording.announcement(pin, moved: Self.isMove(pin), phrases: phrases)
                : Self.line(pin, phrases: phrases)
        }
        if fresh.count <= limit { return fresh.map(line) }
        let shown = Array(fresh.suffix(limit - 1))
        let more = fresh.count - shown.count
        return shown.map(line) + [phrases("announce.more", ["count": more, "command": prefix + "list"])]
    }

    /// One version of a pin: its objectId and update time.
    static func versionKey(_ pin: StudentLocation) -> String {
        "\(pin.objectId)@\(pin.updatedAt.timeIntervalSinceReferenceDate)"
    }

    /// Whether this version of the pin moved it (rather than made it).
    static func isMove(_ pin: StudentLocation) -> Bool {
        pin.updatedAt.timeIntervalSince(pin.createdAt) > 1
    }

    /// "New pin: Jane Doe — Seattle, WA — https://…".
    static func line(_ pin: StudentLocation, phrases: Phrasebook) -> String {
        Formatting.line([
            phrases(isMove(pin) ? "announce.moved" : "announce.new", ["name": Formatting.name(pin)]),
            Formatting.place(pin.mapString, phrases: phrases), Formatting.link(pin.mediaURL),
        ])
    }
}
