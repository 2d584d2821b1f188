import BotKit
import BotTesting
import IRCProtocol
import Testing

@Suite struct SessionBookTests {
    let alice = UserIdentity(nick: "alice", user: "~alice", host: "home.example")

    @Test func sessionIsFoundForTheSameIdentityOnly() async {
        let book = SessionBook<TestLogin>()
        let login = TestLogin("Hank")
        await book.bind(login, to: alice)
        #expect(await book.session(for: alice)?.login == login)
        #expect(await book.session(for: UserIdentity(nick: "ALICE", user: "~alice", host: "HOME.example")) != nil)
        #expect(await book.session(for: UserIdentity(nick: "alice", user: "~alice", host: "evil.example")) == nil)
        #expect(await book.session(for: UserIdentity(nick: "alice", user: "~eve", host: "home.example")) == nil)
    }

    @Test func sessionFollowsNickChangeAndIsNotInheritedByTheNextHolder() async {
        let book = SessionBook<TestLogin>()
        let login = TestLogin("Hank")
        await book.bind(login, to: alice)
        await book.nickChanged(from: "alice", to: "alice_away")
        #expect(await book.session(for: UserIdentity(nick: "alice_away", user: "~alice", host: "home.example")) != nil)
        #expect(await book.session(for: alice) == nil)
        // Someone else takes the old nick.
        #expect(await book.session(for: UserIdentity(nick: "alice", user: "~mallory", host: "bad.example")) == nil)
        #expect(await book.session(ofNick: "Alice_Away") != nil)
    }

    @Test func quitEndsConnectionBoundSessionsButNotAccountBoundOnes() async {
        let book = SessionBook<TestLogin>()
        let login = TestLogin("Hank")
        await book.bind(login, to: alice)
        let bob = UserIdentity(nick: "bob", user: "~bob", host: "b.example", account: "BobAccount")
        await book.bind(login, to: bob)
        #expect(await book.userQuit(nick: "alice").count == 1)
        #expect(await book.userQuit(nick: "bob").isEmpty)
        #expect(await book.session(for: alice) == nil)
        // bob comes back from another host under another nick, same account.
        #expect(
            await book.session(for: UserIdentity(nick: "bobby", user: "x", host: "y", account: "bobaccount")) != nil)
        // the nick alone, without the account, gets nothing.
        #expect(await book.session(for: UserIdentity(nick: "bob", user: "~bob", host: "b.example")) == nil)
    }

    @Test func aQuitUnderTheNickByAnotherConnectionLeavesTheOwnersSession() async {
        // While the bot was away, someone else used the nick and quit: the owner keeps the session;
        // the owner's own QUIT ends it.
        let book = SessionBook<TestLogin>()
        let login = TestLogin("Hank")
        await book.bind(login, to: alice)
        #expect(await book.userQuit(nick: "alice", user: "~mallory", host: "m.example").isEmpty)
        #expect(await book.session(for: alice) != nil)
        #expect(await book.userQuit(nick: "Alice", user: alice.user, host: alice.host).count == 1)
        #expect(await book.session(for: alice) == nil)
    }

    @Test func expiredSessionsAreDropped() async {
        let book = SessionBook<TestLogin>()
        let login = TestLogin("Hank", expiresIn: -1)
        await book.bind(login, to: alice)
        #expect(await book.session(for: alice) == nil)
        #expect(await book.count == 0)
    }

    @Test func unbindEndsTheSession() async {
        let book = SessionBook<TestLogin>()
        let login = TestLogin("Hank")
        await book.bind(login, to: alice)
        #expect(await book.unbind(alice)?.login == login)
        #expect(await book.session(for: alice) == nil)
        #expect(await book.unbind(alice) == nil)
    }

    @Test func identityEventsFromTheClientMoveEndAndUnwatchSessions() async {
        let book = SessionBook<TestLogin>()
        let bob = UserIdentity(nick: "bob", user: "~bob", host: "b.example", account: "bobacct")
        await book.bind(TestLogin("Alice"), to: alice, watch: .channel)
        await book.bind(TestLogin("Bob"), to: bob)
        await book.follow(.nickChanged(from: "alice", to: "alice2", user: "~alice", host: "home.example"))
        let renamed = UserIdentity(nick: "alice2", user: "~alice", host: "home.example")
        #expect(await book.session(for: renamed)?.login.name == "Alice")
        await book.follow(.lostSight(nick: "ALICE2"))
        #expect(await book.session(for: renamed) == nil)
        #expect(await book.hasUnwatchedSession(for: renamed))
        await book.follow(.quit(nick: "alice2", user: "~alice", host: "home.example"))
        #expect(await !book.hasUnwatchedSession(for: renamed))
        await book.follow(.accountChanged(nick: "bob", account: nil))
        #expect(await book.session(for: bob) == nil)
        #expect(await book.count == 0)
        // A watched nick going offline leaves its session unwatched.
        await book.bind(TestLogin("Alice"), to: alice, watch: .server)
        await book.follow(.offline(nick: "alice"))
        #expect(await book.session(for: alice) == nil)
        #expect(await book.hasUnwatchedSession(for: alice))
    }

    /// A host change the server reports (CHGHOST: a cloak after identifying, seen in a shared channel
    /// or, with extended-monitor, for a nick watched with MONITOR) takes a watched session along: the
    /// student's next command comes from the new host and still finds it. An unwatched session stays
    /// where it was: the nick may be someone else's by now.
    @Test func aHostChangeMovesAWatchedSessionOnly() async {
        let book = SessionBook<TestLogin>()
        await book.bind(TestLogin("Alice"), to: alice, signedOnAt: 1_700_000_000, watch: .server)
        await book.follow(.hostChanged(nick: "ALICE", user: "~alice", host: "student/alice"))
        let cloaked = UserIdentity(nick: "alice", user: "~alice", host: "student/alice")
        #expect(await book.session(for: cloaked)?.login.name == "Alice")
        #expect(await book.session(for: cloaked)?.signedOnAt == 1_700_000_000)
        #expect(await book.session(for: alice) == nil)
        #expect(await book.count == 1)

        await book.follow(.offline(nick: "alice"))
        await book.follow(.hostChanged(nick: "alice", user: "~eve", host: "elsewhere.example"))
        #expect(
            await !book.hasUnwatchedSession(for: UserIdentity(nick: "alice", user: "~eve", host: "elsewhere.example")))
        #expect(await book.hasUnwatchedSession(for: cloaked))
    }

    @Test func casemappingRulesNickEquality() async {
        let book = SessionBook<TestLogin>(caseMapping: .rfc1459)
        let login = TestLogin("Hank")
        let odd = UserIdentity(nick: "wiz[1]", user: "u", host: "h")
        await book.bind(login, to: odd)
        #expect(await book.session(for: UserIdentity(nick: "WIZ{1}", user: "u", host: "h")) != nil)
        await book.setCaseMapping(.ascii)
        #expect(await book.session(for: UserIdentity(nick: "WIZ{1}", user: "u", host: "h")) == nil)
        #expect(await book.session(for: UserIdentity(nick: "WIZ[1]", user: "u", host: "h")) != nil)
    }
}

@Suite struct UnwatchedSessionTests {
    let alice = UserIdentity(nick: "alice", user: "~alice", host: "home.example")
    let signon = 1_700_000_000

    func bookWithAlice(watch: SessionWatch = .server) async -> SessionBook<TestLogin> {
        let book = SessionBook<TestLogin>()
        let login = TestLogin("Hank")
        await book.bind(login, to: alice, signedOnAt: signon, watch: watch)
        return book
    }

    @Test func anOfflineNickIsUnwatchedAndOnlyItsOwnConnectionTakesItBack() async {
        let book = await bookWithAlice()
        #expect(await book.session(for: alice) != nil)
        await book.wentOffline(nick: "ALICE")
        #expect(await book.session(for: alice) == nil)
        #expect(await book.session(ofNick: "alice") == nil)
        #expect(await book.hasUnwatchedSession(for: alice))
        // Another connection with the same nick and user@host: a later sign-on, no session.
        let mark = await book.sightMark(of: "alice")
        let other = await book.reclaim(
            for: alice, signedOnAt: signon + 60, user: "~alice", host: "home.example", watch: .server,
            ifUnchangedSince: mark)
        #expect(other == nil)
        // The owner's own connection (the WHOIS may show the ident without its `~`).
        let owner = await book.reclaim(
            for: alice, signedOnAt: signon, user: "alice", host: "HOME.example", watch: .server, ifUnchangedSince: mark)
        #expect(owner?.watch == .server)
        #expect(await book.session(for: alice) != nil)
    }

    @Test func aNickChangeOutOfSightIsFollowedByTheSignOnTime() async {
        let book = await bookWithAlice(watch: .none)
        let away = UserIdentity(nick: "alice_away", user: "~alice", host: "home.example")
        #expect(await book.session(for: away) == nil)
        #expect(await book.hasUnwatchedSession(for: away))
        let mark = await book.sightMark(of: "alice_away")
        let moved = await book.reclaim(
            for: away, signedOnAt: signon, user: "~alice", host: "home.example", watch: .none, ifUnchangedSince: mark)
        #expect(moved?.nick == "alice_away")
        #expect(moved?.owner == .connection(nick: "alice_away", user: "~alice", host: "home.example"))
        #expect(await book.count == 1, "moved, not copied")
    }

    @Test func aLossOfSightDuringACheckLeavesTheSessionUnwatched() async {
        let book = await bookWithAlice(watch: .none)
        let mark = await book.sightMark(of: "alice")
        await book.wentOffline(nick: "alice")
        let reclaimed = await book.reclaim(
            for: alice, signedOnAt: signon, user: "~alice", host: "home.example", watch: .server, ifUnchangedSince: mark
        )
        #expect(reclaimed?.watch == SessionWatch.none)
        #expect(await book.session(for: alice) == nil)
        await book.setWatch(.server, for: alice, ifUnchangedSince: mark)
        #expect(await book.session(for: alice) == nil)
        await book.setWatch(.server, for: alice, ifUnchangedSince: await book.sightMark(of: "alice"))
        #expect(await book.session(for: alice) != nil)
    }

    @Test func leavingTheLastSharedChannelUnwatchesOnlyChannelWatchedSessions() async {
        let book = await bookWithAlice(watch: .channel)
        let login = TestLogin("Hank")
        let bob = UserIdentity(nick: "bob", user: "~bob", host: "b.example")
        await book.bind(login, to: bob, signedOnAt: signon, watch: .server)
        await book.lostSight(ofNick: "alice")
        await book.lostSight(ofNick: "bob")
        #expect(await book.session(for: alice) == nil)
        #expect(await book.session(for: bob) != nil)
    }

    @Test func theBotsOwnReconnectUnwatchesConnectionSessionsButNotAccountOnes() async {
        let book = await bookWithAlice()
        let login = TestLogin("Hank")
        let carol = UserIdentity(nick: "carol", user: "c", host: "c.example", account: "carolacct")
        await book.bind(login, to: carol)
        let before = await book.sightMark(of: "anyone")
        await book.connectionLost()
        #expect(await book.sightMark(of: "anyone") != before)
        #expect(await book.session(for: alice) == nil)
        #expect(await book.session(for: carol) != nil)
        #expect(await book.count == 2)
    }
}
