import BotKit
import BotTesting
import ClassKit
import Foundation
import HTTPBackends
import Logging
import OnTheMapPlugins
import OnTheMapService
import Testing

/// Every class command that touches the backend, against the real Udacity-compatible client and
/// the real Nominatim client talking to local fake servers that are down, slow or answer
/// garbage: each command answers within the client's timeout (plus a margin) with the right
/// human sentence, nothing hangs, nothing changes, and once the server is healthy again the same
/// commands work with the same bot (no restart).
@Suite(.tags(.runsAlone)) struct BackendOutageTests {
    /// How the fake server misbehaves.
    enum Outage: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Stopped: connections are refused.
        case down
        /// Answers only after the client has given up.
        case slow
        /// 200 with an HTML page.
        case htmlPage
        /// 200 with truncated JSON.
        case malformedJSON
        /// 500 with a JSON error.
        case serverError

        var testDescription: String { rawValue }
    }

    /// The client's request timeout (long enough that a healthy answer on a loaded machine, e.g.
    /// under AddressSanitizer amid the parallel suite, never hits it), and how long a slow server
    /// takes (much longer).
    static let clientTimeout = Duration.seconds(2)
    static let slowServerDelay = Duration.seconds(9)
    /// The longest a command may take during an outage: the client timeout and a generous margin
    /// for a loaded machine, still well below the slow server's delay.
    static let answerLimit = Duration.milliseconds(6_000)

    static let unreachable = "I could not reach the class directory just now; please try again in a minute."
    static let notUnderstood =
        "The class directory answered something I could not understand; please try again later."
    static let serverFailed =
        "The class directory had a problem (error 500); nothing was changed. Please try again later."
    static let pinKept =
        " Your place and link are kept: send !link <link> to try again, or !cancel."

    /// What a command that reads the directory says for `outage`.
    static func directorySentence(_ outage: Outage) -> String {
        switch outage {
        case .down, .slow: unreachable
        case .htmlPage, .malformedJSON: notUnderstood
        case .serverError: serverFailed
        }
    }

    /// What the second step of `!post` says for `outage` (the draft is kept for a retry).
    static func saveSentence(_ outage: Outage) -> String {
        switch outage {
        case .down, .slow: "I could not reach the class directory, so your pin was not saved." + pinKept
        case .htmlPage, .malformedJSON, .serverError:
            "Your pin was not saved. " + directorySentence(outage) + pinKept
        }
    }

    /// A class on the fake Udacity API with the Nominatim client on the fake geocoder.
    struct OutageClass {
        static let alice = FakeUdacityServer.Account(
            email: "alice@class.test", password: "alice-pw-123", key: "u-alice", firstName: "Alice",
            lastName: "Liddell")
        static let bob = FakeUdacityServer.Account(
            email: "bob@class.test", password: "bob-pw-456", key: "u-bob", firstName: "Bob", lastName: "Builder")

        let udacity: FakeUdacityServer
        let nominatim: FakeNominatimServer
        let directory: UdacityStudentDirectory
        let geocoder: NominatimGeocoder
        let services: ClassServices
        let bot: TestBot<StudentLogin>

        static func start() async throws -> OutageClass {
            let now = Date()
            let udacity = FakeUdacityServer(
                accounts: [alice, bob],
                locations: [
                    .init(
                        objectId: "pin-bob", uniqueKey: bob.key, firstName: "Bob", lastName: "Builder",
                        mapString: "Paris, France", mediaURL: "https://bob.example", latitude: 48.8566,
                        longitude: 2.3522, createdAt: now.addingTimeInterval(-3600),
                        updatedAt: now.addingTimeInterval(-3600))
                ],
                neverAnswerDelay: .seconds(30))
            let nominatim = FakeNominatimServer()
            let quiet = Logger(label: "outage", factory: { _ in SwiftLogNoOpLogHandler() })
            let directory = try UdacityStudentDirectory(
                configuration: .init(
                    baseURL: try await udacity.start().absoluteString, connectTimeout: clientTimeout,
                    requestTimeout: clientTimeout),
                logger: quiet)
            let geocoder = try NominatimGeocoder(
                configuration: .init(
                    baseURL: try await nominatim.start().absoluteString, userAgent: "OutageTests/1.0 (test)",
                    minimumInterval: .milliseconds(1), connectTimeout: clientTimeout,
                    requestTimeout: clientTimeout),
                logger: quiet)
            // A public class: these rows are about what an outage answers, asked by anyone (who may
            // ask is the class visibility's tests' business).
            let services = ClassServices(
                directory: directory, trips: nil, geocoder: geocoder, places: nil,
                settings: ClassSettings(announceChannels: ["#class"], privacy: PrivacyPolicy(visibility: .public)))
            // (Each line is said two minutes after the last, past every command's cooldown.)
            let plugins = ClassPlugins.make(enabled: ClassPlugins.names, services: services)
            let bot = TestBot<StudentLogin>(
                plugins: plugins + [CorePlugin()],
                settings: CommandRouter.Settings(
                    commandTimeout: .seconds(15), floodGuard: CommandFloodGuard(maxCommands: 10_000)),
                gate: services.logins)
            return OutageClass(
                udacity: udacity, nominatim: nominatim, directory: directory, geocoder: geocoder,
                services: services, bot: bot)
        }

        func shutdown() async {
            await udacity.stop()
            await nominatim.stop()
            await directory.shutdown()
            await geocoder.shutdown()
        }

        /// Says `text` privately as `nick`; returns the texts of the answer and how long it took.
        func dm(_ text: String, as nick: String = "alice") async -> (texts: [String], took: Duration) {
            bot.clock.advance(by: .seconds(120))
            let started = ContinuousClock.now
            let lines = await bot.dm(text, as: nick)
            return (lines.filter { $0.target == nick }.map(\.text), ContinuousClock.now - started)
        }

        /// Says `text` in #class as `nick`; returns the texts (without "nick: ") and the time.
        func say(_ text: String, as nick: String = "carol") async -> (texts: [String], took: Duration) {
            bot.clock.advance(by: .seconds(120))
            let started = ContinuousClock.now
            let lines = await bot.say(text, in: "#class", as: nick)
            let texts = lines.filter { $0.target == "#class" }.map {
                $0.text.hasPrefix("\(nick): ") ? String($0.text.dropFirst(nick.count + 2)) : $0.text
            }
            return (texts, ContinuousClock.now - started)
        }

        func breakDirectory(_ outage: Outage) async throws {
            switch outage {
            case .down: await udacity.stop()
            case .slow: await udacity.setFault(.slowAnswer(slowServerDelay))
            case .htmlPage: await udacity.setFault(.htmlPage)
            case .malformedJSON: await udacity.setFault(.malformedJSON)
            case .serverError: await udacity.setFault(.serverError(500))
            }
        }

        func healDirectory() async throws {
            await udacity.clearFaults()
            _ = try await udacity.start()
        }

        func breakGeocoder(_ outage: Outage) async {
            switch outage {
            case .down: await nominatim.stop()
            case .slow: await nominatim.setDelay(slowServerDelay)
            case .htmlPage, .malformedJSON: await nominatim.setGarbage(true)
            case .serverError: await nominatim.setFailure(status: 500)
            }
        }

        func healGeocoder() async throws {
            await nominatim.setDelay(nil)
            await nominatim.setGarbage(false)
            await nominatim.setFailure(status: nil)
            _ = try await nominatim.start()
        }
    }

    /// One row of the table: a command, where it is said, and what it must answer.
    struct Row {
        var command: String
        var inChannel: Bool
        var expected: String
    }

    static func check(
        _ row: Row, on school: OutageClass, _ outage: Outage, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let (texts, took) =
            row.inChannel ? await school.say(row.command) : await school.dm(row.command)
        #expect(
            texts == [row.expected], "\(row.command) during \(outage.rawValue)",
            sourceLocation: sourceLocation)
        #expect(
            took < answerLimit, "\(row.command) during \(outage.rawValue) took \(took)",
            sourceLocation: sourceLocation)
    }

    @Test(.timeLimit(.minutes(2)), arguments: Outage.allCases)
    func everyDirectoryCommandAnswersInTimeAndRecovers(_ outage: Outage) async throws {
        let school = try await OutageClass.start()
        defer { Task { await school.shutdown() } }
        // Healthy: alice logs in and opens a post (place found); carol has not logged in.
        #expect(
            await school.dm("!login alice@class.test alice-pw-123").texts.first?.hasPrefix("Welcome, Alice") == true)
        #expect(await school.dm("!post Tokyo").texts.first?.hasPrefix("Found Tokyo") == true)
        let sessionsBefore = await school.udacity.activeSessionCount
        let pinsBefore = await school.udacity.locations()

        try await school.breakDirectory(outage)
        let sentence = Self.directorySentence(outage)
        let rows = [
            // The second step of !post (the place is already found).
            Row(command: "!link https://alice.example/tokyo", inChannel: false, expected: Self.saveSentence(outage)),
            Row(command: "!login bob@class.test bob-pw-456", inChannel: false, expected: sentence),
            Row(command: "!where Builder", inChannel: true, expected: sentence),
            Row(command: "!near Paris", inChannel: true, expected: sentence),
            Row(command: "!near", inChannel: false, expected: sentence),
            Row(command: "!list", inChannel: false, expected: sentence),
            Row(command: "!refresh", inChannel: true, expected: sentence),
        ]
        for row in rows { await Self.check(row, on: school, outage) }
        // The first step of !post looks up the student's pin (the open step is cancelled first: in
        // step 2 a new place is refused without asking anyone).
        #expect(await school.dm("!cancel").texts.count == 1)
        await Self.check(Row(command: "!post Lima", inChannel: false, expected: sentence), on: school, outage)
        // Commands that need no backend still answer, and at once.
        #expect(await school.say("!whoami", as: "bob").texts.first?.hasPrefix("You are not logged in.") == true)
        #expect(await school.dm("!whoami").texts.first?.hasPrefix("You are logged in as Alice Liddell") == true)
        #expect(await school.say("!map").texts.first?.hasPrefix("The web map is not turned on") == true)
        #expect(await school.say("!ping").texts == ["pong"])
        // The router has nothing left running, and nothing changed on the server.
        await school.bot.router.waitUntilIdle()
        // Requests the client gave up on are handled by a slow server later: wait for them.
        await school.udacity.waitUntilSlowAnswersAreHandled()
        #expect(await school.udacity.locations() == pinsBefore)
        if outage != .slow {
            // (A slow server completes the login the client gave up on: a session the bot never
            // saw, which expires on the server. The bot's own state is checked below.)
            #expect(await school.udacity.activeSessionCount == sessionsBefore)
        }
        // Bob's failed login left no session behind.
        #expect(await school.dm("!whoami", as: "bob").texts.first?.hasPrefix("You are not logged in.") == true)

        // Healthy again: the same commands work, with the same bot.
        try await school.healDirectory()
        #expect(await school.dm("!post Tokyo").texts.first?.hasPrefix("Found Tokyo") == true)
        let saved = await school.dm("!link https://alice.example/tokyo").texts
        #expect(saved.first?.hasPrefix("You are on the map: Alice Liddell — Tokyo") == true, "\(saved)")
        #expect(
            await school.dm("!login bob@class.test bob-pw-456", as: "bob").texts.first?.hasPrefix("Welcome, Bob")
                == true)
        #expect(await school.say("!where Builder").texts.first?.hasPrefix("Bob Builder — Paris, France") == true)
        let nearParis = await school.say("!near Paris").texts
        #expect(nearParis.dropFirst().first?.hasPrefix("Bob Builder") == true, "\(nearParis)")
        #expect(await school.dm("!near").texts.first == "Nearest to your pin (Tokyo, Japan):")
        #expect(await school.dm("!list").texts.first?.hasPrefix("The 2 most recent posts") == true)
        #expect(await school.say("!refresh").texts.first?.hasPrefix("Refreshed: 2 posts on the map") == true)
        #expect(await school.dm("!post Lima").texts.first?.hasPrefix("Found Lima") == true)
        #expect(await school.dm("!logout").texts.first?.hasPrefix("You are logged out, Alice Liddell") == true)
        #expect(Set(await school.udacity.locations().map(\.uniqueKey)) == ["u-alice", "u-bob"])
    }

    @Test(.timeLimit(.minutes(2))) func logoutDuringAnOutageEndsTheLocalSessionAtOnce() async throws {
        let school = try await OutageClass.start()
        defer { Task { await school.shutdown() } }
        #expect(await school.dm("!login alice@class.test alice-pw-123").texts.first?.hasPrefix("Welcome") == true)
        try await school.breakDirectory(.slow)
        let (texts, took) = await school.dm("!logout")
        #expect(texts == ["You are logged out, Alice Liddell. See you soon!"])
        #expect(took < Self.answerLimit)
        #expect(await school.dm("!whoami").texts.first?.hasPrefix("You are not logged in.") == true)
        try await school.healDirectory()
        #expect(await school.dm("!login alice@class.test alice-pw-123").texts.first?.hasPrefix("Welcome") == true)
    }

    static func geocoderSentence(_ outage: Outage) -> String {
        switch outage {
        case .down, .slow: "I could not reach the place finder just now; please try again in a minute."
        case .htmlPage, .malformedJSON, .serverError:
            "The place finder had a problem just now; nothing was changed. Please try again later."
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: Outage.allCases)
    func geocodingCommandsAnswerInTimeAndRecover(_ outage: Outage) async throws {
        let school = try await OutageClass.start()
        defer { Task { await school.shutdown() } }
        #expect(await school.dm("!login alice@class.test alice-pw-123").texts.first?.hasPrefix("Welcome") == true)

        await school.breakGeocoder(outage)
        let sentence = Self.geocoderSentence(outage)
        await Self.check(Row(command: "!near Tokyo", inChannel: true, expected: sentence), on: school, outage)
        await Self.check(Row(command: "!post Tokyo", inChannel: false, expected: sentence), on: school, outage)
        await Self.check(
            Row(command: "!post Seattle | https://alice.example", inChannel: false, expected: sentence), on: school,
            outage)
        // No flow was opened, no pin saved.
        #expect(
            await school.dm("!link https://alice.example").texts.first?.hasPrefix("First tell me where you are")
                == true)
        #expect(await school.udacity.locations().count == 1)

        try await school.healGeocoder()
        let nearTokyo = await school.say("!near Tokyo").texts
        #expect(nearTokyo.dropFirst().first?.hasPrefix("Bob Builder") == true, "\(nearTokyo)")
        #expect(await school.dm("!post Tokyo").texts.first?.hasPrefix("Found Tokyo, Japan") == true)
        let saved = await school.dm("!link https://alice.example").texts
        #expect(saved.first?.hasPrefix("You are on the map: Alice Liddell — Tokyo") == true, "\(saved)")
    }
}
