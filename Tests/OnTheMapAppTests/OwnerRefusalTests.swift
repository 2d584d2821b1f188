import IRCClient
import Testing

@testable import OnTheMapApp

/// An owner's `!join` or `!part` the server refuses ends with the server's reason in one sentence;
/// done, or no word yet, leaves the usual answer.
@Suite struct OwnerRefusalTests {
    @Test func aRefusalIsToldWithTheServersReason() {
        let failed = RequestOutcome.refused(
            code: "CHANNEL_RESTRICTED", reason: "Only registered users may join", isStandardReply: true)
        #expect(
            OwnerPlugin.refusal(failed, doing: "join", channel: "#extra", prefix: "!")
                == "The server would not let me join #extra: Only registered users may join (CHANNEL_RESTRICTED).")
        let banned = RequestOutcome.refused(code: "474", reason: "Cannot join channel (+b)", isStandardReply: false)
        #expect(
            OwnerPlugin.refusal(banned, doing: "join", channel: "#extra", prefix: "!")
                == "The server would not let me join #extra: Cannot join channel (+b) (474). I will try again later; !part #extra stops that."
        )
        let notThere = RequestOutcome.refused(code: "442", reason: "You're not on that channel", isStandardReply: false)
        #expect(
            OwnerPlugin.refusal(notThere, doing: "leave", channel: "#extra", prefix: "!")
                == "The server would not let me leave #extra: You're not on that channel (442).")
        #expect(OwnerPlugin.refusal(.done, doing: "join", channel: "#extra", prefix: "!") == nil)
        #expect(OwnerPlugin.refusal(.noAnswer, doing: "part", channel: "#extra", prefix: "!") == nil)
    }
}
