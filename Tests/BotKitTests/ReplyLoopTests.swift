import BotKit
import BotTesting
import Foundation
import IRCProtocol
import Testing

/// The rules that keep the bot out of reply loops with itself and with other bots.
@Suite struct ReplyLoopTests {
    func makeBot(_ settings: CommandRouter.Settings = .init()) -> TestBot<TestLogin> {
        TestBot(plugins: [CorePlugin(aboutLines: ["About"])], settings: settings)
    }

    /// A private line as the server delivers it, with its message tags.
    func line(_ text: String, from nick: String, tags: [String: String], bot: TestBot<TestLogin>) -> IRCUserMessage {
        let sender = bot.user(nick)
        return IRCUserMessage(
            sender: sender, target: "MapBot", text: text, isPrivate: true,
            message: IRCMessage(tags: tags, source: sender.mask, command: "PRIVMSG", parameters: ["MapBot", text]))
    }

    @Test func aLineFromTheBotsOwnNickGetsNoAnswer() async {
        let bot = makeBot()
        #expect(await bot.dm("hi", as: "MapBot").isEmpty)
        #expect(await bot.dm("!ping", as: "mapbot").isEmpty, "nicks compared under the server's casemapping")
        #expect(await bot.dm("!ping", as: "alice").map(\.text) == ["pong"])
    }

    @Test func aLineTheServerMarksAsABotsGetsNoAnswer() async {
        let bot = makeBot()
        for tag in ["bot", "draft/bot", "inspircd.org/bot"] {
            _ = bot.transport.takeSent()
            await bot.router.handle(line("Hi! I am another bot.", from: "OtherBot", tags: [tag: ""], bot: bot))
            await bot.router.handle(line("!ping", from: "OtherBot", tags: [tag: ""], bot: bot))
            await bot.router.waitUntilIdle()
            #expect(bot.transport.takeSent().isEmpty, "tag \(tag)")
        }
        await bot.router.handle(line("!ping", from: "alice", tags: ["time": "2026-11-26T10:00:00.000Z"], bot: bot))
        await bot.router.waitUntilIdle()
        #expect(bot.transport.takeSent().map(\.text) == ["pong"])
    }

    @Test func automaticRepliesAreNotices() async {
        let bot = makeBot()
        #expect(
            await bot.dm("hello there", as: "alice") == [
                OutgoingText(
                    .notice, to: "alice", text: "Hi! I am a class map bot. Try !help for what I can do.",
                    fairnessGroup: "h:alice.example")
            ])
        #expect(await bot.dm("!frobnicate", as: "alice").map(\.kind) == [.notice])
        #expect(await bot.dm("!ping", as: "alice").map(\.kind) == [.privmsg], "a command's answer stays a message")
    }

    @Test func chatLinesCountAgainstTheFloodRuleBeforeAnyGreeting() async {
        let bot = makeBot(CommandRouter.Settings(floodGuard: CommandFloodGuard(maxCommands: 3)))
        for _ in 0..<3 {
            #expect(await bot.dm("hello", as: "chatty").count == 1)
        }
        let fourth = await bot.dm("hello", as: "chatty")
        #expect(fourth.map(\.text) == ["You are sending commands too fast; I will ignore you for 5 minutes."])
        #expect(await bot.dm("hello", as: "chatty").isEmpty)
    }
}
