import BotKit
import BotTesting
@testable import ClassKit
import Foundation
import IRCProtocol
import Logging
import NIOConcurrencyHelpers
import OnTheMapPlugins
import SQLiteDirectory
import Testing

@testable import OnTheMapService

/// `!mydata`, `!forget` and `!forget confirm` on the real router over a real SQLite class: what the
/// bot keeps about a student is listed without secrets, and an erasure takes all of it (directory,
/// kept state, sessions) after a confirmation, and nothing without one.
@Suite struct PrivacyTests {
    /// A class whose plugins read back their kept state, as the bot does at start.
    static func start(_ folder: TemporaryDirectory? = nil, settings: ClassSettings? = nil) async throws -> ClassFixture
    {
        let fixture = try ClassFixture(
            settings: settings ?? ClassSettings(announceChannels: ["#class"]),
            folder: folder ?? TemporaryDirectory(prefix: "privacy"))
        await fixture.bot.router.restorePlugins()
        return fixture
    }

    /// Jane with a pin in Seattle, logged in as "jane", with a unit choice and an open post step.
    static func janeWithEverything(_ fixture: ClassFixture) async throws -> StudentLocation {
        let seattle = try await SharedGazetteer.coordinate(of: "Seattle, WA")
        let pin = try await fixture.addPin(
            email: "jane@class.test", first: "Jane", last: "Doe", place: "Seattle, WA", at: seattle)
        #expect(await fixture.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
        #expect(await fixture.dm("!units mi", as: "jane") == ["OK, I will show you distances in miles (mi)."])
        let step = await fixture.dm("!post Paris", as: "jane")
        #expect(step.contains { $0.hasPrefix("Now send your link") }, "\(step)")
        return pin
    }

    static func stored(_ fixture: ClassFixture, _ key: String) async throws -> String {
        try await fixture.sqlite.state(key) ?? ""
    }

    @Test func myDataListsWhatIsKeptAndWhenWithoutSecrets() async throws {
        let fixture = try await Self.start()
        let pin = try await Self.janeWithEverything(fixture)
        let link = try await SignInLinks(store: fixture.sqlite, now: fixture.bot.now).issue(accountKey: pin.uniqueKey)
        let lines = await fixture.dm("!mydata", as: "jane")
        #expect(lines.count == 6, "\(lines)")
        let time = { (date: Date) -> String in
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd HH:mm"
            return formatter.string(from: date) + " UTC"
        }
        let account = try #require(try await fixture.sqlite.accountRecord(.key(pin.uniqueKey))).account
        #expect(
            lines.first
                == "Account: jane@class.test, Jane Doe (created \(time(account.createdAt))); others see your name in full."
        )
        let coordinate = String(format: "%.4f, %.4f", pin.coordinate.latitude, pin.coordinate.longitude)
        #expect(
            lines.dropFirst().first
                == "Pin: Seattle, WA (\(coordinate)), kept at exact level, posted \(time(pin.createdAt)), last changed \(time(pin.updatedAt)); your level: city (the class default)."
        )
        #expect(
            lines.dropFirst(2).first
                == "Sessions: 1 in the directory (latest started \(time(fixture.now))); trusted hosts: 1 (last login \(time(fixture.now))); "
                + "an unused sign-in link to the class map (kept as a digest), working until \(time(fixture.now.addingTimeInterval(SignInLinks.lifetime))); "
                + "no feed addresses (!mydata links gives you private ones for calendar and map apps)."
        )
        #expect(
            lines.dropFirst(3).first
                == "Open post step: Paris, Île-de-France, France, waiting for your link (since \(time(fixture.now))); unit choice: mi (since \(time(fixture.now)))."
        )
        // What the operator's log may hold, as the class's log.student_data says.
        #expect(
            lines.last?.hasPrefix("The operator's log keeps which commands were sent and when, under a code name")
                == true)
        let all = lines.joined(separator: "\n")
        #expect(!all.contains(ClassFixture.password))
        #expect(!all.contains(pin.uniqueKey))
        #expect(!all.contains(link.split(separator: ".").last.map(String.init) ?? link))
        let export = try #require(
            try await StudentDataExport.make(.key(pin.uniqueKey), accounts: fixture.sqlite, store: fixture.sqlite))
        let expiry = try #require(export.signInLinkExpiresAt)
        #expect(abs(expiry.timeIntervalSince(fixture.now.addingTimeInterval(SignInLinks.lifetime))) < 0.01)
    }

    @Test func theCommandsArePrivateAndNeedALogin() async throws {
        let fixture = try await Self.start()
        _ = try await Self.janeWithEverything(fixture)
        for command in ["!mydata", "!forget", "!forget confirm"] {
            let inChannel = await fixture.say(command, as: "jane").map(\.text).joined(separator: "\n")
            #expect(inChannel.contains("works only in a private message"), "\(inChannel)")
            #expect(!inChannel.contains("jane@class.test"))
            let stranger = await fixture.dm(command, as: "bob").joined(separator: "\n")
            #expect(stranger.contains("login"), "\(stranger)")
        }
        #expect(try await fixture.sqlite.listAccounts().map(\.email) == ["jane@class.test"])
    }

    @Test func forgetShowsThenConfirmErasesEverythingKeptAboutTheStudent() async throws {
        let fixture = try await Self.start()
        // Jane logs in under her services account, so that her session is kept across restarts.
        let jane = fixture.bot.user("jane", account: "JaneAccount")
        func dm(_ text: String) async -> [String] {
            await fixture.bot.say(text, from: jane, origin: .privateMessage).map(\.text)
        }
        let pin = try await fixture.addPin(
            email: "jane@class.test", first: "Jane", last: "Doe", place: "Seattle, WA",
            at: SharedGazetteer.coordinate(of: "Seattle, WA"))
        #expect(await dm("!login jane@class.test \(ClassFixture.password)").first?.hasPrefix("Welcome") == true)
        _ = await dm("!units mi")
        _ = await dm("!post Paris")
        let key = pin.uniqueKey
        try await fixture.sqlite.setState("precision/\(key)", "region")
        _ = try await SignInLinks(store: fixture.sqlite).issue(accountKey: key)
        #expect(try await fixture.sqlite.state("signin/\(key)") != nil)
        #expect(await fixture.dm("!where Doe", as: "bob").first?.hasPrefix("Jane Doe — Seattle, WA") == true)

        #expect(
            await dm("!forget") == [
                "This erases for good: your account (jane@class.test, Jane Doe), your pin (Seattle, WA), your 1 session "
                    + "on every network, the hosts trusted for your logins, your privacy choices, open post step and unit choice.",
                "You will be logged out and need a new account to come back. "
                    + "Say !forget confirm within 5 minutes to erase it; nothing changes until you do.",
            ])
        #expect(try await fixture.sqlite.accountRecord(.key(key)) != nil)
        #expect(
            await dm("!forget everything") == [
                "Usage: !forget to see what would be erased, then !forget confirm to erase it."
            ])
        #expect(try await fixture.sqlite.accountRecord(.key(key))?.pin == pin)
        #expect(try await Self.stored(fixture, "login.trusted").contains("jane@class.test"))
        #expect(try await Self.stored(fixture, "sessions").contains(key))
        #expect(try await Self.stored(fixture, "post.flows").contains(key))
        #expect(try await Self.stored(fixture, "units").contains("a:janeaccount"))
        // Every value kept is claimed by the registry that erasure and export read, and the export
        // finds each of Jane's.
        for storeKey in try await fixture.sqlite.stateKeys(prefix: "") {
            #expect(KeptStateRegistry.entry(claiming: storeKey) != nil, "\(storeKey) is in no KeptStateRegistry entry")
        }
        let export = try #require(
            try await StudentDataExport.make(.key(key), accounts: fixture.sqlite, store: fixture.sqlite))
        #expect(export.chosenPrecision == "region" && export.signInLinkExpiresAt != nil)
        #expect(!export.keptSessions.isEmpty && !export.unitChoices.isEmpty && !export.openPosts.isEmpty)
        #expect(!export.trustedHosts.isEmpty)

        let erasedAnswer = await dm("!forget confirm")
        #expect(
            erasedAnswer == [
                "Erased: your account (email and name), your pin (Seattle, WA), 1 directory session, 1 IRC session, "
                    + "1 trusted host, your unit choice, your open post step. "
                    + "You are logged out and nothing of yours is left in this bot's data. Goodbye!",
                "The operator's log keeps which commands were sent and when, under a code name, never what you typed; "
                    + "old log lines stay as long as the operator keeps log files.",
            ], "\(erasedAnswer)")
        #expect(try await fixture.sqlite.accountRecord(.key(key)) == nil)
        #expect(try await fixture.sqlite.location(ofAccount: key) == nil)
        // The class map, which the web map reads, forgot the pin at once.
        #expect(try await fixture.services.classMap.pin(objectId: pin.objectId) == nil)
        #expect(try await fixture.sqlite.state("precision/\(key)") == nil)
        #expect(try await fixture.sqlite.state("signin/\(key)") == nil, "the live sign-in link is gone too")
        #expect(try await !Self.stored(fixture, "login.trusted").contains("jane@class.test"))
        #expect(try await !Self.stored(fixture, "sessions").contains(key))
        #expect(try await !Self.stored(fixture, "post.flows").contains(key))
        #expect(try await !Self.stored(fixture, "units").contains("a:janeaccount"))
        for storeKey in try await fixture.sqlite.stateKeys(prefix: "") {
            let text = try await fixture.sqlite.state(storeKey) ?? ""
            #expect(
                !storeKey.contains(key) && !text.contains(key) && !text.contains("jane@class.test")
                    && !text.contains("janeaccount"), "\(storeKey) still holds something of Jane's")
        }
        // The session ended, the map forgot the pin, the unit choice is the default again.
        #expect(await dm("!whoami").first?.hasPrefix("You are not logged in.") == true)
        #expect(
            await fixture.dm("!where Doe", as: "bob") == [
                "Nobody called \"Doe\" is on the map (and no one logged in uses that nick)."
            ])
        #expect(await dm("!units").first?.hasPrefix("Your distances are in km.") == true)
        #expect(await dm("!login jane@class.test \(ClassFixture.password)") == ["Wrong email or password."])
    }

    @Test func confirmWithNothingAskedOrAskedTooLongAgoErasesNothing() async throws {
        let fixture = try await Self.start()
        let pin = try await Self.janeWithEverything(fixture)
        let refusal = [
            "Nothing was erased: say !forget first to see what would go, then !forget confirm within 5 minutes."
        ]
        #expect(await fixture.dm("!forget confirm", as: "jane") == refusal)
        #expect(try await fixture.sqlite.accountRecord(.key(pin.uniqueKey))?.pin == pin)

        _ = await fixture.dm("!forget", as: "jane")
        fixture.advance(seconds: 5 * 60 + 1)
        #expect(await fixture.dm("!forget confirm", as: "jane") == refusal)
        #expect(try await fixture.sqlite.accountRecord(.key(pin.uniqueKey))?.pin == pin)
        #expect(await fixture.dm("!whoami", as: "jane").first?.hasPrefix("You are logged in as Jane Doe") == true)

        // Another student's request is not Jane's.
        try await fixture.addStudent("tom@class.test", "Tom", "Roe")
        await fixture.logIn("tom", email: "tom@class.test")
        _ = await fixture.dm("!forget", as: "tom")
        #expect(await fixture.dm("!forget confirm", as: "jane") == refusal)

        _ = await fixture.dm("!forget", as: "jane")
        fixture.advance(seconds: 4 * 60)
        #expect(await fixture.dm("!forget confirm", as: "jane").first?.hasPrefix("Erased: your account") == true)
        #expect(try await fixture.sqlite.listAccounts().map(\.email) == ["tom@class.test"])
    }

    @Test func afterForgetTheEmailAndNameAreNowhereInTheDatabaseFileOrItsLog() async throws {
        let folder = try TemporaryDirectory(prefix: "privacy-bytes")
        let fixture = try await Self.start(folder)
        let email = "zebulon.quixmoor@class.test"
        let coordinate = try await SharedGazetteer.coordinate(of: "Reykjavik")
        let pin = try await fixture.addPin(
            email: email, first: "Zebulon", last: "Quixmoor", place: "Reykjavik", at: coordinate)
        #expect(await fixture.logIn("zeb", email: email).first?.hasPrefix("Welcome") == true)
        _ = await fixture.dm("!units mi", as: "zeb")
        _ = await fixture.dm("!post Oslo", as: "zeb")
        let files = [folder.file("class.sqlite"), folder.file("class.sqlite") + "-wal"]
        func bytes() -> Data {
            files.reduce(into: Data()) { $0 += (try? Data(contentsOf: URL(fileURLWithPath: $1))) ?? Data() }
        }
        let secrets = [email, "Zebulon", "Quixmoor", pin.uniqueKey]
        // The test can see them before the erasure.
        for secret in secrets { #expect(bytes().range(of: Data(secret.utf8)) != nil, "\(secret) not found before") }

        _ = await fixture.dm("!forget", as: "zeb")
        #expect(await fixture.dm("!forget confirm", as: "zeb").first?.hasPrefix("Erased:") == true)
        let after = bytes()
        for secret in secrets { #expect(after.range(of: Data(secret.utf8)) == nil, "\(secret) is still stored") }
    }

    @Test func pinsNotUpdatedForPinDaysLeaveTheMapAndTheirOwnersStay() async throws {
        let fixture = try await Self.start(
            settings: ClassSettings(announceChannels: ["#class"], privacy: PrivacyPolicy(pinDays: 30)))
        let retention = PinRetention(services: fixture.services)
        let seattle = try await SharedGazetteer.coordinate(of: "Seattle, WA")
        let old = try await fixture.addPin(
            email: "jane@class.test", first: "Jane", last: "Doe", place: "Seattle, WA", at: seattle)
        fixture.advance(seconds: 20 * 24 * 3600)
        try await fixture.addPin(
            email: "tom@class.test", first: "Tom", last: "Roe", place: "Tacoma, WA",
            at: SharedGazetteer.coordinate(of: "Tacoma, WA"))
        #expect(await fixture.dm("!where Doe", as: "bob").first?.hasPrefix("Jane Doe — Seattle, WA") == true)
        #expect(try await retention.sweep().isEmpty)

        fixture.advance(seconds: 10 * 24 * 3600 + 1)
        #expect(try await retention.sweep() == [old])
        #expect(
            await fixture.dm("!where Doe", as: "bob") == [
                "Nobody called \"Doe\" is on the map (and no one logged in uses that nick)."
            ])
        #expect(await fixture.dm("!where Roe", as: "bob").first?.hasPrefix("Tom Roe — Tacoma, WA") == true)
        #expect(await fixture.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)

        // Without privacy.pin_days nothing leaves.
        fixture.services.update(
            settings: ClassSettings(announceChannels: ["#class"], privacy: PrivacyPolicy(visibility: .public)))
        fixture.advance(seconds: 365 * 24 * 3600)
        #expect(try await retention.sweep().isEmpty)
        #expect(await fixture.dm("!where Roe", as: "bob").first?.hasPrefix("Tom Roe — Tacoma, WA") == true)
    }

    /// The privacy plugin sweeps at start while the bot runs, once per bot.
    @Test func theRunningPluginTakesOldPinsOffAtStart() async throws {
        let fixture = try await Self.start(
            settings: ClassSettings(announceChannels: ["#class"], privacy: PrivacyPolicy(pinDays: 1)))
        let old = try await fixture.addPin(
            email: "jane@class.test", first: "Jane", last: "Doe", place: "Seattle, WA",
            at: SharedGazetteer.coordinate(of: "Seattle, WA"))
        fixture.advance(seconds: 2 * 24 * 3600)
        let plugin = try fixture.plugin(PrivacyPlugin.self)
        let log = WaitableLines()
        let context = PluginContext(transport: fixture.bot.transport, logger: WaitableLogHandler.logger(log))
        let running = Task { await plugin.run(context: context) }
        defer { running.cancel() }
        // The sweep logs what it removed.
        #expect(await log.wait(timeout: .seconds(60)) { $0.contains { $0.contains("left the map") } })
        #expect(try await fixture.sqlite.location(ofAccount: old.uniqueKey) == nil)
        // A second network's plugin on the same bot does not start another sweep.
        let again = PrivacyPlugin(services: .init(fixture.services))
        let finished = TestSignal()
        let second = Task {
            await again.run(context: context)
            finished.signal()
        }
        defer { second.cancel() }
        #expect(await finished.wait(timeout: .seconds(30)))
    }

    @Test func anErasureEndsTheStudentsSessionsOnEveryNetworkOfTheBot() async throws {
        let fixture = try await Self.start()
        _ = try await Self.janeWithEverything(fixture)
        // A second network sharing the first one's class map and throttle, with its own sessions.
        let lab = ClassServices(
            directory: fixture.directory, trips: fixture.directory, accounts: fixture.sqlite,
            stateStore: fixture.sqlite, geocoder: SharedGazetteer.geocoder, places: SharedGazetteer.geocoder,
            settings: ClassSettings(instanceName: "lab@irc.lab.example:6697/", networkName: "lab"),
            now: fixture.bot.now,
            sharing: fixture.services)
        let labBot = TestBot(
            plugins: ClassPlugins.make(enabled: ClassPlugins.names, services: lab) + [CorePlugin()],
            gate: lab.logins, clock: fixture.bot.clock)
        await labBot.router.restorePlugins()
        let onLab = labBot.user("janedoe", account: "JaneOnLab")
        let welcome = await labBot.say(
            "!login jane@class.test \(ClassFixture.password)", from: onLab, origin: .privateMessage)
        #expect(welcome.first?.text.hasPrefix("Welcome") == true)
        _ = await labBot.say("!units km", from: onLab, origin: .privateMessage)
        #expect(try await Self.stored(fixture, "units@lab@irc.lab.example:6697/").contains("a:janeonlab"))

        _ = await fixture.dm("!forget", as: "jane")
        let erased = await fixture.dm("!forget confirm", as: "jane")
        #expect(erased.first?.contains("2 directory sessions, 2 IRC sessions") == true, "\(erased)")
        let whoami = await labBot.say("!whoami", from: onLab, origin: .privateMessage)
        #expect(whoami.first?.text.hasPrefix("You are not logged in.") == true)
        #expect(try await !Self.stored(fixture, "units@lab@irc.lab.example:6697/").contains("a:janeonlab"))
        #expect(try await !Self.stored(fixture, "sessions@lab@irc.lab.example:6697/").contains("janeonlab"))
    }

    /// On a directory that keeps no accounts (the Udacity-compatible API), the bot erases what it
    /// holds itself and says plainly that the service's own data must be erased there.
    @Test func onTheUdacityBackendForgetErasesWhatTheBotHoldsAndSaysWhereTheRestIs() async throws {
        let fixture = try ClassFixture()
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        let remote = ClassServices(
            directory: fixture.directory, trips: fixture.directory, geocoder: SharedGazetteer.geocoder,
            places: SharedGazetteer.geocoder, now: fixture.bot.now)
        let bot = TestBot(
            plugins: ClassPlugins.make(enabled: ClassPlugins.names, services: remote) + [CorePlugin()],
            gate: remote.logins, clock: fixture.bot.clock)
        func dm(_ text: String) async -> [String] { await bot.dm(text, as: "jane").map(\.text) }
        #expect(await dm("!login jane@class.test \(ClassFixture.password)").first?.hasPrefix("Welcome") == true)
        _ = await dm("!units mi")
        let mine = await dm("!mydata")
        #expect(
            mine.first?.hasPrefix("Your account and pin are kept by the class's Udacity service") == true, "\(mine)")
        #expect(mine.contains { $0.contains("unit choice: mi") }, "\(mine)")

        let asked = await dm("!forget")
        #expect(asked.last?.hasPrefix("Your account and pin are kept by the class's Udacity service itself") == true)
        #expect(
            await dm("!forget confirm") == [
                "Erased what this bot held: your session, your unit choice; you are logged out. "
                    + "Your account and pin are kept by the class's Udacity service: to erase them, ask there."
            ])
        #expect(await dm("!whoami").first?.hasPrefix("You are not logged in.") == true)
        #expect(await dm("!units").first?.hasPrefix("Your distances are in km.") == true)
        // The service's own account is untouched.
        #expect(try await fixture.sqlite.listAccounts().map(\.email) == ["jane@class.test"])
    }
}
