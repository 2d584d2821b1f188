import BotKit
import BotTesting
import Foundation
import Testing

@Suite struct TestBotAssertionTests {
    struct Refuser: Plugin {
        let name = "refuser"
        var commands: [Command] {
            [
                Command("no", usage: "!no", help: "Always refuses.", rateLimit: .perUser(every: .seconds(60))) { _ in
                    throw UserFacingError("No, thank you.")
                }
            ]
        }
    }

    @Test func theOutcomeOfACommandTellsAnAnswerFromARefusal() async {
        let bot = TestBot(plugins: [CorePlugin(), Refuser()])
        await bot.assertResponse("!ping", "pong")
        await bot.assertResponse("!ping", "pong", as: "ann", in: "#class")
        await bot.assertResponse("!help", "Commands: …", "…")
        await bot.assertError("!no", "No, thank you.")
        await bot.assertError("!no", "No, …", in: "#class")
        let chat = await bot.ask("hello there")
        #expect(chat.outcome == nil && chat.refusal?.reason == .chatLine, "\(chat)")
        await withKnownIssue { await bot.assertError("!ping") }
        await withKnownIssue { await bot.assertResponse("!no", "No, thank you.") }
        await withKnownIssue { await bot.assertResponse("!ping", "pang") }
    }

    @Test func theLimitsAreOffUnlessTheTestAsksForThem() async {
        let bot = TestBot(plugins: [CorePlugin(), Refuser()])
        for _ in 1...30 { await bot.assertResponse("!ping", "pong") }
        await bot.assertError("!no", "No, thank you.")
        let limited = TestBot(plugins: [CorePlugin(), Refuser()], settings: CommandRouter.Settings())
        await limited.assertError("!no", "No, thank you.")
        let held = await limited.ask("!no")
        #expect(held.outcome == nil && held.lines.first?.hasPrefix("Please wait") == true, "\(held)")
        #expect(held.refusal?.reason == .tooSoon, "\(held)")
    }

    @Test func oneClockDrivesTheRouterAndTheWallClock() {
        let bot = TestBot(plugins: [])
        let start = bot.now()
        bot.clock.advance(by: .seconds(90))
        #expect(bot.clock.now() == .seconds(90))
        #expect(abs(bot.now().timeIntervalSince(start) - 90) < 1)
    }
}
