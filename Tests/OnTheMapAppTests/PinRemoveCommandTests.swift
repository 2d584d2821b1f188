import BotKit
import BotTesting
@testable import ClassKit
import Foundation
import IRCProtocol
@testable import OnTheMapApp
import OnTheMapPlugins
import SQLiteDirectory
import Testing

@testable import OnTheMapService

/// The owners' `!pin remove <name | nick | email | id>` on a real router with the class plugins:
/// one match is removed (and gone from `!where`), a name several students share removes nothing
/// and lists them, and nobody else may use it.
@Suite struct PinRemoveCommandTests {
    struct Class {
        let bot: TestBot<StudentLogin>
        let sqlite: SQLiteStudentDirectory
        let owner: UserIdentity

        func ask(_ text: String) async -> [String] {
            await bot.say(text, from: owner, origin: .privateMessage).map(\.text)
        }
    }

    static func makeClass(in folder: TemporaryDirectory) async throws -> Class {
        let sqlite = try SQLiteStudentDirectory(
            path: folder.file("class.sqlite"),
            options: LocalDirectoryOptions(passwordHasher: PasswordHasher(uncheckedRounds: 1_000)))
        let students = [
            ("ada.l@class.test", "Ada", "Lovelace", 51.5, -0.12), ("ada.y@class.test", "Ada", "Yonath", 31.8, 35.2),
            ("grace@class.test", "Grace", "Hopper", 40.7, -74.0),
        ]
        for (email, first, last, latitude, longitude) in students {
            let account = try await sqlite.addAccount(
                email: email, password: "correct horse battery", firstName: first, lastName: last)
            _ = try await sqlite.createLocation(
                asTyped: PinDraft(
                    uniqueKey: account.accountKey, firstName: first, lastName: last, mapString: "\(last) town",
                    mediaURL: "https://example.org/\(last)",
                    coordinate: Coordinate(latitude: latitude, longitude: longitude)),
                session: nil)
        }
        // A public class: `!where` here only shows what is left on the map.
        let services = ClassServices(
            directory: sqlite, trips: sqlite, accounts: sqlite, stateStore: sqlite, geocoder: NoGeocoder(), places: nil,
            settings: ClassSettings(privacy: PrivacyPolicy(visibility: .public)))
        var config = BotConfiguration()
        config.irc.nick = "MapBot"
        let control = BotControl(
            config: config, configPath: nil, services: services, logger: .init(label: "t"),
            logPseudonyms: .ephemeral())
        var settings = CommandRouter.Settings.unlimited
        settings.owners = OwnerList([.account("teacher")])
        let plugins = ClassPlugins.make(enabled: ["login", "where", "list"], services: services)
        let bot = TestBot(
            plugins: plugins + [OwnerPlugin(control: control)], settings: settings,
            gate: services.logins)
        control.attach(router: bot.router, plugins: plugins)
        return Class(bot: bot, sqlite: sqlite, owner: bot.user("ada", account: "teacher"))
    }

    @Test func aSharedNameListsTheCandidatesAndRemovesNothing() async throws {
        let folder = try TemporaryDirectory(prefix: "pin-remove")
        let klass = try await Self.makeClass(in: folder)
        let answer = await klass.ask("!pin remove Ada")
        #expect(answer.count == 1)
        #expect(answer[0].hasPrefix("2 pins match \"Ada\", so none was removed: "), "\(answer)")
        #expect(answer[0].contains("Ada Lovelace — Lovelace town (id ") && answer[0].contains("Ada Yonath"))
        #expect(answer[0].hasSuffix("Pick one with !pin remove <id>."))
        #expect(try await klass.sqlite.recentLocations(limit: 10, skip: 0).count == 3)

        // Its id picks one.
        let yonath = try #require(
            try await klass.sqlite.recentLocations(limit: 10, skip: 0).first { $0.lastName == "Yonath" })
        #expect(
            await klass.ask("!pin remove \(yonath.objectId)") == [
                "Removed Ada Yonath — Yonath town (id \(yonath.objectId)) from the map."
            ])
        let found = await klass.bot.dm("!where Ada", as: "bob").map(\.text)
        #expect(found.count == 1 && found[0].hasPrefix("Ada Lovelace"), "\(found)")
        // A full name that only one student has is enough.
        #expect(await klass.ask("!pin remove Ada Lovelace").first?.hasPrefix("Removed Ada Lovelace") == true)
        #expect(
            await klass.ask("!pin remove Ada") == ["No pin matches \"Ada\" (by id, email, logged-in nick or name)."])
    }

    @Test func byEmailAndByTheNickOfSomeoneLoggedIn() async throws {
        let folder = try TemporaryDirectory(prefix: "pin-remove-email")
        let klass = try await Self.makeClass(in: folder)
        #expect(await klass.ask("!pin remove GRACE@class.test").first?.hasPrefix("Removed Grace Hopper") == true)
        #expect(
            await klass.bot.dm("!login ada.l@class.test correct horse battery", as: "countess").first?.text
                .hasPrefix("Welcome") == true)
        #expect(await klass.ask("!pin remove countess").first?.hasPrefix("Removed Ada Lovelace") == true)
        let left = try await klass.sqlite.recentLocations(limit: 10, skip: 0).map(\.lastName)
        #expect(left == ["Yonath"])
    }

    @Test func othersAreRefusedAndBadArgumentsChangeNothing() async throws {
        let folder = try TemporaryDirectory(prefix: "pin-remove-refused")
        let klass = try await Self.makeClass(in: folder)
        let refused = await klass.bot.dm("!pin remove Grace", as: "mallory").map(\.text)
        #expect(refused.count == 1 && refused[0].contains("owners only"), "\(refused)")
        #expect(await klass.ask("!pin Grace") == ["Usage: !pin remove <name | nick | email | id>."])
        #expect(await klass.ask("!pin remove") == ["Usage: !pin remove <name | nick | email | id>."])
        #expect(try await klass.sqlite.recentLocations(limit: 10, skip: 0).count == 3)
    }
}
