import BotKit
import BotTesting
@testable import ClassKit
import Foundation
@testable import OnTheMapApp
import OnTheMapService
import SQLiteDirectory
import Testing

@Suite struct ConfigReloadTests {
    static var base: BotConfiguration {
        var config = BotConfiguration()
        config.irc.server = "irc.example"
        config.irc.nick = "MapBot"
        config.irc.channels = [.init(name: "#class")]
        return config
    }

    /// What can change live is applied; what cannot is named as needing a restart, compared with the
    /// config the bot started with (a change undone is no longer listed).
    @Test func aReloadNamesWhatItAppliesAndWhatNeedsARestart() {
        let started = Self.base
        var new = started
        new.irc.channels.append(.init(name: "#extra"))
        new.irc.owners = ["account:teacher"]
        new.irc.flood.burst = 5
        new.irc.nick = "OtherBot"
        new.service.database = "elsewhere.sqlite"
        new.plugins.sections["near"] = .section([.init(key: "units", value: .scalar(.init(text: "mi")))])
        new.plugins.enabled.removeAll { $0 == "announce" }
        new.operatorListener.listen = "127.0.0.1:9191"
        let changes = ConfigChanges(current: started, started: started, new: new, background: ["announce"])
        #expect(changes.applied == ["irc.channels", "irc.flood", "irc.owners", "plugins.near"])
        #expect(changes.needRestart == ["irc.nick", "service", "operator", "plugins.enabled (announce)"])
        #expect(
            changes.summary(path: "bot.yaml")
                == "Reloaded bot.yaml: applied irc.channels, irc.flood, irc.owners, plugins.near; needs a restart: irc.nick, service, operator, plugins.enabled (announce)."
        )

        var undone = new
        undone.irc.nick = "MapBot"
        let again = ConfigChanges(current: new, started: started, new: undone, background: ["announce"])
        #expect(again.applied.isEmpty)
        #expect(!again.needRestart.contains("irc.nick"))
        #expect(
            ConfigChanges(current: started, started: started, new: started, background: []).summary(path: "b")
                == "Reloaded b: nothing to apply.")
    }

    /// A reload names keys only: a changed SASL password appears as "irc.sasl", never its value.
    @Test func aReloadNeverShowsAValue() {
        var new = Self.base
        var sasl = BotConfiguration.SASL()
        sasl.username = "MapBot"
        sasl.password = "hunter2-secret"
        new.irc.sasl = sasl
        let summary = ConfigChanges(current: Self.base, started: Self.base, new: new, background: []).summary(path: "b")
        #expect(summary.contains("irc.sasl"))
        #expect(!summary.contains("hunter2"))
    }

    /// `irc.owners` entries are checked when the config is read, and a mask any host matches is
    /// warned about.
    @Test func ownerEntriesAreCheckedAndOpenMasksWarned() throws {
        let yaml = """
            irc:
              server: irc.example
              nick: MapBot
              owners: ["account:teacher", "ada!*@*", "te*cher"]
            """
        #expect(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml) }
        do {
            _ = try ConfigLoader.parse(yaml: yaml)
        } catch {
            #expect(error.problems.map(\.key) == ["irc.owners[2]"])
        }
        let fine = try ConfigLoader.parse(yaml: yaml.replacingOccurrences(of: ", \"te*cher\"", with: ""))
        #expect(fine.irc.owners == ["account:teacher", "ada!*@*"])
        #expect(ConfigLoader.warnings(for: fine).map(\.key) == ["irc.owners"])
    }

    /// Bad arguments to owner commands get a plain answer and change nothing; without an IRC
    /// connection (the console) the IRC commands say so.
    @Test func ownerCommandsRefuseBadArguments() async throws {
        let folder = try TemporaryDirectory(prefix: "owner-args")
        let directory = try SQLiteStudentDirectory(path: folder.file("class.sqlite"))
        let services = ClassServices(directory: directory, trips: directory, geocoder: NoGeocoder(), places: nil)
        let control = BotControl(
            config: Self.base, configPath: nil, services: services, logger: .init(label: "t"),
            logPseudonyms: .ephemeral())
        var settings = CommandRouter.Settings.unlimited
        settings.owners = OwnerList([.account("teacher")])
        let bot = TestBot(
            plugins: [OwnerPlugin(control: control)], settings: settings, gate: services.logins)
        control.attach(router: bot.router, plugins: [])
        let owner = bot.user("ada", account: "teacher")
        func ask(_ text: String) async -> [String] {
            await bot.say(text, from: owner, origin: .privateMessage).map(\.text)
        }
        #expect(await ask("!join 0") == ["Usage: !join #channel [key] (a channel starts with # or &)."])
        #expect(await ask("!join #a,#b") == ["Usage: !join #channel [key] (a channel starts with # or &)."])
        #expect(await ask("!join #ok") == ["I am not connected to IRC here."])
        #expect(await ask("!say #class") == ["Say what? !say #class <text>."])
        #expect(await ask("!say") == ["Usage: !say <#channel|nick> <text>."])
        #expect(await ask("!ignore a b c") == ["Usage: !ignore <nick|nick!user@host> [minutes]."])
        #expect(await ask("!ignore x 0") == ["Minutes must be a whole number from 1 to 525600 (a year)."])
        #expect(await ask("!unignore x") == ["x!*@* is not ignored; !ignores lists who is."])
        #expect(await ask("!ignores") == ["Nobody is ignored."])
        #expect(await ask("!reload") == ["There is no config file to reload: this bot was not started from one."])
        #expect(await bot.router.ignoredMasks().isEmpty)
    }
}
