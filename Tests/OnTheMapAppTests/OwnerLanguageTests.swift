import BotKit
import BotTesting
@testable import ClassKit
import Foundation
import IRCProtocol
import Localization
@testable import OnTheMapApp
import OnTheMapPlugins
import SQLiteDirectory
import Testing

@testable import OnTheMapService

/// The owners' commands answer in the owner's language, as the students' do: the one they chose
/// with `!lang`, else the channel's, else the network's default. Their usage, help and examples
/// are in the catalogues, and an alert pushed to an owner is said in the language they chose, else
/// in the network's default.
@Suite struct OwnerLanguageTests {
    static let catalogs: Catalogs = {
        do { return try Catalogs(folder: Catalogs.bundledFolder()) } catch { fatalError("catalogues: \(error)") }
    }()

    struct Class {
        let bot: TestBot<StudentLogin>
        let control: BotControl
        /// An owner by services account.
        let boss: UserIdentity
        /// Another owner, who chooses no language.
        let deputy: UserIdentity

        func ask(_ text: String, as owner: UserIdentity, in channel: String? = nil) async -> [OutgoingText] {
            await bot.say(text, from: owner, origin: channel.map { .channel($0) } ?? .privateMessage)
        }
    }

    /// A bot with `!lang`, the owner commands and no IRC connection (the console's control), whose
    /// network speaks `fallback` and whose #classe speaks French.
    static func makeClass(in folder: TemporaryDirectory, fallback: Language = .english) async throws -> Class {
        let sqlite = try SQLiteStudentDirectory(
            path: folder.file("class.sqlite"),
            options: LocalDirectoryOptions(passwordHasher: PasswordHasher(uncheckedRounds: 1_000)))
        let services = ClassServices(
            directory: sqlite, trips: sqlite, accounts: sqlite, stateStore: sqlite, geocoder: NoGeocoder(), places: nil,
            settings: ClassSettings())
        var config = BotConfiguration()
        config.irc.nick = "MapBot"
        let control = BotControl(
            config: config, configPath: nil, services: services, logger: .init(label: "t"),
            logPseudonyms: .ephemeral())
        var settings = CommandRouter.Settings.unlimited
        settings.owners = OwnerList([.account("teacher"), .account("helper")])
        settings.languages = ChannelLanguages(fallback: fallback, byChannel: ["#classe": .french])
        let plugins = ClassPlugins.make(enabled: ["login"], services: services)
        let core = CorePlugin(conversationCommands: [LanguageCommand(services: .init(services)).command])
        let bot = TestBot(
            plugins: plugins + [core, OwnerPlugin(control: control)], settings: settings, gate: services.logins,
            languageChoices: services.languages)
        control.attach(router: bot.router, plugins: plugins)
        return Class(
            bot: bot, control: control, boss: bot.user("boss", account: "teacher"),
            deputy: bot.user("deputy", account: "helper"))
    }

    @Test func anOwnerWhoChoseFrenchReadsTheOwnerCommandsInFrench() async throws {
        let folder = try TemporaryDirectory(prefix: "owner-language")
        let klass = try await Self.makeClass(in: folder)
        let (en, fr) = (Self.catalogs.phrasebook(.english), Self.catalogs.phrasebook(.french))
        #expect(
            await klass.ask("!lang fr", as: klass.boss).first?.text == fr("lang.set", ["language": "français (fr)"]))

        // Each answer is the French message, and not the English one.
        let answers: [(String, String, [String: any PhraseValue])] = [
            ("!ignores", "owner.ignores.none", [:]),
            (
                "!ignore spammer 60", "owner.ignore.forTime",
                ["mask": "spammer!*@*", "duration": fr("duration.minutes", ["count": 60])]
            ),
            ("!unignore spammer", "owner.unignore.done", ["mask": "spammer!*@*"]),
            ("!unignore spammer", "owner.unignore.notIgnored", ["mask": "spammer!*@*", "command": "!ignores"]),
            ("!ignore spammer 0", "owner.ignore.badMinutes", [:]),
            ("!ignore", "owner.ignore.usage", ["command": "!ignore"]),
            ("!join #study-group", "owner.notConnected", [:]),
            ("!join nowhere", "owner.join.usage", ["command": "!join"]),
            ("!part", "owner.part.usage", ["command": "!part"]),
            ("!say MapBot hi", "owner.say.notToSelf", [:]),
            ("!reload", "owner.reload.noFile", [:]),
            ("!pin", "owner.pin.usage", ["command": "!pin remove"]),
            ("!pin remove Zed Nobody", "owner.pin.noMatch", ["query": "Zed Nobody"]),
        ]
        for (typed, key, values) in answers {
            let lines = await klass.ask(typed, as: klass.boss).map(\.text)
            #expect(lines == [fr(key, values)], "\(typed)")
            #expect(fr(key, values) != en(key, values), "\(key) is not translated")
        }
        // A listed ignore: its entry and the time left in French.
        _ = await klass.ask("!ignore spammer 30", as: klass.boss)
        let left = fr("owner.ignores.minutesLeft", ["minutes": 30])
        let entry = fr("owner.ignores.entry", ["mask": "spammer!*@*", "left": left, "by": "boss"])
        #expect(
            await klass.ask("!ignores", as: klass.boss).map(\.text) == [
                fr("owner.ignores.list", ["count": 1, "masks": entry])
            ])

        // `!status`: its first line and the counts, in French.
        let status = await klass.ask("!status", as: klass.boss).map(\.text)
        let uptime = try #require(status.first?.split(separator: "depuis ").last?.split(separator: " ;").first)
        #expect(
            status.first
                == fr("owner.status.console", ["version": BotVersion.current, "uptime": String(uptime)]))
        let counts = [
            fr("owner.status.loggedIn", ["count": 0]), fr("owner.status.ignored", ["count": 1]),
        ]
        #expect(status.last == counts.joined(separator: "; ") + ".", "\(status)")

        // The other owner, who chose nothing, still reads English in private.
        #expect(await klass.ask("!ignores", as: klass.deputy).first?.text.hasPrefix("Ignoring 1: spammer!*@*") == true)
    }

    /// An owner who chose nothing reads the channel's language there, and `!help` of an owner
    /// command gives its usage, help and example in that language.
    @Test func anOwnerReadsTheChannelsLanguageAndTheHelpOfOwnerCommands() async throws {
        let folder = try TemporaryDirectory(prefix: "owner-channel-language")
        let klass = try await Self.makeClass(in: folder)
        let fr = Self.catalogs.phrasebook(.french)
        #expect(
            await klass.ask("!ignores", as: klass.deputy, in: "#classe").map(\.text) == [
                "deputy: " + fr("owner.ignores.none")
            ])
        let help = await klass.ask("!help join", as: klass.deputy, in: "#classe").map(\.text)
        #expect(
            help == [
                "deputy: " + fr("command.join.usage") + " — " + fr("command.join.help") + " ("
                    + fr("help.ownersOnly") + ")",
                "deputy: "
                    + fr(
                        "help.exampleExplained",
                        ["example": "!join #study-group", "explanation": fr("example.join.channel")]),
            ])
    }

    /// An alert raised for the owners reaches each in their language: the one they chose, else the
    /// network's default (here German); `!status` lists it in the asker's.
    @Test func anAlertIsToldInEachOwnersLanguage() async throws {
        let folder = try TemporaryDirectory(prefix: "owner-alert-language")
        let klass = try await Self.makeClass(in: folder, fallback: .german)
        let (de, ja) = (Self.catalogs.phrasebook(.german), Self.catalogs.phrasebook(.japanese))
        _ = await klass.ask("!lang ja", as: klass.boss)
        let alert = OwnerAlert(
            message: "owner.alert.inviteOnly", values: ["channel": "#locked", "invite": "/invite MapBot #locked"])
        #expect(await klass.bot.router.raiseOwnerAlert(alert, key: "invite #locked"))

        // With their next command, each owner hears it once, as a private notice in their language.
        let boss = await klass.ask("!ignores", as: klass.boss)
        #expect(boss.first { $0.kind == .notice }?.text == alert.text(in: ja))
        #expect(boss.first { $0.kind == .notice }?.target == "boss")
        let deputy = await klass.ask("!ignores", as: klass.deputy)
        #expect(deputy.first { $0.kind == .notice }?.text == alert.text(in: de))
        #expect(alert.text(in: de) != alert.text(in: ja))
        #expect(await klass.ask("!ignores", as: klass.deputy).allSatisfy { $0.kind != .notice })

        // `!status` lists what stands, in the asker's language.
        #expect(await klass.ask("!status", as: klass.boss).map(\.text).contains(alert.text(in: ja)))
    }
}
