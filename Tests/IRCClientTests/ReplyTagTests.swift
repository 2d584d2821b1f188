import IRCProtocol
import Testing

@testable import IRCClient

/// Threaded answers: a channel answer to a line the server gave a `msgid` carries `+reply` where
/// the server passes client tags (`+draft/reply` where it still names only the draft), and never
/// where it does not, nor on a line that answers several askers at once. A private answer to a
/// channel command carries `+channel-context`.
@Suite("Reply tags")
struct ReplyTagTests {
    typealias Machine = ConnectionStateMachineTests

    /// A machine registered as `bot` with `capabilities` acknowledged and the ISUPPORT `tokens`.
    static func registered(capabilities: String, tokens: String = "") -> ConnectionStateMachine {
        var machine = Machine.machine()
        _ = machine.connected(at: Machine.at(0))
        _ = Machine.receive(
            ":srv CAP * LS :\(capabilities)", ":srv CAP * ACK :\(capabilities)", ":srv 001 bot :Welcome",
            into: &machine)
        if !tokens.isEmpty { _ = Machine.receive(":srv 005 bot \(tokens) :are supported", into: &machine) }
        _ = Machine.receive(":srv 376 bot :End of MOTD", into: &machine)
        return machine
    }

    static func answer(to id: String?, in target: String = "#class") -> OutgoingText {
        OutgoingText(
            .privmsg, to: target, text: "alice: pong", fairnessKey: target.hasPrefix("#") ? "alice" : nil,
            inReplyTo: id)
    }

    /// The serialized lines `machine` makes of `texts`.
    static func lines(_ machine: ConnectionStateMachine, _ texts: [OutgoingText]) -> [String] {
        machine.lines(for: texts, shrinking: false).map { $0.message.serialized() }
    }

    @Test func aChannelAnswerCarriesTheQuestionsIDWhereTheServerPassesClientTags() {
        let machine = Self.registered(capabilities: "message-tags")
        #expect(
            Self.lines(machine, [Self.answer(to: "Zx8Pq2")]) == ["@+reply=Zx8Pq2 PRIVMSG #class :alice: pong"])
        // The queue's copy of the line (what merging and dropping rewrite) says the same.
        #expect(
            machine.lines(for: [Self.answer(to: "Zx8Pq2")], shrinking: false).first?.answer.line
                == "@+reply=Zx8Pq2 PRIVMSG #class :alice: pong")
        // No id, or a private answer: no tag.
        #expect(Self.lines(machine, [Self.answer(to: nil)]) == ["PRIVMSG #class :alice: pong"])
        #expect(Self.lines(machine, [Self.answer(to: "Zx8Pq2", in: "alice")]) == ["PRIVMSG alice :alice: pong"])
    }

    @Test func withoutMessageTagsNothingChanges() {
        let machine = Self.registered(capabilities: "server-time account-tag")
        #expect(Self.lines(machine, [Self.answer(to: "Zx8Pq2")]) == ["PRIVMSG #class :alice: pong"])
    }

    /// CLIENTTAGDENY as the message-tags spec writes it: a list of denied tags, `*` for all of them,
    /// `-name` for an exemption from `*`. The ratified `+reply` goes wherever it is not denied; the
    /// draft's `+draft/reply` only where the server names the draft as passed and not the ratified tag.
    @Test(arguments: [
        ("", ["+reply"]),
        ("CLIENTTAGDENY=*", [String]()),
        ("CLIENTTAGDENY=draft/reply", ["+reply"]),
        ("CLIENTTAGDENY=reply", []),
        ("CLIENTTAGDENY=*,-draft/reply", ["+draft/reply"]),
        ("CLIENTTAGDENY=typing,draft/react", ["+reply"]),
        ("CLIENTTAGDENY=*,-draft/reply,-reply", ["+reply"]),
        ("CLIENTTAGDENY=*,-reply", ["+reply"]),
    ])
    func clientTagDenyDecidesWhichReplyTagsGo(tokens: String, expected: [String]) {
        let machine = Self.registered(capabilities: "message-tags", tokens: tokens)
        let line = machine.lines(for: [Self.answer(to: "abc")], shrinking: false)[0]
        #expect(line.message.tags.keys.sorted() == expected)
        #expect(line.message.tags.values.allSatisfy { $0 == "abc" })
    }

    /// A private answer to a command said in `#class` carries `+channel-context=#class` where the
    /// server passes client tags, on every line; never without `message-tags`, where CLIENTTAGDENY
    /// denies it, for a name that is not a channel, or on a channel answer.
    @Test func aPrivateAnswerToAChannelCommandNamesTheChannel() {
        let whisper = OutgoingText(.notice, to: "alice", text: "psst", channelContext: "#class")
        let machine = Self.registered(capabilities: "message-tags")
        #expect(Self.lines(machine, [whisper]) == ["@+channel-context=#class NOTICE alice psst"])
        let long = OutgoingText(
            .privmsg, to: "alice", text: String(repeating: "word ", count: 150), channelContext: "#class")
        let split = machine.lines(for: [long], shrinking: false)
        #expect(split.count >= 2 && split.allSatisfy { $0.message.tags == ["+channel-context": "#class"] })
        #expect(
            Self.lines(Self.registered(capabilities: "server-time"), [whisper]) == ["NOTICE alice psst"])
        #expect(
            Self.lines(Self.registered(capabilities: "message-tags", tokens: "CLIENTTAGDENY=*"), [whisper])
                == ["NOTICE alice psst"])
        #expect(
            Self.lines(
                Self.registered(capabilities: "message-tags", tokens: "CLIENTTAGDENY=*,-channel-context"), [whisper])
                == ["@+channel-context=#class NOTICE alice psst"])
        var notAChannel = whisper
        notAChannel.channelContext = "bob"
        #expect(Self.lines(machine, [notAChannel]) == ["NOTICE alice psst"])
        var inChannel = Self.answer(to: nil)
        inChannel.channelContext = "#class"
        #expect(Self.lines(machine, [inChannel]) == ["PRIVMSG #class :alice: pong"])
    }

    @Test func serverSupportReadsClientTagDeny() {
        var support = ServerSupport()
        #expect(support.allowsClientTag("draft/reply"))
        support.apply(token: "CLIENTTAGDENY=*,-draft/reply,-+reply")
        #expect(support.allowsClientTag("draft/reply"))
        #expect(support.allowsClientTag("reply"))
        #expect(!support.allowsClientTag("typing"))
        #expect(support.exemptsClientTag("reply"))
        support.apply(token: "-CLIENTTAGDENY")
        #expect(support.allowsClientTag("typing"))
        #expect(!support.exemptsClientTag("reply"))
    }

    /// The id is the server's, but a hostile or odd one cannot break the line: the value is escaped
    /// as message-tags says, and an overlong one is not sent.
    @Test func theTagValueIsEscaped() throws {
        let machine = Self.registered(capabilities: "message-tags")
        let line = Self.lines(machine, [Self.answer(to: "a;b c\\d\re\nf")])[0]
        #expect(line == "@+reply=a\\:b\\sc\\\\d\\re\\nf PRIVMSG #class :alice: pong")
        #expect(try IRCMessage(parsing: line).tags["+reply"] == "a;b c\\d\re\nf")
        let long = String(repeating: "x", count: ConnectionStateMachine.maximumReplyIDBytes + 1)
        #expect(Self.lines(machine, [Self.answer(to: long)]) == ["PRIVMSG #class :alice: pong"])
    }

    /// Every line of a long answer is a reply to the same question.
    @Test func everyLineOfASplitAnswerIsAReply() {
        let machine = Self.registered(capabilities: "message-tags")
        let long = OutgoingText(
            .privmsg, to: "#class", text: "alice: " + String(repeating: "word ", count: 150), fairnessKey: "alice",
            inReplyTo: "q1")
        let lines = machine.lines(for: [long], shrinking: false)
        #expect(lines.count >= 2)
        #expect(lines.allSatisfy { $0.message.tags == ["+reply": "q1"] })
    }

    /// Two askers given the same answer get one line naming both: it answers two questions, so it
    /// is threaded under neither. Packed answers alike. An answer that stays one asker's keeps its
    /// tag when someone else leaves.
    @Test func mergedAndPackedAnswersCarryNoReplyTag() throws {
        let machine = Self.registered(capabilities: "message-tags")
        var queue = SendQueue(capacity: 100)
        for (nick, id) in [("alice", "q1"), ("bob", "q2")] {
            let text = OutgoingText(
                .privmsg, to: "#class", text: "\(nick): pong", fairnessKey: nick, inReplyTo: id)
            for line in machine.lines(for: [text], shrinking: false) {
                queue.enqueue(
                    line.message.serialized(), fairnessKey: line.fairnessKey, answer: line.answer)
            }
        }
        #expect(queue.removeFirstEntry()?.line == "PRIVMSG #class :alice, bob: pong")

        var packing = SendQueue(capacity: 100)
        var lone: SendQueue.Answer?
        for (nick, id, body) in [("alice", "q1", "Berlin"), ("bob", "q2", "Paris"), ("carol", "q3", "Rome")] {
            let text = OutgoingText(
                .privmsg, to: "#class", text: "\(nick): \(body)", fairnessKey: nick, inReplyTo: id)
            for line in machine.lines(for: [text], shrinking: false) {
                if nick == "carol" {
                    lone = line.answer
                    continue
                }
                packing.enqueue(line.message.serialized(), fairnessKey: line.fairnessKey, answer: line.answer)
            }
        }
        #expect(packing.removeFirstEntry(packing: true)?.line == "PRIVMSG #class :alice: Berlin · bob: Paris")

        var departing = SendQueue(capacity: 100)
        let carol = try #require(lone)
        departing.enqueue(carol.line, fairnessKey: "carol", answer: carol)
        let quit = try #require(SendQueue.Departure(try IRCMessage(parsing: ":dave!d@h QUIT :bye")))
        departing.dropLines(of: quit)
        #expect(departing.removeFirstEntry()?.line == "@+reply=q3 PRIVMSG #class :carol: Rome")
    }
}
