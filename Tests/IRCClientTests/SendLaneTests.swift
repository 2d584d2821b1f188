import IRCProtocol
import Testing

@testable import IRCClient

/// The lane an outgoing message takes, by its kind.
@Suite("Send lanes")
struct SendLaneTests {
    static func lane(_ line: String, _ mapping: CaseMapping = .rfc1459) throws -> SendLane {
        SendLane(for: try IRCMessage(parsing: line), caseMapping: mapping)
    }

    @Test func theServersDialogueAndQuitGoAheadOfTheQueue() throws {
        for line in ["PONG :123", "CAP END", "AUTHENTICATE +", "QUIT :bye", "pong :lower case"] {
            #expect(try Self.lane(line) == .priority, "\(line)")
        }
    }

    /// Replies are keyed by their target as the server folds it (`[` is `{` under rfc1459, not under ascii).
    @Test func textsAreKeyedByTheirFoldedTarget() throws {
        #expect(try Self.lane("PRIVMSG Ada[m] :hi") == .reply(fairnessKey: "ada{m}"))
        #expect(try Self.lane("NOTICE #Class :hi", .ascii) == .reply(fairnessKey: "#class"))
        #expect(try Self.lane("PRIVMSG Ada[m] :hi", .ascii) == .reply(fairnessKey: "ada[m]"))
    }

    @Test func everythingElseTakesTheControlLane() throws {
        for line in ["JOIN #class", "WHO #class", "NICK bot", "MODE bot +B", "PING :x", "PASS secret"] {
            #expect(try Self.lane(line) == .control, "\(line)")
        }
    }
}
