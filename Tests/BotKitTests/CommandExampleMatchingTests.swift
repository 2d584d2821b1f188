import BotKit
import BotTesting
import Localization
import Testing

@Suite struct CommandExampleMatchingTests {
    @Test func aWildcardStandsForAnyTextWithinALine() {
        #expect(CommandExample.line("Ada — 3 days ago", matches: "Ada — …"))
        #expect(CommandExample.line("Ada — ", matches: "Ada — …"))
        #expect(CommandExample.line("The 31 posts, page 1 of 4:", matches: "The … posts, page 1 of …:"))
        #expect(!CommandExample.line("The 31 posts, page 1 of 4", matches: "The … posts, page 1 of …:"))
        #expect(!CommandExample.line("Bob — 3 days ago", matches: "Ada — …"))
        #expect(!CommandExample.line("ab", matches: "ab…b"))
        #expect(CommandExample.line("abb", matches: "ab…b"))
        #expect(CommandExample.line("pong", matches: "pong"))
        #expect(!CommandExample.line("pong!", matches: "pong"))
    }

    @Test func theAnswerHasExactlyTheLinesUnlessALastWildcardLineTakesTheRest() {
        let two = CommandExample("!x", answer: ["one", "t…"])
        #expect(two.matches(["one", "two"]))
        #expect(!two.matches(["one"]))
        #expect(!two.matches(["one", "two", "three"]))
        let open = CommandExample("!x", answer: ["one", "…"])
        #expect(open.matches(["one"]))
        #expect(open.matches(["one", "two", "three"]))
        #expect(!open.matches(["two"]))
        #expect(CommandExample("!x", answer: []).matches([]))
    }

    @Test func helpShowsEachExampleWithTheConfiguredPrefix() async {
        let echo = Command(
            "echo", usage: "!echo <text>", help: "Says the text back.",
            examples: [
                CommandExample("!echo hi", answer: "hi"), CommandExample("!echo a b", answer: ["a b", "…"]),
            ]
        ) { call in await call.reply(call.argument) }
        struct Echo: Plugin {
            let name = "echo"
            let commands: [Command]
        }
        let bot = TestBot(plugins: [Echo(commands: [echo]), CorePlugin()], settings: .init(prefix: "."))
        #expect(
            await bot.dm(".help echo", as: "quinn").map(\.text) == [
                ".echo <text> — Says the text back.", "e.g. .echo hi → hi", "e.g. .echo a b → a b …",
            ])
    }

    /// An example with an explanation shows it after the input in the reader's language, English
    /// included (the answer is the tests' contract, not shown); one without shows the answer in
    /// English only.
    @Test func helpShowsAnExamplesExplanationInEachLanguage() async {
        for language in Language.supported {
            var settings = CommandRouter.Settings.unlimited
            settings.languages = ChannelLanguages(fallback: language)
            let bot = TestBot(plugins: [CorePlugin()], settings: settings)
            let phrases = Catalogs.bundled.phrasebook(language)
            let lines = await bot.dm("!help ping", as: "quinn").map(\.text)
            #expect(
                lines.last
                    == phrases(
                        "help.exampleExplained", ["example": "!ping", "explanation": phrases("example.ping.alive")]),
                "\(language.tag): \(lines)")
            #expect(lines.last?.contains("pong") == false)
        }
        #expect(
            await TestBot(plugins: [CorePlugin()]).dm("!help ping", as: "quinn").map(\.text).last
                == "e.g. !ping — checks that the bot answers")
    }

    /// `!help` of a command with secret arguments shows its usage in the example, never the example's
    /// password: help may be asked in a channel.
    @Test func helpNeverShowsTheWordsOfASecretCommandsExample() async {
        let secret = Command(
            "login", usage: "!login <email> <password>", help: "Logs you in.", allowed: .privateMessage,
            hasSecretArguments: true,
            examples: [CommandExample("!login ada@demo.local hunter2-demo", answer: "Welcome, Ada!")]
        ) { call in await call.reply("Welcome, Ada!") }
        struct Login: Plugin {
            let name = "login"
            let commands: [Command]
        }
        let bot = TestBot(plugins: [Login(commands: [secret]), CorePlugin()])
        let lines = await bot.say("!help login", in: "#class", as: "quinn").map(\.text)
        #expect(lines.contains { $0.hasSuffix("e.g. !login <email> <password> → Welcome, Ada!") })
        #expect(!lines.contains { $0.contains("hunter2-demo") || $0.contains("ada@demo.local") })
    }
}
