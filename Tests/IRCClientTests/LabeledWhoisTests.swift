import IRCProtocol
import Testing

@testable import IRCClient

/// labeled-response: where the server acknowledged it (with batch), the WHOIS the session checks send
/// carries a label, and only the answer with that label counts.
@Suite("Labeled WHOIS")
struct LabeledWhoisTests {
    typealias Machine = ConnectionStateMachineTests

    static func registered(capabilities: String) -> ConnectionStateMachine {
        ReplyTagTests.registered(capabilities: capabilities)
    }

    /// The labeled batch InspIRCd sends for a WHOIS of `nick` using `user`@`host`.
    static func answer(label: String, batch: String, nick: String, user: String, host: String, signon: Int) -> [String]
    {
        [
            "@label=\(label) :srv BATCH +\(batch) labeled-response",
            "@batch=\(batch) :srv 311 bot \(nick) \(user) \(host) * :Someone",
            "@batch=\(batch) :srv 317 bot \(nick) 5 \(signon) :seconds idle, signon time",
            "@batch=\(batch) :srv 318 bot \(nick) :End of /WHOIS list.",
            ":srv BATCH -\(batch)",
        ]
    }

    static func feed(_ lines: [String], into machine: inout ConnectionStateMachine, at time: Double) -> [String] {
        lines.flatMap { Machine.described(machine.lineReceived($0, at: Machine.at(time))) }
    }

    @Test func theWhoisCarriesALabelAndItsBatchAnswersIt() {
        var machine = Self.registered(capabilities: "labeled-response batch")
        #expect(machine.labelsQueries)
        let asked = Machine.described(machine.askWhois(about: "alice", waiter: 1, at: Machine.at(1)))
        #expect(asked == ["queue @label=w1 WHOIS alice"])
        // A second waiter for the same nick shares the query.
        #expect(machine.askWhois(about: "ALICE", waiter: 2, at: Machine.at(1)).isEmpty)
        let answered = Self.feed(
            Self.answer(
                label: "w1", batch: "b1", nick: "alice", user: "al", host: "home.example", signon: 1_700_000_000),
            into: &machine, at: 2)
        #expect(
            answered == [
                "answer [1, 2] \(WhoisReply(nick: "alice", user: "al", host: "home.example", signedOnAt: 1_700_000_000))"
            ])
        // Nobody: the labeled batch holds a 401 and the 318.
        _ = machine.askWhois(about: "ghost", waiter: 3, at: Machine.at(3))
        let nobody = Self.feed(
            [
                "@label=w2 :srv BATCH +b2 labeled-response",
                "@batch=b2 :srv 401 bot ghost :No such nick/channel",
                "@batch=b2 :srv 318 bot ghost :End of /WHOIS list.",
                ":srv BATCH -b2",
            ], into: &machine, at: 4)
        #expect(nobody.contains("answer [3] nil"))
        // A server that has nothing to say answers ACK: the lookup ends with nothing found.
        _ = machine.askWhois(about: "quiet", waiter: 4, at: Machine.at(5))
        #expect(Self.feed(["@label=w3 :srv ACK"], into: &machine, at: 5) == ["answer [4] nil"])
    }

    /// The bot asks who uses "alice"; the server is slow and the lookup gives up. Alice then changes
    /// nick and someone else takes "alice"; the bot asks again. The late answer to the first query,
    /// about the connection that has left the nick, must not be taken for the new one: with labels it
    /// is not (without them, matched by nick, it would be — the second half shows it).
    @Test func aLateAnswerForANickThatChangedHandsIsNotTakenForTheNewConnection() {
        let old = Self.answer(label: "w1", batch: "b1", nick: "alice", user: "al", host: "old.example", signon: 100)
        let new = Self.answer(label: "w2", batch: "b2", nick: "alice", user: "eve", host: "new.example", signon: 200)

        var machine = Self.registered(capabilities: "labeled-response batch")
        _ = machine.askWhois(about: "alice", waiter: 1, at: Machine.at(1))
        #expect(Machine.described(machine.tick(at: Machine.at(12))) == ["answer [1] nil"])
        _ = Machine.receive(":alice!al@old.example NICK alice_away", ":eve!eve@new.example NICK alice", into: &machine)
        #expect(
            Machine.described(machine.askWhois(about: "alice", waiter: 2, at: Machine.at(13)))
                == ["queue @label=w2 WHOIS alice"])
        #expect(Self.feed(old, into: &machine, at: 14).isEmpty, "the first query's answer is nobody's now")
        #expect(
            Self.feed(new, into: &machine, at: 14) == [
                "answer [2] \(WhoisReply(nick: "alice", user: "eve", host: "new.example", signedOnAt: 200))"
            ])

        // Without labels the answers are matched by nick: the late one would be taken.
        var unlabeled = Self.registered(capabilities: "multi-prefix")
        #expect(!unlabeled.labelsQueries)
        _ = unlabeled.askWhois(about: "alice", waiter: 1, at: Machine.at(1))
        _ = unlabeled.tick(at: Machine.at(12))
        #expect(
            Machine.described(unlabeled.askWhois(about: "alice", waiter: 2, at: Machine.at(13)))
                == ["queue WHOIS alice"])
        let stripped = old.compactMap { line -> String? in
            line.contains("BATCH") ? nil : String(line.drop { $0 != " " }.dropFirst())
        }
        #expect(
            Self.feed(stripped, into: &unlabeled, at: 14) == [
                "answer [2] \(WhoisReply(nick: "alice", user: "al", host: "old.example", signedOnAt: 100))"
            ])
    }

    /// With labels, an unlabeled 311/318 for the nick (not an answer to this query) is not taken.
    @Test func unlabeledLinesDoNotAnswerALabeledQuery() {
        var machine = Self.registered(capabilities: "labeled-response batch")
        _ = machine.askWhois(about: "alice", waiter: 1, at: Machine.at(1))
        let unlabeled = Self.feed(
            [":srv 311 bot alice al old.example * :Alice", ":srv 318 bot alice :End of /WHOIS list."], into: &machine,
            at: 2)
        #expect(unlabeled.isEmpty)
    }

    /// Both capabilities are asked for where offered; batch alone is not.
    @Test func batchIsAskedForOnlyWithLabeledResponse() {
        var both = CapabilityNegotiator(saslMechanisms: nil)
        #expect(
            both.handle(parse(":srv CAP * LS :batch labeled-response multi-prefix"))
                == [.send(IRCMessage(command: "CAP", parameters: ["REQ", "batch labeled-response multi-prefix"]))])
        var batchOnly = CapabilityNegotiator(saslMechanisms: nil)
        #expect(
            batchOnly.handle(parse(":srv CAP * LS :batch multi-prefix"))
                == [.send(IRCMessage(command: "CAP", parameters: ["REQ", "multi-prefix"]))])
        // Labeled-response offered later (CAP NEW) brings batch along.
        _ = batchOnly.handle(parse(":srv CAP * ACK :multi-prefix"))
        batchOnly.finish()
        #expect(
            batchOnly.handle(parse(":srv CAP bot NEW :labeled-response"))
                == [.send(IRCMessage(command: "CAP", parameters: ["REQ", "batch labeled-response"]))])
    }

    /// A batch opened inside the labeled one belongs to the same label; it ends with the outer one.
    @Test func nestedBatchesBelongToTheirLabel() {
        var labels = ResponseLabels()
        #expect(labels.next() == "w1")
        let outer = labels.read(parse("@label=w1 :srv BATCH +o labeled-response"))
        #expect(outer.label == "w1" && !outer.isLast)
        let inner = labels.read(parse("@batch=o :srv BATCH +i netjoin"))
        #expect(inner.label == "w1" && !inner.isLast)
        let line = labels.read(parse("@batch=i :srv 311 bot alice al h * :A"))
        #expect(line.label == "w1" && !line.isLast)
        let innerEnd = labels.read(parse("@batch=o :srv BATCH -i"))
        #expect(innerEnd.label == "w1" && !innerEnd.isLast)
        let outerEnd = labels.read(parse(":srv BATCH -o"))
        #expect(outerEnd.label == "w1" && outerEnd.isLast)
        let stranger = labels.read(parse(":srv 311 bot alice al h * :A"))
        #expect(stranger.label == nil)
        let single = labels.read(parse("@label=w9 :srv 318 bot alice :End"))
        #expect(single.label == "w9" && single.isLast)
    }
}
