import IRCClient
import IRCProtocol
import Testing

@Suite("SendQueue: answers that nobody reads, merged questions, packed lines, one-line answers")
struct AnswerQueueTests {
    static func answer(
        _ text: String, to target: String, for asker: String? = nil, whole: Bool = true, budget: Int = 400,
        command: String = "PRIVMSG"
    ) -> SendQueue.Answer {
        SendQueue.Answer(
            command: command, target: target, isChannel: target.hasPrefix("#"), text: text, asker: asker,
            isWholeAnswer: whole, textBudget: budget)
    }

    /// Queues a channel answer as the client does: on behalf of the asker, addressed to them.
    static func ask(
        _ queue: inout SendQueue, _ body: String, in channel: String, by nick: String, ticket: Int? = nil,
        whole: Bool = true
    ) {
        let answer = answer("\(nick): \(body)", to: channel, for: nick, whole: whole)
        queue.enqueue(answer.line, fairnessKey: nick.lowercased(), answer: answer, ticket: ticket)
    }

    static func drain(_ queue: inout SendQueue, packing: Bool = false) -> [String] {
        var lines: [String] = []
        while let entry = queue.removeFirstEntry(packing: packing) { lines.append(entry.line) }
        return lines
    }

    static func message(_ line: String) throws -> IRCMessage {
        try IRCMessage(parsing: line, maxLineBytes: 512)
    }

    @Test func aPrivateReplyToANickThatQuitIsDropped() throws {
        var queue = SendQueue(capacity: 100)
        let toDave = Self.answer("your pin is saved", to: "Dave")
        queue.enqueue(toDave.line, fairnessKey: "dave", answer: toDave, ticket: 1)
        let toErin = Self.answer("hello", to: "erin")
        queue.enqueue(toErin.line, fairnessKey: "erin", answer: toErin, ticket: 2)
        let quit = try #require(SendQueue.Departure(try Self.message(":dave!d@host QUIT :Quit: bye")))
        #expect(queue.dropLines(of: quit) == 1)
        #expect(queue.takeDroppedTickets() == [1])
        #expect(Self.drain(&queue) == ["PRIVMSG erin hello"])
    }

    @Test func linesForANickTheServerSaysIsGoneAreDropped() throws {
        // Someone who asked privately and left without sharing a channel: the bot sees no QUIT, but
        // the server's 401 to the first line sent them (or MONITOR's offline notice) drops the rest.
        var queue = SendQueue(capacity: 100)
        for (index, nick) in ["Gone1", "Gone1", "gone2", "erin"].enumerated() {
            let line = Self.answer("line \(index)", to: nick)
            queue.enqueue(line.line, fairnessKey: nick.lowercased(), answer: line, ticket: index)
        }
        let noSuchNick = SendQueue.Departure.announced(
            by: try Self.message(":irc.test 401 MapBot GONE1 :No such nick/channel"))
        #expect(noSuchNick == [.quit(nick: "gone1")])
        for departure in noSuchNick { queue.dropLines(of: departure) }
        let offline = SendQueue.Departure.announced(by: try Self.message(":irc.test 731 MapBot :gone2,other!o@h"))
        #expect(offline == [.quit(nick: "gone2"), .quit(nick: "other")])
        for departure in offline { queue.dropLines(of: departure) }
        #expect(queue.takeDroppedTickets() == [0, 1, 2])
        #expect(Self.drain(&queue) == ["PRIVMSG erin :line 3"])
        #expect(SendQueue.Departure.announced(by: try Self.message(":irc.test 372 MapBot :- motd")).isEmpty)
    }

    @Test func channelAnswersForAnAskerWhoQuitAreDroppedInEveryChannel() throws {
        var queue = SendQueue(capacity: 100)
        Self.ask(&queue, "Berlin", in: "#class", by: "Dave")
        Self.ask(&queue, "Paris", in: "#other", by: "Dave")
        Self.ask(&queue, "Rome", in: "#class", by: "erin")
        let announcement = Self.answer("New pin: Oslo", to: "#class")
        queue.enqueue(announcement.line, fairnessKey: "#class", answer: announcement)
        let quit = try #require(SendQueue.Departure(try Self.message(":Dave!d@host QUIT :Ping timeout")))
        #expect(queue.dropLines(of: quit) == 2)
        #expect(queue.count == 2)
        #expect(Self.drain(&queue) == ["PRIVMSG #class :erin: Rome", "PRIVMSG #class :New pin: Oslo"])
    }

    @Test func channelAnswersForAnAskerWhoPartedOrWasKickedAreDroppedInThatChannelOnly() throws {
        var queue = SendQueue(capacity: 100)
        Self.ask(&queue, "Berlin", in: "#class", by: "dave")
        Self.ask(&queue, "Paris", in: "#other", by: "dave")
        Self.ask(&queue, "Rome", in: "#third", by: "dave")
        let toDave = Self.answer("private", to: "dave")
        queue.enqueue(toDave.line, fairnessKey: "dave", answer: toDave)
        let part = try #require(SendQueue.Departure(try Self.message(":dave!d@host PART #Class :later")))
        #expect(queue.dropLines(of: part) == 1)
        let kick = try #require(SendQueue.Departure(try Self.message(":op!o@host KICK #other DAVE :spam")))
        #expect(queue.dropLines(of: kick) == 1)
        #expect(Self.drain(&queue) == ["PRIVMSG #third :dave: Rome", "PRIVMSG dave private"])
    }

    @Test func theSameAnswerAskedForInOneChannelIsQueuedOnceNamingEveryAsker() {
        var queue = SendQueue(capacity: 100)
        Self.ask(&queue, "pong", in: "#class", by: "alice", ticket: 1)
        Self.ask(&queue, "pong", in: "#class", by: "bob", ticket: 2)
        Self.ask(&queue, "Berlin", in: "#class", by: "dave", ticket: 3)
        Self.ask(&queue, "pong", in: "#class", by: "carol", ticket: 4)
        Self.ask(&queue, "pong", in: "#other", by: "erin", ticket: 5)
        Self.ask(&queue, "pong", in: "#class", by: "Alice", ticket: 6)
        #expect(queue.count == 3)
        let first = queue.removeFirstEntry()
        #expect(first?.line == "PRIVMSG #class :alice, bob, carol: pong")
        #expect(first?.tickets == [1, 2, 4, 6])
        #expect(Self.drain(&queue) == ["PRIVMSG #class :dave: Berlin", "PRIVMSG #other :erin: pong"])
    }

    @Test func partsOfLongerAnswersAndAnnouncementsAreNotMerged() {
        var queue = SendQueue(capacity: 100)
        Self.ask(&queue, "1. Ann (3 km)", in: "#class", by: "alice", whole: false)
        Self.ask(&queue, "1. Ann (3 km)", in: "#class", by: "bob", whole: false)
        let announcement = Self.answer("New pin: Oslo", to: "#class")
        queue.enqueue(announcement.line, fairnessKey: "#class", answer: announcement)
        queue.enqueue(announcement.line, fairnessKey: "#class", answer: announcement)
        #expect(queue.count == 4)
    }

    @Test func aMergedAnswerThatWouldNotFitInOneLineIsQueuedSeparately() {
        var queue = SendQueue(capacity: 100)
        let body = String(repeating: "x", count: 30)
        for nick in ["alice", "bob", "carol"] {
            let answer = Self.answer("\(nick): \(body)", to: "#class", for: nick, budget: 45)
            queue.enqueue(answer.line, fairnessKey: nick, answer: answer)
        }
        #expect(Self.drain(&queue) == ["PRIVMSG #class :alice, bob: \(body)", "PRIVMSG #class :carol: \(body)"])
    }

    @Test func anAskerWhoLeavesIsNoLongerNamedInAMergedAnswer() throws {
        var queue = SendQueue(capacity: 100)
        Self.ask(&queue, "pong", in: "#class", by: "alice", ticket: 1)
        Self.ask(&queue, "pong", in: "#class", by: "bob", ticket: 2)
        let part = try #require(SendQueue.Departure(try Self.message(":alice!a@host PART #class")))
        #expect(queue.dropLines(of: part) == 0)
        let quit = try #require(SendQueue.Departure(try Self.message(":carol!c@host QUIT")))
        #expect(queue.dropLines(of: quit) == 0)
        #expect(queue.first == "PRIVMSG #class :bob: pong")
        let bobQuit = try #require(SendQueue.Departure(try Self.message(":bob!b@host QUIT")))
        #expect(queue.dropLines(of: bobQuit) == 1)
        #expect(queue.takeDroppedTickets() == [1, 2])
        #expect(queue.isEmpty)
    }

    @Test func waitingAnswersInOneChannelShareALineWhenPacking() {
        var queue = SendQueue(capacity: 100)
        Self.ask(&queue, "Berlin", in: "#class", by: "alice", ticket: 1)
        Self.ask(&queue, "Paris", in: "#other", by: "bob", ticket: 2)
        Self.ask(&queue, "Rome", in: "#class", by: "carol", ticket: 3)
        let toErin = Self.answer("hello", to: "erin")
        queue.enqueue(toErin.line, fairnessKey: "erin", answer: toErin, ticket: 4)
        Self.ask(&queue, "Oslo", in: "#class", by: "dave", ticket: 5)
        var unpacked = queue
        #expect(unpacked.removeFirstEntry()?.line == "PRIVMSG #class :alice: Berlin")
        let first = queue.removeFirstEntry(packing: true)
        #expect(first?.line == "PRIVMSG #class :alice: Berlin · carol: Rome · dave: Oslo")
        #expect(first?.tickets == [1, 3, 5])
        #expect(queue.count == 2)
        #expect(Self.drain(&queue, packing: true) == ["PRIVMSG #other :bob: Paris", "PRIVMSG erin hello"])
    }

    @Test func packingLeavesAnAnswersOwnFurtherLinesAsLinesOfTheirOwn() {
        var queue = SendQueue(capacity: 100)
        Self.ask(&queue, "1. Ann (3 km)", in: "#class", by: "alice", whole: false)
        Self.ask(&queue, "2. Ben (9 km)", in: "#class", by: "alice", whole: false)
        Self.ask(&queue, "Rome", in: "#class", by: "bob")
        #expect(
            Self.drain(&queue, packing: true) == [
                "PRIVMSG #class :alice: 1. Ann (3 km) · bob: Rome", "PRIVMSG #class :alice: 2. Ben (9 km)",
            ])
    }

    @Test func packingStopsAtTheLineLength() {
        var queue = SendQueue(capacity: 100)
        for (index, nick) in ["alice", "bob", "carol", "dave"].enumerated() {
            let text = "\(nick): \(index)\(String(repeating: "y", count: 19))"
            let answer = Self.answer(text, to: "#class", for: nick, budget: 70)
            queue.enqueue(answer.line, fairnessKey: nick, answer: answer)
        }
        let lines = Self.drain(&queue, packing: true)
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.utf8.count - "PRIVMSG #class :".utf8.count <= 70 })
        #expect(lines[0].hasPrefix("PRIVMSG #class :alice: ") && lines[0].contains(" · bob: "))
    }

    @Test func aLongChannelAnswerShrinksToOneLine() {
        let texts = [
            OutgoingText(.privmsg, to: "#class", text: "alice: 1. Ann (3 km)", maxLines: 3, fairnessKey: "alice"),
            OutgoingText(.privmsg, to: "#class", text: "alice: 2. Ben (9 km)", maxLines: 3, fairnessKey: "alice"),
            OutgoingText(.privmsg, to: "#class", text: "bob: Rome", maxLines: 3, fairnessKey: "bob"),
            OutgoingText(.privmsg, to: "carol", text: "line one", maxLines: 3),
            OutgoingText(.privmsg, to: "carol", text: "line two", maxLines: 3),
            OutgoingText(.privmsg, to: "#class", text: "New pin: Oslo", maxLines: 3),
        ]
        let shrunk = OutgoingText.shrunk(texts, isChannel: { $0.hasPrefix("#") })
        #expect(
            shrunk == [
                OutgoingText(
                    .privmsg, to: "#class", text: "alice: 1. Ann (3 km) · 2. Ben (9 km)", maxLines: 1,
                    fairnessKey: "alice"),
                OutgoingText(.privmsg, to: "#class", text: "bob: Rome", maxLines: 1, fairnessKey: "bob"),
                texts[3], texts[4], texts[5],
            ])
    }
}
