import BotTesting
import Foundation
import Localization
import Testing

/// The built `onthemap-bot` on a real ngircd over TLS, with one English and one Spanish channel as
/// an instructor configures them: each student reads answers in the language they chose with
/// `!lang` (kept with their account across a restart; for the nick of someone not logged in),
/// else in the channel's; each channel hears announcements in its own language.
@Suite(.serialized, .timeLimit(.minutes(3))) struct LanguageLiveTests {
    @Test func eachStudentReadsTheirLanguageAndEachChannelItsOwn() async throws {
        let catalogs = try Catalogs(folder: Catalogs.bundledFolder())
        let (en, es, fr) = (
            catalogs.phrasebook(.english), catalogs.phrasebook(.spanish), catalogs.phrasebook(.french)
        )
        let emptyMap: [String: any PhraseValue] = ["hint": "/msg MapBot !post"]
        // The sentences checked are translated: a missing translation would read as English.
        #expect(es("near.mapEmpty", emptyMap) != en("near.mapEmpty", emptyMap))
        #expect(
            fr("units.current", ["unit": "km", "command": "!units"])
                != en("units.current", ["unit": "km", "command": "!units"]))
        #expect(es("announce.new", ["name": "Tom Li"]) != en("announce.new", ["name": "Tom Li"]))

        try await NgircdServer.withRunning { server in
            let folder = try TemporaryDirectory(prefix: "bot-languages")
            let database = folder.file("class.sqlite")
            try await BotFaultLiveTests.makeDatabase(database)
            func connect(_ nick: String) async throws -> TestIRCUser {
                try await TestIRCUser.connect(
                    port: server.tlsPort, caFile: server.certificate.certificatePath, nick: nick)
            }
            let jane = try await connect("jane")
            let tom = try await connect("tom")
            let bob = try await connect("bob")
            try await jane.join("#class")
            try await jane.join("#clase")
            try await tom.join("#class")
            let config = """
                irc:
                  server: 127.0.0.1
                  port: \(server.tlsPort)
                  tls_ca_file: \(server.certificate.certificatePath)
                  nick: MapBot
                  channels: ["#class", {name: "#clase", language: es}]
                  announce_to: ["#class", "#clase"]
                  flood: {enabled: false}
                service:
                  database: \(database)
                """
            func startBot() async throws -> BotFaultLiveTests.RunningBot {
                let bot = try BotFaultLiveTests.startBot(config: config, in: folder)
                _ = try await jane.waitForMessage(timeout: .seconds(30), "the bot joins #clase") {
                    $0.command == "JOIN" && $0.sourceNick == "MapBot" && $0.parameters.first == "#clase"
                }
                return bot
            }
            func answer(to user: TestIRCUser, _ target: String, _ text: String) async throws -> String {
                try await user.privmsg(target, text)
                return try await BotFaultLiveTests.reply(from: "MapBot", to: user)
            }
            var bot = try await startBot()
            do {
                // In the Spanish channel, a student who chose nothing reads Spanish.
                #expect(try await answer(to: jane, "#clase", "!near Paris") == "jane: " + es("near.mapEmpty", emptyMap))
                // In the English channel, English.
                #expect(try await answer(to: jane, "#class", "!near Paris") == "jane: " + en("near.mapEmpty", emptyMap))

                // Jane logs in and chooses Spanish: her answers are Spanish in the English channel too,
                // while Tom, who chose nothing, still reads English there.
                try await BotFaultLiveTests.logIn(jane, BotFaultLiveTests.jane, to: "MapBot")
                #expect(
                    try await answer(to: jane, "MapBot", "!lang es")
                        == es("lang.set", ["language": "español (es)"]))
                #expect(try await answer(to: jane, "#class", "!near Paris") == "jane: " + es("near.mapEmpty", emptyMap))
                #expect(try await answer(to: tom, "#class", "!near Paris") == "tom: " + en("near.mapEmpty", emptyMap))

                // Bob, not logged in, keeps French for his nick and is told it is not kept.
                try await bob.privmsg("MapBot", "!lang fr")
                let bobs = try await bob.waitForMessages(count: 2, timeout: .seconds(10), "two lines") {
                    $0.command == "PRIVMSG" && $0.sourceNick == "MapBot"
                }
                #expect(
                    bobs.map { $0.parameters.last ?? "" } == [
                        fr("lang.set", ["language": "français (fr)"]), fr("lang.notKept", ["login": "!login"]),
                    ])
                #expect(
                    try await answer(to: bob, "MapBot", "!units")
                        == fr("units.current", ["unit": "km", "command": "!units"]))
                // A code with no catalogue changes nothing and lists the languages.
                let unknown = try await answer(to: bob, "MapBot", "!lang xx")
                #expect(unknown.contains("\"xx\"") && unknown.contains("pt-BR"), "\(unknown)")
                #expect(
                    try await answer(to: bob, "MapBot", "!units")
                        == fr("units.current", ["unit": "km", "command": "!units"]))

                // Tom posts: each channel hears the new pin in its own language.
                try await BotFaultLiveTests.logIn(tom, BotFaultLiveTests.tom, to: "MapBot")
                try await tom.privmsg("MapBot", "!post Paris | https://tom.example")
                let heard = try await jane.waitForMessages(count: 2, timeout: .seconds(20), "the announcements") {
                    $0.command == "PRIVMSG" && $0.sourceNick == "MapBot" && $0.parameters.first?.hasPrefix("#") == true
                }
                let byChannel = Dictionary(
                    heard.map { ($0.parameters.first ?? "", $0.parameters.last ?? "") }, uniquingKeysWith: { a, _ in a }
                )
                #expect(
                    byChannel["#clase"]?.hasPrefix(es("announce.new", ["name": "Tom Li"]) + " — ") == true, "\(heard)")
                #expect(
                    byChannel["#class"]?.hasPrefix(en("announce.new", ["name": "Tom Li"]) + " — ") == true, "\(heard)")

                // After a restart Jane's choice is still hers: it is kept with her account.
                try await bot.stop()
                bot = try await startBot()
                try await BotFaultLiveTests.logIn(jane, BotFaultLiveTests.jane, to: "MapBot")
                try await jane.privmsg("MapBot", "!lang")
                let shown = try await jane.waitForMessages(count: 2, timeout: .seconds(10), "!lang's two lines") {
                    $0.command == "PRIVMSG" && $0.sourceNick == "MapBot"
                }
                #expect(
                    shown.first?.parameters.last
                        == es("lang.current", ["language": "español (es)", "how": es("lang.chosenWithAccount")]))
                // `!lang auto` goes back to the default, said in the default language.
                #expect(
                    try await answer(to: jane, "MapBot", "!lang auto")
                        == en("lang.reset", ["language": "English (en)"]))
            } catch {
                try await bot.stop()
                throw error
            }
            try await bot.stop()
            for user in [jane, tom, bob] { await user.quit() }
        }
    }
}
