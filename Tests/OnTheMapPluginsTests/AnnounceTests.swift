import BotKit
import BotTesting
import ClassKit
import Foundation
import Localization
import OnTheMapPlugins
import OnTheMapService
import Testing

@Suite(.tags(.startsProcesses)) struct AnnounceTests {
    /// An announcer that polls every 50 ms.
    static func fastAnnouncer(_ services: ClassServices) -> [any Plugin] {
        [AnnouncePlugin(services: .init(services), settings: .init(pollInterval: .milliseconds(50)))]
    }

    /// Runs the bot's background plugins while `body` runs.
    static func withAnnouncer(_ fixture: ClassFixture, _ body: () async throws -> Void) async throws {
        let router = fixture.bot.router
        let running = Task { await router.runBackgroundPlugins() }
        do {
            try await body()
        } catch {
            running.cancel()
            await running.value
            throw error
        }
        running.cancel()
        await running.value
    }

    /// Waits until the bot has said `count` lines in `channel` (or a minute passes, when it never
    /// does) and returns them.
    static func channelLines(_ fixture: ClassFixture, _ channel: String = "#class", count: Int) async throws
        -> [String]
    {
        await fixture.bot.transport.waitForSent { sent in sent.filter { $0.target == channel }.count >= count }
            .filter { $0.target == channel }.map(\.text)
    }

    /// What the announcer logs at the end of each round (whatever it found).
    static let roundFinished = "announcer round finished"

    /// Waits until the announcer has made its first round (and saved what it knows): looks again
    /// after each round it finishes.
    static func waitUntilStarted(_ fixture: ClassFixture) async throws {
        while try await fixture.sqlite.state(AnnouncementLedger.stateKey) == nil {
            try await waitForRounds(fixture.log, 1)
        }
    }

    /// Waits until the announcer has finished `more` rounds after those it has finished so far.
    static func waitForRounds(_ log: WaitableLines, _ more: Int) async throws {
        try await waitForRound(log, number: log.count(containing: roundFinished) + more)
    }

    /// Waits until the announcer has finished its `number`th round (counted since it started).
    static func waitForRound(_ log: WaitableLines, number: Int) async throws {
        let done = await log.wait(timeout: .seconds(60)) { lines in
            lines.reduce(0) { $0 + ($1.contains(roundFinished) ? 1 : 0) } >= number
        }
        try #require(done, "the announcer did not finish its round \(number)")
    }

    /// Waits for two more whole rounds: the second began after this call, so whatever it would
    /// have said about what happened before is said by the time this returns.
    static func settle(_ fixture: ClassFixture) async throws { try await waitForRounds(fixture.log, 2) }

    @Test func firstStartIsQuietThenNewPinsAreAnnouncedExactlyOnce() async throws {
        let fixture = try ClassFixture(replacing: Self.fastAnnouncer)
        try await fixture.addPin(
            email: "old@class.test", first: "Old", last: "Timer", place: "Rome",
            at: Coordinate(latitude: 41.9, longitude: 12.5))
        try await Self.withAnnouncer(fixture) {
            try await Self.waitUntilStarted(fixture)
            try await Self.settle(fixture)
            #expect(fixture.bot.transport.sent.filter { $0.target == "#class" }.isEmpty)
            try await fixture.addPin(
                email: "new@class.test", first: "New", last: "Comer", place: "Lisbon",
                at: Coordinate(latitude: 38.72, longitude: -9.14), link: "https://new.example")
            let lines = try await Self.channelLines(fixture, count: 1)
            #expect(lines == ["New pin: New Comer — Lisbon — https://new.example"])
            try await Self.settle(fixture)
            #expect(fixture.bot.transport.sent.filter { $0.target == "#class" }.count == 1)
        }
        // The map was refreshed by the polls.
        #expect(await fixture.dm("!where comer", as: "bob").first?.hasPrefix("New Comer — Lisbon") == true)
    }

    @Test func aRestartAnnouncesNothingOldButWhatCameWhileAway() async throws {
        let folder = try TemporaryDirectory(prefix: "announce-restart")
        let first = try ClassFixture(folder: folder, replacing: Self.fastAnnouncer)
        try await first.addPin(
            email: "a@class.test", first: "Ann", last: "Early", place: "Quito",
            at: Coordinate(latitude: -0.18, longitude: -78.47))
        try await Self.withAnnouncer(first) { try await Self.waitUntilStarted(first) }
        try await first.addPin(
            email: "b@class.test", first: "Ben", last: "Announced", place: "Lima",
            at: Coordinate(latitude: -12.05, longitude: -77.04))
        try await Self.withAnnouncer(first) {
            let lines = try await Self.channelLines(first, count: 1)
            #expect(lines.count == 1)
        }
        #expect(
            first.bot.transport.sent.filter { $0.target == "#class" }.map(\.text).first?.contains(
                "Ben Announced") == true)
        try first.sqlite.close()

        // While the bot is away, one more pin.
        let second = try ClassFixture(folder: folder, replacing: Self.fastAnnouncer)
        try await second.addPin(
            email: "c@class.test", first: "Cy", last: "Away", place: "Bogota",
            at: Coordinate(latitude: 4.71, longitude: -74.07))
        try await Self.withAnnouncer(second) {
            let lines = try await Self.channelLines(second, count: 1)
            try await Self.settle(second)
            #expect(lines.count == 1)
            #expect(
                second.bot.transport.sent.filter { $0.target == "#class" }.map(\.text) == [
                    "New pin: Cy Away — Bogota — https://example.org/me"
                ])
        }
    }

    @Test func aBurstBecomesOneSummaryLine() async throws {
        let fixture = try ClassFixture(replacing: Self.fastAnnouncer)
        try await Self.withAnnouncer(fixture) { try await Self.waitUntilStarted(fixture) }
        for index in 1...9 {
            try await fixture.addPin(
                email: "b\(index)@class.test", first: "Burst", last: "No\(index)", place: "Place \(index)",
                at: Coordinate(latitude: Double(index), longitude: Double(index)))
        }
        try await Self.withAnnouncer(fixture) {
            let lines = try await Self.channelLines(fixture, count: 3)
            try await Self.settle(fixture)
            #expect(
                lines == [
                    "New pin: Burst No8 — Place 8 — https://example.org/me",
                    "New pin: Burst No9 — Place 9 — https://example.org/me",
                    "… and 7 more new pins (!list shows them all)",
                ])
            #expect(fixture.bot.transport.sent.filter { $0.target == "#class" }.count == 3)
        }
    }

    /// Stands in for PostgreSQL LISTEN/NOTIFY.
    final class NotifyingStub: PinChangeNotifying {
        let stream: AsyncStream<String>
        let continuation: AsyncStream<String>.Continuation
        init() { (stream, continuation) = AsyncStream.makeStream(of: String.self) }
        func pinChanges() async throws -> AsyncStream<String> { stream }
    }

    @Test func aNotificationWakesTheAnnouncerBeforeThePoll() async throws {
        let folder = try TemporaryDirectory(prefix: "announce-notify")
        let base = try ClassFixture(folder: folder)
        let notifications = NotifyingStub()
        // Polls only once an hour: only the notification can explain a quick announcement.
        let services = ClassServices(
            directory: base.directory, trips: base.directory, stateStore: base.sqlite, pinChanges: notifications,
            geocoder: SharedGazetteer.geocoder, places: SharedGazetteer.geocoder,
            settings: ClassSettings(announceChannels: ["#class"]))
        let log = WaitableLines()
        let bot = TestBot(
            plugins: [AnnouncePlugin(services: .init(services), settings: .init(pollInterval: .seconds(3600)))],
            logger: WaitableLogHandler.logger(log))
        let running = Task { await bot.router.runBackgroundPlugins() }
        defer { running.cancel() }
        // The first round (at start) saves what the announcer knows.
        try await Self.waitForRound(log, number: 1)
        try #require(try await base.sqlite.state(AnnouncementLedger.stateKey) != nil)
        // The round right after start is skipped (the bot may not have joined yet): wake it once,
        // and wait until that round is over.
        notifications.continuation.yield("nothing-yet")
        try await Self.waitForRound(log, number: 2)
        let pin = try await base.addPin(
            email: "n@class.test", first: "Nora", last: "Notified", place: "Kyiv",
            at: Coordinate(latitude: 50.45, longitude: 30.52))
        notifications.continuation.yield(pin.objectId)
        await bot.transport.waitForSent { !$0.isEmpty }
        #expect(bot.transport.sent.map(\.text) == ["New pin: Nora Notified — Kyiv — https://example.org/me"])
        #expect(bot.transport.sent.map(\.target) == ["#class"])
    }

    @Test func summaryLines() {
        let pins = (1...10).map { index in
            StudentLocation(
                objectId: "o\(index)", uniqueKey: "k\(index)", firstName: "P", lastName: "\(index)",
                mapString: "X",
                mediaURL: "https://x.example", coordinate: Coordinate(latitude: 0, longitude: 0),
                createdAt: Date(timeIntervalSince1970: Double(index)),
                updatedAt: Date(timeIntervalSince1970: Double(index)))
        }
        #expect(AnnouncePlugin.lines(for: Array(pins.prefix(3)), burstLimit: 3, phrases: .english).count == 3)
        let burst = AnnouncePlugin.lines(for: pins, burstLimit: 3, phrases: .english)
        #expect(
            burst == [
                "New pin: P 9 — X — https://x.example", "New pin: P 10 — X — https://x.example",
                "… and 8 more new pins (!list shows them all)",
            ])
    }
}
