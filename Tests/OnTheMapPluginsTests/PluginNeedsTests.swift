import BotKit
import BotTesting
import ClassKit
import Foundation
import OnTheMapPlugins
import SQLiteDirectory
import Testing

@testable import OnTheMapService

/// Commands built from exactly what their plugin declares it uses (its `Needs`), made here from
/// small real parts: a temporary SQLite directory, the class map over it, the offline gazetteer's
/// places and zones, a session gate and the settings. No network assembly (`ClassServices`) is
/// built, so these prove a plugin reaches nothing its `Needs` does not name.
@Suite struct PluginNeedsTests {
    /// The parts the tests share: a class of one SQLite directory, its class map, the settings in
    /// force, who is logged in, and the clock.
    struct Parts {
        let folder: TemporaryDirectory
        let directory: SQLiteStudentDirectory
        let classMap: ClassMap
        let settings: SettingsInForce
        let logins = LoginGate<StudentLogin>()
        let clock = ManualBotClock()
        let now: @Sendable () -> Date

        /// A class whose map anyone may look at, unless `visibility` says otherwise.
        init(visibility: PrivacyPolicy.Visibility = .public) throws {
            folder = try TemporaryDirectory(prefix: "needs")
            now = clock.wallClock()
            directory = try SQLiteStudentDirectory(
                path: folder.file("class.sqlite"),
                options: LocalDirectoryOptions(passwordHasher: PasswordHasher(uncheckedRounds: 1_000), clock: now))
            classMap = ClassMap(directory: directory)
            settings = SettingsInForce(ClassSettings(privacy: PrivacyPolicy(visibility: visibility)))
        }

        /// A student with a pin kept as typed (exact); returns their account key.
        @discardableResult
        func addPin(email: String, first: String, last: String, place: String, at coordinate: Coordinate)
            async throws -> String
        {
            let account = try await directory.addAccount(
                email: email, password: ClassFixture.password, firstName: first, lastName: last)
            let session = try await directory.logIn(email: email, password: ClassFixture.password)
            _ = try await directory.createLocation(
                asTyped: PinDraft(
                    uniqueKey: account.accountKey, firstName: first, lastName: last, mapString: place,
                    mediaURL: "https://example.org/\(first.lowercased())", coordinate: coordinate),
                session: session)
            try await directory.logOut(session)
            return account.accountKey
        }

        /// Binds `nick` to a session of the account `email`, as `!login` would.
        func logIn(_ nick: String, email: String, bot: TestBot<StudentLogin>) async throws {
            let session = try await directory.logIn(email: email, password: ClassFixture.password)
            let profile = try await directory.profile(accountKey: session.accountKey, session: session)
            await logins.book.bind(StudentLogin(session: session, profile: profile), to: bot.user(nick))
        }

        /// A bot running `plugins` on these parts' session gate and clock.
        func bot(_ plugins: [any Plugin]) -> TestBot<StudentLogin> {
            TestBot(plugins: plugins, gate: logins, clock: clock)
        }
    }

    static let london = Coordinate(latitude: 51.5074, longitude: -0.1278)

    @Test("!where runs on the lookup rule's needs, the clock and the zones, and follows a settings reload")
    func whereOnItsOwnNeeds() async throws {
        let parts = try Parts()
        try await parts.addPin(
            email: "ada@class.test", first: "Ada", last: "Lovelace", place: "London, UK", at: Self.london)
        let needs = WherePlugin.Needs(
            settingsInForce: parts.settings, logins: parts.logins,
            placeFinder: PlaceFinder(geocoder: SharedGazetteer.geocoder), directory: parts.directory,
            classMap: parts.classMap, timeZones: PinTimeZones(finder: SharedGazetteer.geocoder), now: parts.now)
        let bot = parts.bot([WherePlugin(services: needs)])
        #expect(
            await bot.dm("!where ada", as: "bob").map(\.text) == [
                "Ada Lovelace — London, UK — https://example.org/ada — just now"
            ])
        // The settings are read at each command: a reload to a class-only map refuses strangers.
        parts.settings.update(ClassSettings(privacy: PrivacyPolicy(visibility: .class)))
        let refused = await bot.dm("!where ada", as: "bob").map(\.text)
        #expect(refused.first?.hasPrefix("The class map is for the class: log in first") == true, "\(refused)")
    }

    @Test("!time answers for a place and a classmate from its own needs")
    func timeOnItsOwnNeeds() async throws {
        let parts = try Parts()
        try await parts.addPin(
            email: "ada@class.test", first: "Ada", last: "Lovelace", place: "London, UK", at: Self.london)
        let needs = TimePlugin.Needs(
            settingsInForce: parts.settings, logins: parts.logins,
            placeFinder: PlaceFinder(geocoder: SharedGazetteer.geocoder), directory: parts.directory,
            classMap: parts.classMap, timeZones: PinTimeZones(finder: SharedGazetteer.geocoder), now: parts.now)
        let bot = parts.bot([TimePlugin(services: needs)])
        let tokyo = await bot.dm("!time Tokyo", as: "bob").map(\.text)
        #expect(tokyo.count == 1)
        #expect(tokyo.first?.hasPrefix("It is ") == true && tokyo.first?.hasSuffix("(UTC+9)") == true, "\(tokyo)")
        let ada = await bot.dm("!time Lovelace", as: "bob").map(\.text)
        #expect(ada.first?.contains("for Ada Lovelace (London, UK, UTC") == true, "\(ada)")
        // Without a pin of one's own, `!time` alone says how to get one.
        let own = await bot.dm("!time", as: "bob").map(\.text)
        #expect(own.count == 1 && own.first?.isEmpty == false, "\(own)")
    }

    @Test("!units keeps a choice where its needs say, and registers it for !mydata and !forget")
    func unitsOnItsOwnNeeds() async throws {
        let parts = try Parts()
        let keepers = StudentKeepers()
        let needs = NearPlugin.Needs(
            settingsInForce: parts.settings, logins: parts.logins,
            placeFinder: PlaceFinder(geocoder: SharedGazetteer.geocoder), directory: parts.directory,
            classMap: parts.classMap,
            privacyGates: PrivacyGates(
                places: SharedGazetteer.geocoder, settings: parts.settings, choices: PrivacyChoices(store: nil)),
            keptState: KeptStateHome(store: nil), keepers: keepers, now: parts.now)
        let bot = parts.bot([NearPlugin(services: needs)])
        await bot.assertResponse("!units mi", "OK, I will show you distances in miles (mi).", as: "bob")
        await bot.assertResponse("!units", "Your distances are in mi. Change with !units km or !units mi.", as: "bob")
        await bot.assertError("!units parsecs", "Units are km or mi: !units km or !units mi.", as: "bob")

        // The plugin registered what it keeps with the keepers it was given.
        let bob = bot.user("bob")
        let student = StudentReference(accountKey: "none", sender: bob, caseMapping: .rfc1459, identities: [bob])
        let kept = await keepers.keptItems(about: student)
        #expect(kept.map(\.id) == ["units"] && kept.map(\.detail) == ["mi"])
        #expect(await keepers.eraseKept(about: student) == ["your unit choice"])
        await bot.assertResponse("!units", "Your distances are in km. Change with !units km or !units mi.", as: "bob")
    }

    @Test("!privacy region re-stores the pin through the gate it is given, on a bot of one network")
    func privacyOnItsOwnNeeds() async throws {
        let parts = try Parts()
        let key = try await parts.addPin(
            email: "jane@class.test", first: "Jane", last: "Doe", place: "Bellevue, WA",
            at: Coordinate(latitude: 47.6101, longitude: -122.2015))
        let choices = PrivacyChoices(store: nil)
        let gates = PrivacyGates(places: SharedGazetteer.geocoder, settings: parts.settings, choices: choices)
        let keepers = StudentKeepers()
        let archive = SessionArchive(accounts: parts.directory, store: nil, instance: nil, now: parts.now)
        let needs = PrivacyPlugin.Needs(
            settingsInForce: parts.settings, logins: parts.logins, privacyGates: gates, directory: parts.directory,
            trips: parts.directory, accounts: parts.directory, stateStore: nil, classMap: parts.classMap,
            loginThrottle: LoginThrottle(now: parts.now), keepers: keepers,
            networks: EveryNetwork(
                here: NetworkStudents(sessionArchive: archive, keepers: keepers), sessions: parts.logins.book,
                directory: parts.directory, accounts: parts.directory, stateStore: nil),
            retentionStarted: .init(false), now: parts.now)
        let bot = parts.bot([PrivacyPlugin(services: needs)])
        let explained = await bot.dm("!privacy", as: "jane").map(\.text)
        #expect(explained.first?.hasPrefix("Pins are kept at city level") == true, "\(explained)")
        await bot.assertError(
            "!privacy region", "Log in first to choose your own level: /msg MapBot !login <email> <password>.",
            as: "jane")

        try await parts.logIn("jane", email: "jane@class.test", bot: bot)
        let answer = await bot.dm("!privacy region", as: "jane").map(\.text)
        #expect(answer.first?.hasPrefix("OK: your pin is now kept at region level") == true, "\(answer)")
        #expect(try await choices.chosen(by: key) == .region)
        let stored = try #require(try await parts.directory.location(ofAccount: key))
        #expect(await gates.current.precision(of: stored) == .region)
    }
}
