import BotKit
import BotTesting
import IRCProtocol
import Logging
import Testing

@testable import IRCClient

/// NUL, CR and LF in text the bot did not write (a name, a place, a typed word) never reach the
/// wire, whatever the way out: a channel reply, a private reply, a notice, a multi-line answer, an
/// announcement, a private line from a background task, the router's own answers and a CTCP reply.
/// Each goes from the real router through the connection's line making and the serializer, the one
/// place that takes them out; every line the client would write is then checked byte by byte.
@Suite struct OutgoingScrubTests {
    /// What a directory of another kind could hand back as a student's name.
    static let hostile = "Ada\r\nPRIVMSG #class :owned\0QUIT :bye\rend\n"

    /// Answers `!echo <words>` with `hostile` and the words in every way a command can answer.
    struct EchoPlugin: Plugin {
        let name = "echo"
        var commands: [Command] {
            [
                Command("echo") { call in
                    let text = OutgoingScrubTests.hostile + call.argument
                    await call.reply(text)
                    await call.reply(lines: [text, text])
                    await call.replyPrivately(text)
                    await call.notice(text)
                    await call.say(text, in: "#class")
                }
            ]
        }
    }

    /// The lines a registered connection writes for `texts` (as the send queue would, shrunk or not).
    static func wire(_ texts: [OutgoingText]) -> [String] {
        let machine = ConnectionStateMachineTests.registered()
        return [false, true].flatMap { shrinking in
            machine.lines(for: texts, shrinking: shrinking).flatMap { [$0.message.serialized(), $0.answer.line] }
        }
    }

    static func expectClean(_ lines: [String], _ comment: Comment) {
        #expect(!lines.isEmpty, comment)
        for line in lines {
            #expect(!line.utf8.contains { $0 == 0 || $0 == 0x0A || $0 == 0x0D }, "\(comment): \(line)")
            // Each line is one PRIVMSG or NOTICE: nothing the text carried became a command.
            let parsed = try? IRCMessage(parsing: line, maxLineBytes: 16_384)
            #expect(parsed?.command == "PRIVMSG" || parsed?.command == "NOTICE", "\(comment): \(line)")
        }
    }

    @Test func noNulCROrLFReachesTheWireThroughAnyKindOfOutput() async throws {
        let bot = TestBot<TestLogin>(plugins: [CorePlugin(), EchoPlugin()])
        let typed = "typed\rword\0x"
        let user = bot.user("alice")
        // Replies, notices, multi-line answers and a line said in a channel, from a channel and privately.
        for origin in [Origin.channel("#class"), .privateMessage] {
            let sent = await bot.say("!echo \(typed)", from: user, origin: origin)
            #expect(sent.count >= 6)
            #expect(sent.contains { $0.text.contains("\r") || $0.text.contains("\n") || $0.text.contains("\0") })
            Self.expectClean(Self.wire(sent), "echo from \(origin)")
            // What the reader sees: the words, on their own lines or joined by spaces.
            let texts = Self.wire(sent).compactMap {
                (try? IRCMessage(parsing: $0, maxLineBytes: 16_384))?.parameters.last
            }
            #expect(texts.contains { $0.contains("owned QUIT :bye end") || $0.contains("owned") })
        }
        // The router's own answers: an unknown command repeats the typed word.
        let unknown = await bot.say("!no\rsuch\0command", from: user, origin: .privateMessage)
        Self.expectClean(Self.wire(unknown), "unknown command")
        // A CTCP reply carries the asker's words back.
        let ctcp = await bot.say("\u{01}PING a\rb\nc\0d\u{01}", from: user, origin: .privateMessage)
        Self.expectClean(Self.wire(ctcp), "CTCP")
        // A background task's announcement and private line.
        let context = PluginContext(transport: bot.transport, logger: Logger(label: "test"))
        _ = bot.transport.takeSent()
        await context.say(Self.hostile, in: "#class")
        await context.tell("alice", Self.hostile)
        Self.expectClean(Self.wire(bot.transport.takeSent()), "background")
    }

    /// The serializer alone, for every field a text reaches: the text, a target, a reply tag.
    @Test func theSerializerWritesNoNulCROrLFForAnyParameter() {
        let message = IRCMessage(
            tags: ["+reply": "id\r\n\0x"], command: "PRIVMSG", parameters: ["#class", Self.hostile])
        let line = message.serialized()
        #expect(!line.utf8.contains { $0 == 0 || $0 == 0x0A || $0 == 0x0D })
        #expect(line.hasSuffix(":Ada  PRIVMSG #class :owned QUIT :bye end "))
    }
}
