import BotKit
import BotTesting
import IRCProtocol
import NIOConcurrencyHelpers
import Testing

/// Sessions kept across a restart come back under the same identity rules as sessions the bot lost
/// sight of: a connection-bound one only for the connection with its user@host and sign-on time, an
/// account-bound one for that services account.
@Suite struct SessionRestoreTests {
    let alice = UserIdentity(nick: "alice", user: "~alice", host: "home.example")

    /// Alice's session as a book made before the restart held it.
    func kept(signedOnAt: Int?, expiresIn seconds: Double = 3600) async -> [BoundSession<TestLogin>] {
        let before = SessionBook<TestLogin>()
        await before.bind(TestLogin("Jane", expiresIn: seconds), to: alice, signedOnAt: signedOnAt)
        return await before.snapshot()
    }

    @Test func aRestoredConnectionSessionActsOnlyForTheConnectionWithItsSignOnTime() async {
        let book = SessionBook<TestLogin>()
        #expect(await book.restore(await kept(signedOnAt: 1_700_000_000)) == 1)
        // Unwatched: nothing acts before the connection is checked.
        #expect(await book.session(for: alice) == nil)
        #expect(await book.hasUnwatchedSession(for: alice))
        // Someone who reconnected with the same nick and user@host while the bot was down has
        // another sign-on time: refused, and the session stays for its owner.
        let mark = await book.sightMark(of: "alice")
        #expect(
            await book.reclaim(
                for: alice, signedOnAt: 1_700_000_500, user: "~alice", host: "home.example", watch: .channel,
                ifUnchangedSince: mark) == nil)
        #expect(await book.session(for: alice) == nil)
        // The owner, still connected since then, takes it back.
        let back = await book.reclaim(
            for: alice, signedOnAt: 1_700_000_000, user: "~alice", host: "home.example", watch: .channel,
            ifUnchangedSince: mark)
        #expect(back?.login.name == "Jane")
        #expect(await book.session(for: alice)?.login.name == "Jane")
    }

    @Test func aConnectionSessionWithoutASignOnTimeIsNotRestored() async {
        let book = SessionBook<TestLogin>()
        #expect(await book.restore(await kept(signedOnAt: nil)) == 0)
        #expect(!(await book.hasUnwatchedSession(for: alice)))
    }

    @Test func expiredSessionsAreNotRestored() async {
        let book = SessionBook<TestLogin>()
        #expect(await book.restore(await kept(signedOnAt: 5, expiresIn: -1)) == 0)
        #expect(await book.count == 0)
    }

    @Test func anAccountSessionComesBackForThatAccountOnly() async {
        let before = SessionBook<TestLogin>()
        let bob = UserIdentity(nick: "bob", user: "~bob", host: "b.example", account: "BobAccount")
        await before.bind(TestLogin("Bob"), to: bob)
        let book = SessionBook<TestLogin>()
        #expect(await book.restore(await before.snapshot()) == 1)
        // Another nick and host, the same account (compared like the server's nicks).
        #expect(
            await book.session(for: UserIdentity(nick: "bobby", user: "x", host: "y", account: "bobaccount"))?.login
                .name == "Bob")
        // The same nick and host without the account get nothing.
        #expect(await book.session(for: UserIdentity(nick: "bob", user: "~bob", host: "b.example")) == nil)
    }

    @Test func aSessionAlreadyHereIsNotReplacedByAKeptOne() async {
        let book = SessionBook<TestLogin>()
        await book.bind(TestLogin("Fresh"), to: alice, signedOnAt: 9)
        #expect(await book.restore(await kept(signedOnAt: 9)) == 0)
        #expect(await book.session(for: alice)?.login.name == "Fresh")
    }

    @Test func aSignOnTimeLearntAfterTheLoginIsRecordedOnlyWithoutALossOfSight() async {
        let book = SessionBook<TestLogin>()
        let mark = await book.sightMark(of: "alice")
        await book.bind(TestLogin("Jane"), to: alice, ifUnchangedSince: mark)
        // Alice quit and someone came back under her nick before the WHOIS answer: not recorded.
        await book.lostSight(ofNick: "alice")
        await book.setSignedOn(42, for: alice, ifUnchangedSince: mark)
        #expect(await book.snapshot().first?.signedOnAt == nil)
        let now = await book.sightMark(of: "alice")
        await book.setSignedOn(42, for: alice, ifUnchangedSince: now)
        #expect(await book.snapshot().first?.signedOnAt == 42)
    }

    @Test func changesWorthKeepingAreReported() async {
        let book = SessionBook<TestLogin>()
        let count = Tally()
        await book.onChange { count.add() }
        await book.bind(TestLogin("Jane"), to: alice, signedOnAt: 1)
        #expect(count.value == 1)
        await book.nickChanged(from: "alice", to: "alice2")
        #expect(count.value == 2)
        // A loss of sight changes only how the session is watched: nothing to keep.
        await book.lostSight(ofNick: "alice2")
        #expect(count.value == 2)
        #expect(await book.userQuit(nick: "alice2").count == 1)
        #expect(count.value == 3)
        // A QUIT of a nick without a session reports nothing.
        await book.userQuit(nick: "nobody")
        #expect(count.value == 3)
    }
}

/// Counts calls from any thread.
final class Tally: Sendable {
    private let count = NIOLockedValueBox(0)
    func add() { count.withLockedValue { $0 += 1 } }
    var value: Int { count.withLockedValue { $0 } }
}
