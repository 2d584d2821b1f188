import BotKit
import BotTesting
@testable import ClassKit
import Foundation
import IRCProtocol
import Logging
import Localization
import OnTheMapPlugins
import SQLiteDirectory
import Testing

@testable import OnTheMapService

/// What the bot keeps across a restart in its directory's state store, seen through a second bot
/// started on the same SQLite file: sessions, an open `!post`, unit choices — under the identity
/// rules of the session book, and without storing a session id.
@Suite struct KeptStateTests {
    static let quiet = Logger(label: "kept", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A bot on `folder`'s class that has read back what was kept, as the bot does at start.
    static func start(on folder: TemporaryDirectory) async throws -> ClassFixture {
        let fixture = try ClassFixture(folder: folder)
        await fixture.bot.router.restorePlugins()
        return fixture
    }

    static func texts(_ lines: [OutgoingText]) -> [String] { lines.map(\.text) }

    @Test func anAccountSessionItsOpenPostAndItsUnitsSurviveARestart() async throws {
        let folder = try TemporaryDirectory(prefix: "kept-account")
        let before = try await Self.start(on: folder)
        try await before.addStudent("jane@class.test", "Jane", "Doe")
        let jane = before.bot.user("jane", account: "JaneAccount")
        let welcome = await before.bot.say(
            "!login jane@class.test \(ClassFixture.password)", from: jane, origin: .privateMessage)
        #expect(welcome.first?.text.hasPrefix("Welcome, Jane Doe!") == true, "\(Self.texts(welcome))")
        _ = await before.bot.say("!units mi", from: jane, origin: .privateMessage)
        let step1 = Self.texts(await before.bot.say("!post Paris", from: jane, origin: .privateMessage))
        #expect(step1.contains { $0.hasPrefix("Now send your link") }, "\(step1)")

        let after = try await Self.start(on: folder)
        // Jane comes back under another nick and host: her services account is what counts.
        let back = UserIdentity(nick: "jane_", user: "~j", host: "elsewhere.example", account: "janeaccount")
        let whoami = Self.texts(await after.bot.say("!whoami", from: back, origin: .privateMessage))
        #expect(whoami.first?.hasPrefix("You are logged in as Jane Doe") == true, "\(whoami)")
        let units = Self.texts(await after.bot.say("!units", from: jane, origin: .privateMessage))
        #expect(units.first?.hasPrefix("Your distances are in mi.") == true, "\(units)")
        let saved = Self.texts(
            await after.bot.say("!post https://jane.example/me", from: back, origin: .privateMessage))
        #expect(saved.first?.hasPrefix("You are on the map: Jane Doe — Paris") == true, "\(saved)")
        // Without the account, the same nick and host are not Jane.
        let stranger = Self.texts(
            await after.bot.say("!whoami", from: before.bot.user("jane"), origin: .privateMessage))
        #expect(stranger.first?.hasPrefix("You are not logged in.") == true, "\(stranger)")
    }

    @Test func aPostStepThatExpiredWhileTheBotWasDownIsDropped() async throws {
        let folder = try TemporaryDirectory(prefix: "kept-expired")
        let before = try await Self.start(on: folder)
        try await before.addStudent("jane@class.test", "Jane", "Doe")
        let jane = before.bot.user("jane", account: "JaneAccount")
        _ = await before.bot.say("!login jane@class.test \(ClassFixture.password)", from: jane, origin: .privateMessage)
        _ = await before.bot.say("!post Paris", from: jane, origin: .privateMessage)

        let after = try ClassFixture(folder: folder)
        after.advance(seconds: 11 * 60)
        await after.bot.router.restorePlugins()
        let link = Self.texts(await after.bot.say("!link https://jane.example", from: jane, origin: .privateMessage))
        #expect(link.first?.hasPrefix("First tell me where you are") == true, "\(link)")
    }

    @Test func anOpenPostBelongsToTheAccountThatOpenedIt() async throws {
        // Jane's connection ends with her post open; someone else on the same nick and user@host
        // logs in to another account and does not finish Jane's post.
        let fixture = try await Self.start(on: try TemporaryDirectory(prefix: "kept-owner"))
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        try await fixture.addStudent("bob@class.test", "Bob", "Roe")
        await fixture.logIn("jane", email: "jane@class.test")
        _ = await fixture.dm("!post Paris", as: "jane")
        await fixture.bot.sessions.userQuit(nick: "jane")
        await fixture.logIn("jane", email: "bob@class.test")
        let link = await fixture.dm("!link https://bob.example", as: "jane")
        #expect(link.first?.hasPrefix("First tell me where you are") == true, "\(link)")
    }

    /// A class directory and the archive of a bot on it.
    struct Archive {
        let sqlite: SQLiteStudentDirectory
        let book = SessionBook<StudentLogin>()
        let archive: SessionArchive

        init(_ folder: TemporaryDirectory) throws {
            sqlite = try SQLiteStudentDirectory(
                path: folder.file("class.sqlite"),
                options: LocalDirectoryOptions(passwordHasher: PasswordHasher(uncheckedRounds: 1_000)))
            archive = SessionArchive(accounts: sqlite, store: sqlite, instance: "irc.test:6697/#class", now: { Date() })
        }

        func logIn(_ email: String) async throws -> StudentLogin {
            let session = try await sqlite.logIn(email: email, password: ClassFixture.password)
            return StudentLogin(
                session: session, profile: try await sqlite.profile(accountKey: session.accountKey, session: session))
        }

        func canSave(with session: DirectorySession) async -> Bool {
            let draft = PinDraft(
                uniqueKey: session.accountKey, firstName: "Jane", lastName: "Doe", mapString: "Lima",
                mediaURL: "https://jane.example", coordinate: Coordinate(latitude: -12, longitude: -77))
            return (try? await sqlite.savePin(asTyped: draft, session: session)) != nil
        }
    }

    @Test func aKeptConnectionSessionHoldsNoSessionIdAndComesBackOnlyForItsConnection() async throws {
        let folder = try TemporaryDirectory(prefix: "kept-connection")
        let before = try Archive(folder)
        _ = try await before.sqlite.addAccount(
            email: "jane@class.test", password: ClassFixture.password, firstName: "Jane", lastName: "Doe")
        _ = try await before.sqlite.addAccount(
            email: "carl@class.test", password: ClassFixture.password, firstName: "Carl", lastName: "Poe")
        #expect(await before.archive.restore(into: before.book, logger: Self.quiet) == 0)
        let alice = UserIdentity(nick: "alice", user: "~alice", host: "home.example")
        let carl = UserIdentity(nick: "carl", user: "~carl", host: "carl.example")
        let jane = try await before.logIn("jane@class.test")
        await before.book.bind(jane, to: alice, signedOnAt: 1_700_000_000)
        // Carl's sign-on time was never learnt: his session could never prove its connection.
        await before.book.bind(try await before.logIn("carl@class.test"), to: carl)
        #expect(await before.archive.save())
        let stored = try #require(
            try await before.sqlite.state(SessionArchive.stateKey(instance: "irc.test:6697/#class")))
        #expect(!stored.contains(jane.session.sessionId))
        #expect(stored.contains(SessionToken.digest(jane.session.sessionId)))
        #expect(!stored.contains("carl"))
        #expect(!stored.contains(ClassFixture.password))

        let after = try Archive(folder)
        #expect(await after.archive.restore(into: after.book, logger: Self.quiet) == 1)
        // The session came back with a new id; the old one no longer works.
        #expect(!(await after.canSave(with: jane.session)))
        let mark = await after.book.sightMark(of: "alice")
        let impostor = await after.book.reclaim(
            for: alice, signedOnAt: 1_700_000_900, user: "~alice", host: "home.example", watch: .channel,
            ifUnchangedSince: mark)
        #expect(impostor == nil)
        let back = try #require(
            await after.book.reclaim(
                for: alice, signedOnAt: 1_700_000_000, user: "~alice", host: "home.example", watch: .channel,
                ifUnchangedSince: mark))
        #expect(back.profile.firstName == "Jane")
        #expect(back.session.sessionId != jane.session.sessionId)
        #expect(await after.canSave(with: back.session))
        // What is stored now names the new session.
        let restored = try #require(
            try await after.sqlite.state(SessionArchive.stateKey(instance: "irc.test:6697/#class")))
        #expect(restored.contains(SessionToken.digest(back.session.sessionId)))
    }

    @Test func aSessionEndedWhileTheBotWasDownDoesNotComeBack() async throws {
        let folder = try TemporaryDirectory(prefix: "kept-passwd")
        let before = try Archive(folder)
        _ = try await before.sqlite.addAccount(
            email: "jane@class.test", password: ClassFixture.password, firstName: "Jane", lastName: "Doe")
        await before.archive.restore(into: before.book, logger: Self.quiet)
        let alice = UserIdentity(nick: "alice", user: "~alice", host: "home.example")
        await before.book.bind(try await before.logIn("jane@class.test"), to: alice, signedOnAt: 7)
        #expect(await before.archive.save())
        // The operator resets the password (which ends the account's sessions) while the bot is down.
        try await before.sqlite.changePassword(email: "jane@class.test", newPassword: "another-Password-2")
        let after = try Archive(folder)
        #expect(await after.archive.restore(into: after.book, logger: Self.quiet) == 0)
        #expect(await after.book.count == 0)
    }

    @Test func unitChoicesAreKeptMostRecentFirstWithinTheCapacity() async throws {
        let folder = try TemporaryDirectory(prefix: "kept-units")
        let before = try Archive(folder)
        let units = UnitPreferences(defaultUnit: .km, store: before.sqlite, instance: "x")
        await units.restore(logger: Self.quiet)
        let ann = UserIdentity(nick: "Ann", user: "a", host: "h")
        await units.set(.mi, for: ann, caseMapping: .rfc1459)
        let again = UnitPreferences(defaultUnit: .km, store: before.sqlite, instance: "x")
        #expect(await again.unit(for: ann, caseMapping: .rfc1459, language: .english) == .km)
        await again.restore(logger: Self.quiet)
        #expect(
            await again.unit(
                for: UserIdentity(nick: "ann", user: "b", host: "g"), caseMapping: .rfc1459, language: .english) == .mi)
        // Another instance on the same directory keeps its own.
        let other = UnitPreferences(defaultUnit: .km, store: before.sqlite, instance: "y")
        await other.restore(logger: Self.quiet)
        #expect(await other.unit(for: ann, caseMapping: .rfc1459, language: .english) == .km)
    }
}
