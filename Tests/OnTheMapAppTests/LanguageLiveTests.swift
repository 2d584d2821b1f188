import BotTesting
import Foundation
import Localization
import Testing

/// The built `onthemap-bot` on a real ngircd over TLS, with one English and one Spanish channel as
/// an instructor configures them: each student reads answers in the language they chose with
/// `!lang` (kept with their account across a restart; for the nick of someone not logged in),
/// else in the channel's; each channel hears announcements in its own language, places included
/// (their countries and regions named from the installed iso-codes). An owner's commands answer
/// in the owner's language too, and `!help` explains each example in the reader's.
@Suite(.tags(.startsProcesses), .serialized, .timeLimit(.minutes(3))) struct LanguageLiveTests {
    @Test func eachStudentReadsTheirLanguageAndEachChannelItsOwn() async throws {
        let catalogs = try Catalogs(folder: Catalogs.bundledFolder())
        let (en, es, fr) = (
            catalogs.phrasebook(.english), catalogs.phrasebook(.spanish), catalogs.phrasebook(.french)
        )
        let units: [String: any PhraseValue] = ["unit": "km", "command": "!units"]
        let announced: [String: any PhraseValue] = ["name": "Tom Li"]
        // The sentences checked are translated: a missing translation would read as English.
        #expect(es("units.current", units) != en("units.current", units))
        #expect(fr("units.current", units) != en("units.current", units))
        #expect(es("announce.namesOnly.new", announced) != en("announce.namesOnly.new", announced))

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
                  owners: ["bob!*@*"]
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
            /// What the bot answers `user` for `text` said to `target`: its next private line to them,
            /// or its next line in the channel addressed to them (others' answers are skipped).
            func answer(to user: TestIRCUser, _ target: String, _ text: String) async throws -> String {
                try await user.privmsg(target, text)
                let nick = await user.nick
                let line = try await user.waitForMessage(timeout: .seconds(10), "an answer to \(text)") {
                    guard $0.command == "PRIVMSG" || $0.command == "NOTICE", $0.sourceNick == "MapBot" else {
                        return false
                    }
                    return $0.parameters.first == nick
                        || ($0.parameters.first == target && $0.parameters.last?.hasPrefix(nick + ": ") == true)
                }
                return line.parameters.last ?? ""
            }
            func logIn(_ user: TestIRCUser, _ account: (email: String, password: String)) async throws {
                let welcome = try await answer(to: user, "MapBot", "!login \(account.email) \(account.password)")
                #expect(welcome.contains("You are logged in"), "\(welcome)")
            }
            var bot = try await startBot()
            do {
                // In the Spanish channel, a student who chose nothing reads Spanish; in the English
                // channel, English.
                #expect(try await answer(to: jane, "#clase", "!units") == "jane: " + es("units.current", units))
                #expect(try await answer(to: jane, "#class", "!units") == "jane: " + en("units.current", units))

                // Jane logs in and chooses Spanish: her answers are Spanish in the English channel too,
                // while Tom, who chose nothing, still reads English there.
                try await logIn(jane, BotFaultLiveTests.jane)
                #expect(
                    try await answer(to: jane, "MapBot", "!lang es")
                        == es("lang.set", ["language": "español (es)"]))
                #expect(try await answer(to: jane, "#class", "!units") == "jane: " + es("units.current", units))
                #expect(try await answer(to: tom, "#class", "!units") == "tom: " + en("units.current", units))
                // Her private `!post` steps are Spanish too: the place found, the link step, `!cancel`.
                try await jane.privmsg("MapBot", "!post Lisbon")
                let steps = try await jane.waitForMessages(count: 2, timeout: .seconds(10), "the post's two lines") {
                    $0.command == "PRIVMSG" && $0.sourceNick == "MapBot" && $0.parameters.first == "jane"
                }.map { $0.parameters.last ?? "" }
                #expect(steps[0].hasPrefix("Encontré Lisbon"), "\(steps)")
                #expect(steps[1].hasPrefix("Ahora envía tu enlace: !link https://…"), "\(steps)")
                #expect(try await answer(to: jane, "MapBot", "!cancel") == es("post.cancelled"))
                // `!help near` explains its example in Spanish.
                try await jane.privmsg("MapBot", "!help near")
                let help = try await jane.waitForMessages(count: 2, timeout: .seconds(10), "the help of !near") {
                    $0.command == "PRIVMSG" && $0.sourceNick == "MapBot" && $0.parameters.first == "jane"
                }.map { $0.parameters.last ?? "" }
                #expect(help[0].hasPrefix(es("command.near.usage") + " — " + es("command.near.help")), "\(help)")
                #expect(
                    help[1]
                        == es(
                            "help.exampleExplained",
                            ["example": "!near Paris", "explanation": es("example.near.place")]))
                #expect(help[1] == "p. ej. !near Paris — los compañeros más cercanos a Paris")

                // Bob, not logged in, keeps French for his nick and is told it is not kept.
                try await bob.privmsg("MapBot", "!lang fr")
                let bobs = try await bob.waitForMessages(count: 2, timeout: .seconds(10), "two lines") {
                    $0.command == "PRIVMSG" && $0.sourceNick == "MapBot"
                }
                #expect(
                    bobs.map { $0.parameters.last ?? "" } == [
                        fr("lang.set", ["language": "français (fr)"]), fr("lang.notKept", ["login": "!login"]),
                    ])
                #expect(try await answer(to: bob, "MapBot", "!units") == fr("units.current", units))
                // A code with no catalogue changes nothing and lists the languages.
                let languages = Language.supported.map { "\($0.tag) \($0.nativeName)" }.joined(separator: ", ")
                #expect(
                    try await answer(to: bob, "MapBot", "!lang xx")
                        == fr("lang.unknown", ["code": "xx", "languages": languages, "command": "!lang"]))
                #expect(try await answer(to: bob, "MapBot", "!units") == fr("units.current", units))
                // Bob is one of the bot's owners (`irc.owners`): the owner commands answer him in
                // French as well, `!status` included.
                #expect(try await answer(to: bob, "MapBot", "!ignores") == fr("owner.ignores.none"))
                #expect(
                    try await answer(to: bob, "MapBot", "!ignore mallory 30")
                        == fr(
                            "owner.ignore.forTime",
                            ["mask": "mallory!*@*", "duration": fr("duration.minutes", ["count": 30])]))
                try await bob.privmsg("MapBot", "!status")
                let link =
                    fr("owner.status.registered") + " sur 127.0.0.1:\(server.tlsPort)" + fr("owner.status.tls")
                let status =
                    try await bob.waitForMessage(timeout: .seconds(10), "the first line of !status") {
                        $0.sourceNick == "MapBot" && $0.parameters.last?.hasPrefix("On The Map ") == true
                    }.parameters.last ?? ""
                #expect(status.contains(" en marche depuis ") && status.contains("IRC : " + link), "\(status)")
                // Its counts: Jane is logged in, Mallory ignored.
                let loggedIn = fr("owner.status.loggedIn", ["count": 1])
                let counts =
                    try await bob.waitForMessage(timeout: .seconds(10), "the counts of !status") {
                        $0.sourceNick == "MapBot" && $0.parameters.last?.hasPrefix(loggedIn) == true
                    }.parameters.last ?? ""
                #expect(
                    counts.hasPrefix(loggedIn + "; " + fr("owner.status.ignored", ["count": 1]) + "; "), "\(counts)")

                // Tom posts: each channel hears the new pin in its own language (names only, as
                // anyone may join these channels while the map is for the class).
                try await logIn(tom, BotFaultLiveTests.tom)
                try await tom.privmsg("MapBot", "!post Paris | https://tom.example")
                for (channel, expected) in [
                    ("#clase", es("announce.namesOnly.new", announced)),
                    ("#class", en("announce.namesOnly.new", announced)),
                ] {
                    _ = try await jane.waitForMessage(timeout: .seconds(20), "\(channel) hears: \(expected)") {
                        $0.command == "PRIVMSG" && $0.sourceNick == "MapBot" && $0.parameters == [channel, expected]
                    }
                }

                // After a restart Jane's choice is still hers: it is kept with her account.
                try await bot.stop()
                bot = try await startBot()
                try await logIn(jane, BotFaultLiveTests.jane)
                #expect(
                    try await answer(to: jane, "MapBot", "!lang")
                        == es("lang.current", ["language": "español (es)", "how": es("lang.chosenWithAccount")]))
                let list = es("lang.available", ["languages": "", "command": "!lang"]).prefix(8)
                _ = try await jane.waitForMessage(timeout: .seconds(10), "the list of languages") {
                    $0.sourceNick == "MapBot" && $0.parameters.last?.hasPrefix(String(list)) == true
                }

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

    /// A student who chose French, then Spanish, reads a pin's country (and region) in that language
    /// in `!where` and `!list`; the English channel's announcement names the place as stored.
    @Test func placesReadInTheReadersLanguage() async throws {
        let catalogs = try Catalogs(folder: Catalogs.bundledFolder(), placeNames: .installed)
        let (en, es, fr) = (
            catalogs.phrasebook(.english), catalogs.phrasebook(.spanish), catalogs.phrasebook(.french)
        )
        let stored = "Munich, Bavaria, Germany"
        // The names checked are translated here: without iso-codes they would read as stored.
        #expect(fr.place(stored) == "Munich, Bavière, Allemagne")
        #expect(es.place(stored) == "Munich, Bavaria, Alemania")

        try await NgircdServer.withRunning { server in
            let folder = try TemporaryDirectory(prefix: "bot-place-names")
            let database = folder.file("class.sqlite")
            try await BotFaultLiveTests.makeDatabase(database)
            func connect(_ nick: String) async throws -> TestIRCUser {
                try await TestIRCUser.connect(
                    port: server.tlsPort, caFile: server.certificate.certificatePath, nick: nick)
            }
            let jane = try await connect("jane")
            let tom = try await connect("tom")
            try await jane.join("#class")
            let config = """
                irc:
                  server: 127.0.0.1
                  port: \(server.tlsPort)
                  tls_ca_file: \(server.certificate.certificatePath)
                  nick: MapBot
                  channels: ["#class"]
                  announce_to: ["#class"]
                  flood: {enabled: false}
                service:
                  database: \(database)
                privacy:
                  open_channel: full   # the channel has no key: the announcement with its place is tested
                """
            let bot = try BotFaultLiveTests.startBot(config: config, in: folder)
            do {
                _ = try await jane.waitForMessage(timeout: .seconds(30), "the bot joins #class") {
                    $0.command == "JOIN" && $0.sourceNick == "MapBot" && $0.parameters.first == "#class"
                }
                /// The bot's next private line to `user` after they say `text` to it.
                func answer(to user: TestIRCUser, _ text: String) async throws -> String {
                    try await user.privmsg("MapBot", text)
                    let nick = await user.nick
                    let line = try await user.waitForMessage(timeout: .seconds(10), "an answer to \(text)") {
                        ($0.command == "PRIVMSG" || $0.command == "NOTICE") && $0.sourceNick == "MapBot"
                            && $0.parameters.first == nick
                    }
                    return line.parameters.last ?? ""
                }
                for (user, account) in [(jane, BotFaultLiveTests.jane), (tom, BotFaultLiveTests.tom)] {
                    let welcome = try await answer(to: user, "!login \(account.email) \(account.password)")
                    #expect(welcome.contains("You are logged in"), "\(welcome)")
                }
                #expect(try await answer(to: jane, "!lang fr") == fr("lang.set", ["language": "français (fr)"]))

                // Tom posts Munich: the English channel hears the place as stored.
                try await tom.privmsg("MapBot", "!post Munich | https://tom.example")
                _ = try await tom.waitForMessage(timeout: .seconds(20), "Tom's pin is saved") {
                    $0.sourceNick == "MapBot" && $0.parameters.last?.hasPrefix("You are on the map") == true
                }
                let announced = [en("announce.new", ["name": "Tom Li"]), stored, "https://tom.example"]
                    .joined(separator: " — ")
                _ = try await jane.waitForMessage(timeout: .seconds(20), "#class hears: \(announced)") {
                    $0.command == "PRIVMSG" && $0.sourceNick == "MapBot" && $0.parameters == ["#class", announced]
                }

                // Jane reads the country in French, then, after `!lang es`, in Spanish.
                let whereTom = try await answer(to: jane, "!where Tom")
                #expect(
                    whereTom.hasPrefix("Tom Li — Munich, Bavière, Allemagne — https://tom.example — "), "\(whereTom)")
                #expect(try await answer(to: jane, "!lang es") == es("lang.set", ["language": "español (es)"]))
                try await jane.privmsg("MapBot", "!list")
                let listed = try await jane.waitForMessage(timeout: .seconds(10), "Tom's pin in the list") {
                    $0.sourceNick == "MapBot" && $0.parameters.last?.hasPrefix("1. Tom Li — ") == true
                }
                #expect(
                    listed.parameters.last?.hasPrefix("1. Tom Li — Munich, Bavaria, Alemania — https://tom.example — ")
                        == true, "\(listed.parameters)")
                // No warning about missing place names: iso-codes is installed.
                #expect(!bot.log.contains("place names stay as stored"))
            } catch {
                try await bot.stop()
                throw error
            }
            try await bot.stop()
            for user in [jane, tom] { await user.quit() }
        }
    }
}
