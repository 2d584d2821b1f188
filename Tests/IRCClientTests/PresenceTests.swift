import IRCProtocol
import Testing

@testable import IRCClient

@Suite("Presence")
struct PresenceTests {
    static func message(_ line: String) -> IRCMessage { parse(line) }

    static func support(_ tokens: String) -> ServerSupport {
        var support = ServerSupport()
        support.apply(message(":srv 005 me \(tokens) :are supported"))
        return support
    }

    @Test func monitorIsPreferredAndItsLimitKept() {
        var watch = PresenceWatch()
        let r1 = watch.add("alice")
        #expect(r1 == nil, "nothing is sent before the server says what it offers")
        watch.update(Self.support("WATCH=128 MONITOR=2"))
        #expect(watch.notification == .monitor)
        let r2 = watch.add("alice")
        #expect(r2?.serialized() == "MONITOR + alice")
        let r3 = watch.add("ALICE")
        #expect(r3 == nil, "already on the list")
        #expect(watch.isWatching("Alice"))
        let r4 = watch.add("bob")
        #expect(r4 != nil)
        let r5 = watch.add("carol")
        #expect(r5 == nil, "the list is full")
        let r6 = watch.remove("alice")
        #expect(r6?.serialized() == "MONITOR - alice")
        let r7 = watch.remove("alice")
        #expect(r7 == nil)
        watch.reset()
        #expect(!watch.isWatching("bob"))
    }

    @Test func watchIsUsedWhenTheServerHasNoMonitor() {
        var watch = PresenceWatch()
        watch.update(Self.support("WATCH=128"))
        let r8 = watch.add("alice")
        #expect(r8?.serialized() == "WATCH +alice")
        let r9 = watch.handle(Self.message(":srv 601 me alice al host 1700000000 :logged offline"))
        #expect(r9 == [.offline("alice")])
        let r10 = watch.handle(Self.message(":srv 604 me alice al host 1700000000 :is online"))
        #expect(r10 == [.online("alice")])
        let r11 = watch.remove("alice")
        #expect(r11?.serialized() == "WATCH -alice")
    }

    @Test func monitorRepliesNameEveryNick() {
        var watch = PresenceWatch()
        watch.update(Self.support("MONITOR=100"))
        _ = watch.add("alice")
        _ = watch.add("bob")
        let r12 = watch.handle(Self.message(":srv 731 me :alice,bob"))
        #expect(r12 == [.offline("alice"), .offline("bob")])
        let r13 = watch.handle(Self.message(":srv 730 me :alice!al@h"))
        #expect(r13 == [.online("alice")])
        // A full list: the refused nicks are off it and count as unwatched.
        let r14 = watch.handle(Self.message(":srv 734 me 100 bob :Monitor list is full."))
        #expect(r14 == [.offline("bob")])
        #expect(!watch.isWatching("bob"))
        #expect(watch.isWatching("alice"))
    }

    @Test func nicksThatCannotBeWatchedAreRefused() {
        var watch = PresenceWatch()
        watch.update(Self.support("MONITOR"))
        let r15 = watch.add("a,b")
        #expect(r15 == nil)
        let r16 = watch.add("a b")
        #expect(r16 == nil)
        let r17 = watch.add("")
        #expect(r17 == nil)
    }

    @Test func whoisGathersTheConnectionAndAnswersEveryoneWhoAsked() {
        var lookups = WhoisLookups<Int>()
        let later = ContinuousClock.now + .seconds(10)
        let r18 = lookups.ask(about: "alice", waiter: 1, deadline: later)
        #expect(r18)
        let r19 = lookups.ask(about: "ALICE", waiter: 2, deadline: later)
        #expect(!r19, "one WHOIS for both")
        let r20 = lookups.handle(Self.message(":srv 311 me alice ~al host.example * :Alice"))
        #expect(r20.isEmpty)
        let r21 = lookups.handle(Self.message(":srv 317 me alice 5 1700000123 :seconds idle, signon time"))
        #expect(r21.isEmpty)
        let r22 = lookups.handle(Self.message(":srv 330 me alice aliceacct :is logged in as"))
        #expect(r22.isEmpty)
        let done = lookups.handle(Self.message(":srv 318 me alice :End of /WHOIS list."))
        #expect(done.count == 1)
        #expect(done.first?.waiters == [1, 2])
        #expect(
            done.first?.reply
                == WhoisReply(
                    nick: "alice", user: "~al", host: "host.example", account: "aliceacct", signedOnAt: 1_700_000_123))
        #expect(lookups.isEmpty)
    }

    @Test func whoisOfNobodyOrWithoutAnAnswerIsNil() {
        var lookups = WhoisLookups<Int>()
        let now = ContinuousClock.now
        _ = lookups.ask(about: "ghost", waiter: 1, deadline: now + .seconds(10))
        _ = lookups.handle(Self.message(":srv 401 me ghost :No such nick"))
        let done = lookups.handle(Self.message(":srv 318 me ghost :End of /WHOIS list."))
        #expect(done.count == 1 && done.first?.reply == nil)
        // Replies about a nick nobody asked about change nothing.
        let r23 = lookups.handle(Self.message(":srv 318 me other :End of /WHOIS list."))
        #expect(r23.isEmpty)
        _ = lookups.ask(about: "silent", waiter: 2, deadline: now + .seconds(1))
        _ = lookups.ask(about: "slow", waiter: 3, deadline: now + .seconds(60))
        let r24 = lookups.expire(at: now + .seconds(2))
        #expect(r24 == [2])
        let r25 = lookups.cancelAll()
        #expect(r25 == [3])
    }

    @Test func theTrackerReportsWhatSessionsMustFollow() {
        var tracker = IdentityTracker()
        let lines = [
            ":Bot!b@h JOIN #class", ":alice!al@a.host JOIN #class", ":bob!bo@b.host JOIN #class",
        ]
        for line in lines {
            let r26 = tracker.apply(Self.message(line), ownNick: "Bot")
            #expect(r26.isEmpty)
        }
        let r27 = tracker.apply(Self.message(":alice!al@a.host NICK alice_away"), ownNick: "Bot")
        #expect(
            r27
                == [.nickChanged(from: "alice", to: "alice_away", user: "al", host: "a.host")])
        let r28 = tracker.apply(Self.message(":bob!bo@b.host ACCOUNT bobacct"), ownNick: "Bot")
        #expect(
            r28
                == [.accountChanged(nick: "bob", account: "bobacct")])
        let r29 = tracker.apply(Self.message(":bob!bo@b.host PART #class"), ownNick: "Bot")
        #expect(
            r29 == [.lostSight(nick: "bob")])
        let r30 = tracker.apply(Self.message(":alice_away!al@a.host QUIT :bye"), ownNick: "Bot")
        #expect(
            r30
                == [.quit(nick: "alice_away", user: "al", host: "a.host")])
        // Someone the bot shares no channel with: nothing to report.
        let r31 = tracker.apply(Self.message(":carol!c@c.host QUIT :bye"), ownNick: "Bot")
        #expect(r31.isEmpty)
    }

    @Test func theBotLeavingAChannelLosesSightOfItsMembers() {
        var tracker = IdentityTracker()
        for line in [
            ":Bot!b@h JOIN #a", ":Bot!b@h JOIN #b", ":alice!al@h JOIN #a", ":bob!bo@h JOIN #a", ":bob!bo@h JOIN #b",
        ] {
            tracker.apply(Self.message(line), ownNick: "Bot")
        }
        let r32 = tracker.apply(Self.message(":Bot!b@h PART #a"), ownNick: "Bot")
        #expect(r32 == [.lostSight(nick: "alice")])
    }
}
