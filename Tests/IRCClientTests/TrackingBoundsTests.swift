import IRCClient
import IRCProtocol
import Testing

/// What a hostile server can make the client hold: channels, members and capabilities are bounded,
/// and reaching a bound is said once.
@Suite struct TrackingBoundsTests {
    static func parsed(_ line: String) -> IRCMessage {
        (try? IRCMessage(parsing: line, maxLineBytes: 16_384)) ?? IRCMessage(command: "NOOP")
    }

    @Test func endlessNamesRepliesStopAtTheBoundOfUsers() throws {
        var tracker = IdentityTracker()
        _ = tracker.apply(Self.parsed(":Bot!b@h JOIN #class"), ownNick: "Bot")
        let linesPastTheBound = IdentityTracker.maximumUsers / 40 + 50
        var notices: [String] = []
        for line in 0..<linesPastTheBound {
            let nicks = (0..<40).map { "u\(line)x\($0)" }.joined(separator: " ")
            _ = tracker.apply(Self.parsed(":srv 353 Bot = #class :\(nicks)"), ownNick: "Bot")
            if let notice = tracker.takeLimitNotice() { notices.append(notice) }
        }
        let members = try #require(tracker.members(ofChannel: "#class"))
        // The bot itself is one of the users tracked.
        #expect(members.count == IdentityTracker.maximumUsers - 1)
        #expect(
            notices == ["more than \(IdentityTracker.maximumUsers) users in the channels; the others are not tracked"])
        // Someone already tracked still changes nick; a newcomer's JOIN is not tracked.
        _ = tracker.apply(Self.parsed(":u0x0!u@h NICK renamed"), ownNick: "Bot")
        #expect(tracker.identity(ofNick: "renamed") != nil)
        _ = tracker.apply(Self.parsed(":late!l@h JOIN #class"), ownNick: "Bot")
        #expect(tracker.identity(ofNick: "late") == nil)
        #expect(tracker.takeLimitNotice() == nil, "said once")
    }

    @Test func forcedJoinsStopAtTheBoundOfChannels() {
        var tracker = IdentityTracker()
        for index in 0..<(IdentityTracker.maximumChannels + 20) {
            _ = tracker.apply(Self.parsed(":Bot!b@h JOIN #c\(index)"), ownNick: "Bot")
        }
        #expect(tracker.members(ofChannel: "#c0") != nil)
        #expect(tracker.members(ofChannel: "#c\(IdentityTracker.maximumChannels - 1)") != nil)
        #expect(tracker.members(ofChannel: "#c\(IdentityTracker.maximumChannels)") == nil)
        #expect(tracker.takeLimitNotice()?.hasPrefix("more than \(IdentityTracker.maximumChannels) channels") == true)
    }

    @Test func endlessCapabilityListsStopAtTheBound() {
        var negotiator = CapabilityNegotiator(saslMechanisms: nil)
        var notices: [String] = []
        for line in 0..<2_000 {
            let names = (0..<5).map { "vendor/cap\(line)-\($0)=\(String(repeating: "v", count: 2_000))" }
            _ = negotiator.handle(Self.parsed(":srv CAP * LS * :\(names.joined(separator: " "))"))
            if let notice = negotiator.takeLimitNotice() { notices.append(notice) }
        }
        _ = negotiator.handle(Self.parsed(":srv CAP * LS :multi-prefix"))
        #expect(negotiator.offered.count == CapabilityNegotiator.maximumOffered)
        #expect(negotiator.offered.values.allSatisfy { $0.utf8.count <= CapabilityNegotiator.maximumValueBytes })
        #expect(notices.count == 1)
    }
}
