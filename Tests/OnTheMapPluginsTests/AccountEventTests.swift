import BotKit
import BotTesting
import ClassKit
import Foundation
import OnTheMapPlugins
import OnTheMapService
import SQLiteDirectory
import Testing

/// Two bot instances on one SQLite file, each with its own directory connection, sessions and kept
/// state: what one erases or unlinks reaches the other's memory through the directory's account
/// events, before the other writes its kept state or admits the student's next command.
@Suite struct AccountEventTests {
    /// The second instance, on the fixture's file.
    struct Instance {
        let services: ClassServices
        let bot: TestBot<StudentLogin>
        let directory: SQLiteStudentDirectory

        init(_ fixture: ClassFixture, name: String) async throws {
            directory = try SQLiteStudentDirectory(path: fixture.folder.file("class.sqlite"))
            services = ClassServices(
                directory: directory, trips: directory, accounts: directory, stateStore: directory,
                accountEvents: directory, geocoder: SharedGazetteer.geocoder, places: SharedGazetteer.geocoder,
                settings: ClassSettings(instanceName: name, privacy: PrivacyPolicy(visibility: .public)),
                now: fixture.bot.now)
            bot = TestBot(
                plugins: ClassPlugins.make(enabled: ClassPlugins.names, services: services) + [CorePlugin()],
                settings: .unlimited, gate: services.logins, clock: fixture.bot.clock)
            await services.accountEvents?.start()
            await bot.router.restorePlugins()
        }

        func dm(_ text: String, as nick: String) async -> [String] {
            await bot.dm(text, as: nick).map(\.text)
        }
    }

    /// `!forget confirm` on one instance: the other drops the student's open post step and session
    /// from its memory before its next write (another student's login and post write nothing of
    /// them back), and then names nobody at `!whoami`.
    @Test func anErasureOnOneInstanceReachesTheOthersMemoryBeforeItsNextWrite() async throws {
        let fixture = try ClassFixture()
        await fixture.bot.router.restorePlugins()
        try await fixture.addStudent("jane@class.test", "Jane", "Quixmoor")
        try await fixture.addStudent("tom@class.test", "Tom", "Roe")
        let other = try await Instance(fixture, name: "lab")
        let welcome = await other.dm("!login jane@class.test \(ClassFixture.password)", as: "janelab")
        #expect(welcome.first?.hasPrefix("Welcome") == true, "\(welcome)")
        let step = await other.dm("!post Lisbon", as: "janelab")
        #expect(step.last?.hasPrefix("Now send your link") == true, "\(step)")
        #expect(try await fixture.sqlite.state("post.flows@lab")?.contains("Lisbon") == true)

        _ = await fixture.logIn("jane", email: "jane@class.test")
        _ = await fixture.dm("!forget", as: "jane")
        #expect(await fixture.dm("!forget confirm", as: "jane").first?.hasPrefix("Erased:") == true)

        _ = await other.dm("!login tom@class.test \(ClassFixture.password)", as: "tomlab")
        _ = await other.dm("!post Paris", as: "tomlab")
        let flows = try await fixture.sqlite.state("post.flows@lab") ?? ""
        #expect(flows.contains("Paris") && !flows.contains("Lisbon"), "\(flows)")
        let sessions = try await fixture.sqlite.state("sessions@lab") ?? ""
        #expect(!sessions.contains("janelab"), "\(sessions)")
        #expect(await other.dm("!whoami", as: "janelab").first?.hasPrefix("You are not logged in.") == true)
        #expect(
            await other.dm("!link https://example.org/jane", as: "janelab").first?.hasPrefix("You need to log in")
                == true)
    }

    /// An unlink by another process ends, on a running instance, the session a `!login` made while
    /// the student was identified to that services account, at the student's next command.
    @Test func anUnlinkOnOneInstanceEndsTheSessionsBoundToTheServicesAccountOnTheOther() async throws {
        let fixture = try ClassFixture()
        await fixture.bot.router.restorePlugins()
        try await fixture.addStudent("ada@class.test", "Ada", "Lovelace")
        let other = try await Instance(fixture, name: "lab")
        let ada = try #require(try await fixture.sqlite.accountRecord(.email("ada@class.test"))).account
        try await fixture.sqlite.linkServicesAccount(
            accountKey: ada.accountKey, network: "default", servicesAccount: "AdaAcct", foldedAccount: "adaacct")
        let adaThere = other.bot.user("adaother", account: "adaacct")
        let there = await other.bot.say(
            "!login ada@class.test \(ClassFixture.password)", from: adaThere, origin: .privateMessage)
        #expect(there.first?.text.hasPrefix("Welcome") == true, "\(there)")

        let before = await other.bot.say("!whoami", from: adaThere, origin: .privateMessage)
        #expect(before.first?.text.hasPrefix("You are logged in as Ada Lovelace") == true, "\(before)")
        #expect(try await fixture.sqlite.unlinkServicesAccount(accountKey: ada.accountKey, network: "default") != nil)
        let whoami = await other.bot.say("!whoami", from: adaThere, origin: .privateMessage)
        #expect(whoami.first?.text.hasPrefix("You are not logged in.") == true, "\(whoami)")
    }
}
