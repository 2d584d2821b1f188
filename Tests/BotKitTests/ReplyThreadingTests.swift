import BotKit
import BotTesting
import IRCProtocol
import Testing

/// A command said in a channel in a line the server gave a `msgid` is answered with texts that name
/// that id (the client turns it into `+reply` where the server passes client tags); private
/// answers and answers to lines without an id name none. A private answer to a command said in a
/// channel names that channel (the client's `+channel-context`).
@Suite struct ReplyThreadingTests {
    let probe = ProbePlugin()

    func makeBot() -> TestBot<TestLogin> {
        TestBot(plugins: [CorePlugin(aboutLines: ["Place data © GeoNames"]), probe])
    }

    /// Says `text` as alice at `origin` in a line with the server's `tags`; returns the answer texts.
    func say(_ text: String, at origin: Origin, tags: [String: String], to bot: TestBot<TestLogin>) async
        -> [OutgoingText]
    {
        _ = bot.transport.takeSent()
        let sender = bot.user("alice")
        let target = origin.channelName ?? "MapBot"
        let message = IRCMessage(tags: tags, source: sender.mask, command: "PRIVMSG", parameters: [target, text])
        await bot.router.handle(
            IRCUserMessage(
                sender: sender, target: target, text: text, isPrivate: origin == .privateMessage, message: message))
        await bot.router.waitUntilIdle()
        return bot.transport.takeSent()
    }

    @Test func channelAnswersNameTheQuestionsID() async {
        let bot = makeBot()
        let sent = await say("!echo hi", at: .channel("#class"), tags: ["msgid": "Zx8Pq2"], to: bot)
        #expect(sent.map(\.text) == ["alice: hi"])
        #expect(sent.map(\.inReplyTo) == ["Zx8Pq2"])
        // The router's own answers in a channel (a warning, a refusal) are replies too.
        let refused = await say("!secret a b", at: .channel("#class"), tags: ["msgid": "m2"], to: bot)
        #expect(refused.map(\.inReplyTo) == ["m2"])
        let routerAnswer = await say("!mine", at: .channel("#class"), tags: ["msgid": "m3"], to: bot)
        #expect(routerAnswer.map(\.inReplyTo) == ["m3"])
    }

    @Test func privateAnswersAndLinesWithoutAnIDNameNone() async {
        let bot = makeBot()
        let privately = await say("!echo hi", at: .privateMessage, tags: ["msgid": "Zx8Pq2"], to: bot)
        #expect(privately.map(\.text) == ["hi"])
        #expect(privately.allSatisfy { $0.inReplyTo == nil })
        let untagged = await say("!echo hi", at: .channel("#class"), tags: [:], to: bot)
        #expect(untagged.map(\.text) == ["alice: hi"])
        #expect(untagged.allSatisfy { $0.inReplyTo == nil })
        let privateRefusal = await say("!onlyhere", at: .privateMessage, tags: ["msgid": "m4"], to: bot)
        #expect(!privateRefusal.isEmpty)
        #expect(privateRefusal.allSatisfy { $0.inReplyTo == nil })
    }

    @Test func privateAnswersToAChannelCommandNameTheChannel() async {
        let bot = makeBot()
        let fromChannel = await say("!whisper", at: .channel("#class"), tags: ["msgid": "m5"], to: bot)
        #expect(fromChannel.map(\.text) == ["psst", "noted"])
        #expect(fromChannel.map(\.target) == ["alice", "alice"])
        #expect(fromChannel.allSatisfy { $0.channelContext == "#class" && $0.inReplyTo == nil })
        // A command said privately has no channel to name; a channel answer is in its channel.
        let privately = await say("!whisper", at: .privateMessage, tags: [:], to: bot)
        #expect(privately.allSatisfy { $0.channelContext == nil })
        let inChannel = await say("!echo hi", at: .channel("#class"), tags: [:], to: bot)
        #expect(inChannel.allSatisfy { $0.channelContext == nil })
    }
}
