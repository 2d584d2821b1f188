import BotTesting
@testable import ClassKit
import Foundation
import Logging
import OnTheMapApp
import SQLiteDirectory
import Testing

@testable import OnTheMapService

/// A real browser (headless Chromium, Debian's `chromium`) loads the map from a running server
/// backed by a temporary SQLite class, and we check what it rendered. Chromium is required: CI
/// installs it (`.ci/run`, `scripts/install-deps.sh`); without it these tests fail.
@Suite(.tags(.runsAlone), .serialized) struct BrowserTests {
    static let password = "browser-test-password"

    /// A class with four students; Ada and Grace share one spot (a cluster), one name is markup
    /// and its link a script. After the page's first read, Linus posts (the page must show him
    /// without a reload).
    final class LiveClass: Sendable {
        let folder: TemporaryDirectory
        let directory: SQLiteStudentDirectory
        let pins: [String: StudentLocation]
        private let arrival = Arrival()

        actor Arrival {
            var reads = 0
            func read() -> Int {
                reads += 1
                return reads
            }
        }

        init() async throws {
            folder = try TemporaryDirectory(prefix: "webmap-browser")
            directory = try SQLiteStudentDirectory(
                path: folder.file("class.sqlite"),
                options: LocalDirectoryOptions(
                    passwordHasher: PasswordHasher(uncheckedRounds: 1_000), clock: { SteppingClock.shared.next() }))
            var pins: [String: StudentLocation] = [:]
            let students: [(String, String, String, Double, Double, String)] = [
                ("Ada", "Lovelace", "London", 51.5074, -0.1278, "https://ada.example/notes"),
                ("Grace", "Hopper", "London, UK", 51.5074, -0.1278, "https://grace.example/"),
                (
                    "<script>window.pwned=1</script>", "Mallory", "Paris", 48.8566, 2.3522,
                    "javascript:alert(1)"
                ),
                ("Bruno", "Silva", "Lisbon", 38.7223, -9.1393, "http://bruno.example/"),
            ]
            for (first, last, place, lat, lon, link) in students {
                let pin = try await Self.post(
                    directory, first: first, last: last, place: place, lat: lat, lon: lon, link: link)
                pins[first] = pin
            }
            self.pins = pins
        }

        static func post(
            _ directory: SQLiteStudentDirectory, first: String, last: String, place: String, lat: Double,
            lon: Double, link: String
        ) async throws -> StudentLocation {
            let email = "\(UUID().uuidString.prefix(8).lowercased())@class.example"
            let account = try await directory.addAccount(
                email: email, password: BrowserTests.password, firstName: first, lastName: last)
            let session = try await directory.logIn(email: email, password: BrowserTests.password)
            let pin = try await directory.createLocation(
                asTyped: PinDraft(
                    uniqueKey: account.accountKey, firstName: first, lastName: last, mapString: place,
                    mediaURL: link, coordinate: Coordinate(latitude: lat, longitude: lon)),
                session: session)
            try await directory.logOut(session)
            return pin
        }

        /// The feed's load: the directory's pins; after the first read a new student posts.
        func load() async throws -> [StudentLocation] {
            let pins = try await directory.recentLocations(limit: 100, skip: 0)
            if await arrival.read() == 1 {
                _ = try await Self.post(
                    directory, first: "Linus", last: "Torvalds", place: "Helsinki", lat: 60.17, lon: 24.94,
                    link: "https://linus.example/")
            }
            return pins
        }
    }

    /// The server is stopped by cancelling it, which Hummingbird logs as errors: keep only criticals.
    static let quietLogger: Logger = {
        var logger = Logger(label: "test.web")
        logger.logLevel = .critical
        return logger
    }()

    /// Runs the web map's listener on 127.0.0.1, port 0, for the duration of `body`.
    func withRunningServer(_ live: LiveClass, _ body: @Sendable (Int) async throws -> Void) async throws {
        try await withRunningServer(feed: MapPinFeed(maxAge: .zero, load: { try await live.load() }), body)
    }

    func withRunningServer(feed: MapPinFeed, _ body: @Sendable (Int) async throws -> Void) async throws {
        let map = WebMap(
            feed: feed,
            geocoder: FixedGeocoder(places: [
                "lisbon": FixedGeocoder.place("Lisbon, Portugal", 38.7223, -9.1393)
            ]),
            // Pins anyone may read: these scenes are about drawing them (the class map's sign-in
            // has its own browser test).
            assets: try WebMap.Assets.bundled(), access: .anyone, pollSeconds: 2, logger: .init(label: "test.webmap"))
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let server = WebMapServer(
            host: "127.0.0.1", port: 0, webMap: map, onBound: { portContinuation.yield($0) },
            logger: Self.quietLogger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            try await body(port)
            group.cancelAll()
        }
    }

    @Test func chromiumShowsThePinsAPopupWithNameAndLinkAndNewPinsWithoutAReload() async throws {
        let chromium = try Chromium.require()
        let live = try await LiveClass()
        let ada = try #require(live.pins["Ada"])
        try await withRunningServer(live) { port in
            // Budget 9 s of page time: the first read, then polls every 2 s bring Linus in.
            let dom = try await chromium.dumpDOM(
                url: "http://127.0.0.1:\(port)/#pin=\(ada.objectId)", budgetMilliseconds: 9_000,
                in: live.folder)

            // The map is close on Ada's spot; the class's count says Linus arrived without a reload.
            #expect(dom.contains("data-pins=\"5\""), "Linus arrived without a reload")
            // The basemap outline was loaded.
            #expect(dom.contains("<path id=\"land\" d=\"M"))

            // The popup is open on Ada's spot, listing Ada and Grace with their links.
            let popup = try #require(dom.section(from: "<div id=\"popup\"", to: "</ul>"), "no popup\n\(dom)")
            #expect(!popup.contains(" hidden"), "popup still hidden: \(popup)")
            #expect(popup.contains(">Ada Lovelace<"))
            #expect(
                popup.contains(
                    "<a href=\"https://ada.example/notes\" target=\"_blank\" rel=\"noopener noreferrer\""))
            #expect(popup.contains(">Grace Hopper<"))
            #expect(popup.contains(">London<"))

            // The world view: every pin is drawn, single pins plus the students inside clusters,
            // Linus among them.
            let world = try await chromium.dumpDOM(
                url: "http://127.0.0.1:\(port)/", budgetMilliseconds: 5_000, in: live.folder)
            let singles = world.occurrences(of: "<g class=\"pin")
            let clustered = world.matches(of: "data-count=\"(\\d+)\"").compactMap(Int.init).reduce(0, +)
            #expect(singles + clustered == 5, "pins drawn: \(singles) + \(clustered)\n\(world.prefix(3000))")
            #expect(world.contains("Linus Torvalds"))

            // Markup in a name is text; the script link never becomes a link.
            #expect(world.contains("&lt;script&gt;window.pwned=1&lt;/script&gt; Mallory"))
            for page in [dom, world] {
                #expect(!page.contains("<script>window.pwned"))
                #expect(!page.contains("href=\"javascript:"))
            }
        }
    }

    /// A pin taken off the map (`!unpost`, `!pin remove`, `pins remove`) leaves the open page at
    /// its next poll, which asks only for what changed since its last read.
    @Test func aRemovedPinLeavesTheOpenPageAtItsNextPoll() async throws {
        let chromium = try Chromium.require()
        let live = try await LiveClass()
        let bruno = try #require(live.pins["Bruno"])
        let map = ClassMap(directory: live.directory)
        let reads = LiveClass.Arrival()
        let feed = MapPinFeed(maxAge: .zero) {
            if await reads.read() == 2 { _ = try await live.directory.removeLocation(objectId: bruno.objectId) }
            try await map.refresh()
            return try await map.all()
        }
        try await withRunningServer(feed: feed) { port in
            let dom = try await chromium.dumpDOM(
                url: "http://127.0.0.1:\(port)/#tab=table", budgetMilliseconds: 7_000, in: live.folder)
            #expect(await reads.reads >= 3, "the page polled after the removal")
            #expect(dom.contains("data-pins=\"3\""), "\(dom.prefix(2000))")
            #expect(!dom.contains("Bruno Silva"))
            #expect(dom.contains("Ada Lovelace") && dom.contains("Grace Hopper"))
            let cursor = try #require(dom.matches(of: "data-cursor=\"([^\"]+)\"").first)
            #expect(!cursor.isEmpty, "the page asks with a cursor")
        }
    }

    /// A class of 10,000: the page's viewport accounts for every pin as pins and clusters; the
    /// Table tab's first page is the 100 most recent.
    @Test func tenThousandPinsAreDrawn() async throws {
        let chromium = try Chromium.require()
        let folder = try TemporaryDirectory(prefix: "webmap-10k")
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        var pins: [StudentLocation] = []
        for number in 0..<10_000 {
            let latitude = Double(number % 140) - 70
            let longitude = Double((number * 37) % 360) - 180
            pins.append(
                StudentLocation(
                    objectId: "p\(number)", uniqueKey: "k\(number)", firstName: "Student", lastName: "\(number)",
                    mapString: "Somewhere", mediaURL: "https://example.org/\(number)",
                    coordinate: Coordinate(latitude: latitude, longitude: longitude), createdAt: start,
                    updatedAt: start.addingTimeInterval(Double(number))))
        }
        let loaded = pins
        try await withRunningServer(feed: MapPinFeed(maxAge: .seconds(60), load: { loaded })) { port in
            let dom = try await chromium.dumpDOM(
                url: "http://127.0.0.1:\(port)/", budgetMilliseconds: 10_000, in: folder)
            #expect(dom.contains("data-pins=\"10000\""), "\(dom.prefix(2000))")
            let singles = dom.occurrences(of: "<g class=\"pin")
            let clustered = dom.matches(of: "data-count=\"(\\d+)\"").compactMap(Int.init).reduce(0, +)
            #expect(singles + clustered == 10_000, "pins drawn: \(singles) + \(clustered)")
            #expect(clustered > 0, "close pins are clustered")
            let tableTab = try await chromium.dumpDOM(
                url: "http://127.0.0.1:\(port)/#tab=table", budgetMilliseconds: 10_000, in: folder)
            let table = try #require(tableTab.section(from: "<tbody id=\"rows\">", to: "</tbody>"))
            #expect(table.matches(of: "<tr data-id=\"([^\"]+)\"").prefix(2) == ["p9999", "p9998"])
            #expect(table.occurrences(of: "<tr data-id=") == 100)
        }
    }

    @Test func chromiumShowsTheTableTabNewestFirstWithSafeLinks() async throws {
        let chromium = try Chromium.require()
        let live = try await LiveClass()
        try await withRunningServer(live) { port in
            let dom = try await chromium.dumpDOM(
                url: "http://127.0.0.1:\(port)/#tab=table", budgetMilliseconds: 3_000, in: live.folder)
            #expect(
                dom.contains(
                    "<section id=\"view-table\" class=\"view\" role=\"tabpanel\" aria-labelledby=\"tab-table\">"
                ))
            #expect(
                dom.contains(
                    "id=\"view-map\" class=\"view\" role=\"tabpanel\" aria-labelledby=\"tab-map\" hidden"))
            let table = try #require(dom.section(from: "<tbody id=\"rows\">", to: "</tbody>"))
            let rowIDs = table.matches(of: "<tr data-id=\"([^\"]+)\"")
            let expected = ["Bruno", "<script>window.pwned=1</script>", "Grace", "Ada"].compactMap {
                live.pins[$0]?.objectId
            }
            #expect(rowIDs.filter { expected.contains($0) } == expected, "newest first\n\(table)")
            #expect(table.contains(">Bruno Silva<"))
            #expect(table.contains(">Lisbon<"))
            #expect(table.contains("<a href=\"http://bruno.example/\""))
            #expect(table.contains("<span class=\"nolink link\""))
            #expect(table.contains(">javascript:alert(1)<"))
            #expect(table.contains("&lt;script&gt;window.pwned=1&lt;/script&gt; Mallory"))
            #expect(table.contains("<time datetime=\""))
        }
    }

    /// Each student's local time, in the popup and in the table's column, as the zone of the place
    /// their pin shows (the bundled gazetteer's zones, Chromium's clock): Ada's London, and for
    /// Bruno, away until a day three days off, Tokyo's rather than his home Lisbon's.
    @Test func chromiumShowsEachStudentsLocalTimeAndATripUntilItsLastDay() async throws {
        let chromium = try Chromium.require()
        let folder = try TemporaryDirectory(prefix: "webmap-local-time")
        let now = Date()
        let endsAt = now.addingTimeInterval(3 * 86_400)
        var bruno = StudentLocation(
            objectId: "bruno", uniqueKey: "k-bruno", firstName: "Bruno", lastName: "Silva", mapString: "Lisbon",
            mediaURL: "https://bruno.example/", coordinate: Coordinate(latitude: 38.7223, longitude: -9.1393),
            createdAt: now, updatedAt: now)
        bruno.trip = Trip(
            mapString: "Tokyo", coordinate: Coordinate(latitude: 35.6895, longitude: 139.6917), endsAt: endsAt)
        let ada = StudentLocation(
            objectId: "ada", uniqueKey: "k-ada", firstName: "Ada", lastName: "Lovelace", mapString: "London",
            mediaURL: "https://ada.example/", coordinate: Coordinate(latitude: 51.5074, longitude: -0.1278),
            createdAt: now - 60, updatedAt: now - 60)
        let pins = [bruno, ada]
        let feed = MapPinFeed(
            maxAge: .zero, timeZones: PinTimeZones(finder: CommandExampleTests.geocoder), load: { pins })
        /// "Fri 18:45" in `zone` at `date`, as the page writes it.
        @Sendable func local(_ zone: String, _ date: Date) -> String {
            let clock = LocalClock(timeZone: TimeZone(identifier: zone)!, instant: date)
            return "\(clock.weekdayName.prefix(3)) \(clock.timeText)"
        }
        try await withRunningServer(feed: feed) { port in
            let before = Date()
            let popupDOM = try await chromium.dumpDOM(
                url: "http://127.0.0.1:\(port)/#pin=bruno", budgetMilliseconds: 3_000, in: folder)
            let tableDOM = try await chromium.dumpDOM(
                url: "http://127.0.0.1:\(port)/#tab=table", budgetMilliseconds: 3_000, in: folder)
            let after = Date()
            let lastDay = LocalClock(timeZone: TimeZone(identifier: "Asia/Tokyo")!, instant: endsAt - 1).localDay

            let popup = try #require(popupDOM.section(from: "<div id=\"popup\"", to: "</ul>"), "no popup\n\(popupDOM)")
            #expect(popup.contains(">Bruno Silva<"))
            #expect(popup.contains(">Tokyo until \(lastDay.shortText)<"), "\(popup)")
            let tokyo = [before, after].map { "Local time: \(local("Asia/Tokyo", $0))" }
            #expect(tokyo.contains { popup.contains(">\($0)<") }, "\(tokyo) in \(popup)")

            let table = try #require(tableDOM.section(from: "<tbody id=\"rows\">", to: "</tbody>"))
            #expect(tableDOM.contains("<th>Local time</th>"))
            #expect(table.contains(">Tokyo until \(lastDay.shortText)<"))
            for (zone, name) in [("Asia/Tokyo", "Bruno"), ("Europe/London", "Ada")] {
                let texts = [before, after].map { local(zone, $0) }
                #expect(
                    texts.contains { table.contains("data-zone=\"\(zone)\" data-prefix=\"\">\($0)<") },
                    "\(name): \(texts) in \(table)")
            }
        }
    }

    @Test func chromiumTakesAScreenshotOfAFocusedMap() async throws {
        let chromium = try Chromium.require()
        let live = try await LiveClass()
        let ada = try #require(live.pins["Ada"])
        try await withRunningServer(live) { port in
            let focused = try await chromium.dumpDOM(
                url: "http://127.0.0.1:\(port)/?focus=Lisbon", budgetMilliseconds: 3_000, in: live.folder)
            #expect(focused.contains("data-focused=\"true\""))
            #expect(focused.contains("<g class=\"focus\""))
            #expect(focused.contains(">Lisbon, Portugal<"))

            let shot = Chromium.artifactFolder().appendingPathComponent("webmap-popup.png")
            try? FileManager.default.removeItem(at: shot)
            try await chromium.screenshot(
                url: "http://127.0.0.1:\(port)/#pin=\(ada.objectId)", to: shot.path, in: live.folder)
            let png = try Data(contentsOf: shot)
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
            #expect(png.count > 20_000, "a drawn map, not a blank page: \(png.count) bytes")
        }
    }
}

/// Headless Chromium driven from the command line.
struct Chromium {
    let executable: String

    /// `$ONTHEMAP_CHROMIUM` when set, else `chromium` on PATH; a clear failure when there is none.
    static func require() throws -> Chromium {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [String] = []
        if let chosen = environment["ONTHEMAP_CHROMIUM"], !chosen.isEmpty {
            candidates = [chosen]
        } else {
            for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
                for name in ["chromium", "chromium-browser"] { candidates.append("\(folder)/\(name)") }
            }
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw BrowserMissing()
        }
        return Chromium(executable: found)
    }

    struct BrowserMissing: Error, CustomStringConvertible {
        var description: String {
            "headless Chromium is required for the web map browser tests but none was found "
                + "(`chromium` on PATH, or $ONTHEMAP_CHROMIUM): "
                + "install it with `apt-get install chromium` (scripts/install-deps.sh does) "
                + "or set ONTHEMAP_CHROMIUM to its path"
        }
    }

    /// `.build/test-artifacts` of this package, where screenshots are kept.
    static func artifactFolder(file: String = #filePath) -> URL {
        let root = URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let folder = root.appendingPathComponent(".build/test-artifacts")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    func arguments(profile: String) -> [String] {
        [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", "--hide-scrollbars", "--user-data-dir=\(profile)",
            "--window-size=1200,800",
        ]
    }

    /// The DOM after the page's scripts ran for `budgetMilliseconds` of virtual time.
    func dumpDOM(url: String, budgetMilliseconds: Int, in folder: TemporaryDirectory) async throws -> String {
        let output = folder.file("dom-\(UUID().uuidString.prefix(8)).html")
        let profile = folder.file("profile-\(UUID().uuidString.prefix(8))")
        try await run(
            arguments(profile: profile) + ["--virtual-time-budget=\(budgetMilliseconds)", "--dump-dom", url],
            stdout: output)
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    /// A PNG of the page after its scripts ran.
    func screenshot(url: String, to path: String, in folder: TemporaryDirectory) async throws {
        let profile = folder.file("profile-\(UUID().uuidString.prefix(8))")
        let log = folder.file("screenshot.log")
        try await run(
            arguments(profile: profile) + ["--virtual-time-budget=3000", "--screenshot=\(path)", url],
            stdout: log)
    }

    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs chromium with stdout into `stdout` (a file: DOM dumps outgrow a pipe), stopping it
    /// after two minutes.
    func run(_ arguments: [String], stdout: String) async throws {
        guard FileManager.default.createFile(atPath: stdout, contents: nil) else {
            throw Failed(description: "cannot create \(stdout)")
        }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: stdout))
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let box = ProcessBox(process)
        let watchdog = Task {
            try? await Task.sleep(for: .seconds(120))
            if box.process.isRunning { box.process.terminate() }
        }
        defer { watchdog.cancel() }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        guard status == 0 else {
            throw Failed(description: "chromium exited with \(status): \(arguments.last ?? "")")
        }
    }
}

/// A clock that moves one second on every reading, so pins posted one after another have
/// distinct times (the table's order is then certain).
final class SteppingClock: @unchecked Sendable {
    static let shared = SteppingClock()
    private let lock = NSLock()
    private var seconds = 0.0

    func next() -> Date {
        lock.lock()
        defer { lock.unlock() }
        seconds += 1
        return Date().addingTimeInterval(seconds)
    }
}

/// Keeps a `Process` alive while it runs.
final class ProcessBox: @unchecked Sendable {
    let process: Process
    init(_ process: Process) { self.process = process }
}

extension String {
    func occurrences(of needle: String) -> Int {
        components(separatedBy: needle).count - 1
    }

    /// The first capture group of every match of `pattern`.
    func matches(of pattern: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(startIndex..., in: self)
        return regex.matches(in: self, range: range).compactMap { match in
            Range(match.range(at: 1), in: self).map { String(self[$0]) }
        }
    }

    /// The text from the first `start` up to and including the next `end`.
    func section(from start: String, to end: String) -> String? {
        guard let lower = range(of: start), let upper = range(of: end, range: lower.upperBound..<endIndex)
        else {
            return nil
        }
        return String(self[lower.lowerBound..<upper.upperBound])
    }
}
