import BotKit
import BotTesting
@testable import ClassKit
import Foundation
import IRCProtocol
@testable import OnTheMapPlugins
import OnTheMapService
import SQLiteDirectory
import Testing

/// The login throttle on a manual wall clock (no sleeping): per identity, per email across many
/// nicks, and for the whole bot.
@Suite struct LoginThrottleTests {
    static func throttle(_ clock: TestWallClock, _ policy: LoginThrottle.Policy = .init()) -> LoginThrottle {
        LoginThrottle(policy: policy, now: { clock.now })
    }

    @Test func oneIdentityIsLockedOutAndEachLockoutDoubles() async {
        let clock = TestWallClock()
        let throttle = Self.throttle(clock)
        for attempt in 1...4 {
            #expect(await throttle.check(identity: "h:~m@bad", email: "jane@x.test") == nil)
            #expect(await throttle.recordFailure(identity: "h:~m@bad", email: "e\(attempt)@x.test") == nil)
        }
        #expect(
            await throttle.recordFailure(identity: "h:~m@bad", email: "e5@x.test")
                == .init(seconds: 900, reason: .identity))
        #expect(
            await throttle.check(identity: "h:~m@bad", email: "jane@x.test")
                == .init(seconds: 900, reason: .identity))
        clock.advance(seconds: 600)
        #expect(
            await throttle.check(identity: "h:~m@bad", email: "jane@x.test")
                == .init(seconds: 300, reason: .identity))
        // Someone else is not held back.
        #expect(await throttle.check(identity: "h:~jane@home", email: "jane@x.test") == nil)
        clock.advance(seconds: 301)
        #expect(await throttle.check(identity: "h:~m@bad", email: "jane@x.test") == nil)
        // Five more wrong passwords: twice as long, then four times.
        for _ in 1...4 { await throttle.recordFailure(identity: "h:~m@bad", email: "z@x.test") }
        #expect(
            await throttle.recordFailure(identity: "h:~m@bad", email: "z@x.test")
                == .init(seconds: 1800, reason: .identity))
        clock.advance(seconds: 1801)
        for _ in 1...4 { await throttle.recordFailure(identity: "h:~m@bad", email: "y@x.test") }
        #expect(
            await throttle.recordFailure(identity: "h:~m@bad", email: "y@x.test")
                == .init(seconds: 3600, reason: .identity))
    }

    @Test func aSuccessResetsTheIdentity() async {
        let clock = TestWallClock()
        let throttle = Self.throttle(clock)
        for _ in 1...4 { await throttle.recordFailure(identity: "a:jane", email: "jane@x.test") }
        await throttle.recordSuccess(identity: "a:jane", email: "jane@x.test")
        for _ in 1...4 {
            #expect(await throttle.recordFailure(identity: "a:jane", email: "jane@x.test") == nil)
        }
        #expect(await throttle.check(identity: "a:jane", email: "jane@x.test") == nil)
    }

    /// Guesses spread over many hosts (one each, as from 300 addresses or a /48 of IPv6) lock the
    /// email for every host that never logged in to it; the owner's usual host goes ahead.
    @Test func oneEmailTriedFromManyHostsHoldsBackEveryUntrustedHostButNotItsOwner() async {
        let clock = TestWallClock()
        let throttle = Self.throttle(clock)
        // The owner logged in from home before, and then mistyped once.
        await throttle.recordSuccess(identity: "h:home", email: "jane@x.test")
        #expect(await throttle.recordFailure(identity: "h:home", email: "jane@x.test") == nil)
        // Nine guessers, one try each, with the email in different spellings.
        for guesser in 1...8 {
            #expect(await throttle.check(identity: "h:net\(guesser)", email: "jane@x.test") == nil)
            #expect(await throttle.recordFailure(identity: "h:net\(guesser)", email: " JANE@x.test") == nil)
        }
        #expect(
            await throttle.recordFailure(identity: "h:net9", email: "Jane@X.test")
                == .init(seconds: 900, reason: .email))
        // The guessers wait…
        #expect(await throttle.check(identity: "h:net3", email: "jane@x.test") == .init(seconds: 900, reason: .email))
        // …and so does a host that gave no wrong password for it (the next address of the guesser),
        // but not the owner's host, nor other emails.
        #expect(await throttle.check(identity: "h:net10", email: "jane@x.test") == .init(seconds: 900, reason: .email))
        #expect(await throttle.check(identity: "a:jane", email: "jane@x.test") == .init(seconds: 900, reason: .email))
        #expect(await throttle.check(identity: "h:home", email: "jane@x.test") == nil)
        #expect(await throttle.check(identity: "h:net3", email: "tom@x.test") == nil)
        clock.advance(seconds: 901)
        #expect(await throttle.check(identity: "h:net3", email: "jane@x.test") == nil)
    }

    @Test func unknownAndKnownEmailsAreCountedAlike() async {
        // The throttle never looks at the directory: the same failures give the same answers.
        let clock = TestWallClock()
        let throttle = Self.throttle(clock, .init(emailFailureLimit: 3))
        var answers: [[LoginThrottle.Refusal?]] = []
        for email in ["jane@x.test", "nobody@x.test"] {
            var row: [LoginThrottle.Refusal?] = []
            for guesser in 1...4 {
                row.append(await throttle.check(identity: "h:\(email)\(guesser)", email: email))
                row.append(await throttle.recordFailure(identity: "h:\(email)\(guesser)", email: email))
            }
            answers.append(row)
        }
        #expect(answers[0] == answers[1])
    }

    /// A distributed guesser gets `emailFailureLimit` guesses a lockout, and the lockouts double:
    /// 30 guesses in the first hour, 70 in the first day, however many hosts it uses.
    @Test func aGuesserWithAnyNumberOfHostsGetsABoundedNumberOfGuesses() async {
        let clock = TestWallClock()
        let throttle = Self.throttle(clock)
        var host = 0
        var tried: [Double] = []
        var elapsed = 0.0
        while elapsed < 24 * 3600 {
            host += 1
            if await throttle.check(identity: "h:\(host)", email: "jane@x.test") == nil {
                _ = await throttle.recordFailure(identity: "h:\(host)", email: "jane@x.test")
                tried.append(elapsed)
            } else {
                clock.advance(seconds: 60)
                elapsed += 60
            }
        }
        #expect(tried.filter { $0 < 3600 }.count == 30)
        #expect(tried.count == 70)
    }

    /// Wrong passwords from two hosts only (the owner on a phone and a laptop) hold back those two,
    /// not the owner's next new device.
    @Test func guessesFromFewHostsHoldBackOnlyThoseHosts() async {
        let clock = TestWallClock()
        let throttle = Self.throttle(clock)
        for attempt in 1...10 {
            _ = await throttle.recordFailure(identity: attempt % 2 == 0 ? "h:phone" : "h:laptop", email: "jane@x.test")
        }
        #expect(await throttle.check(identity: "h:phone", email: "jane@x.test")?.reason == .identity)
        #expect(await throttle.check(identity: "h:tablet", email: "jane@x.test") == nil)
    }

    @Test func aFloodOfWrongPasswordsHoldsBackTheHostsThatFailedForAMinuteButNotOthers() async {
        let clock = TestWallClock()
        let throttle = Self.throttle(clock, .init(globalFailureLimit: 20, globalWindow: .seconds(60)))
        await throttle.recordSuccess(identity: "h:home", email: "jane@x.test")
        await throttle.recordFailure(identity: "h:home", email: "jane@x.test")
        clock.advance(seconds: 1)
        for index in 1...19 {
            #expect(await throttle.check(identity: "h:\(index)", email: "v\(index)@x.test") == nil)
            await throttle.recordFailure(identity: "h:\(index)", email: "v\(index)@x.test")
            clock.advance(seconds: 1)
        }
        // The oldest failure is 20 s old: the window moves on in 40 s for a host that failed.
        #expect(await throttle.check(identity: "h:3", email: "w@x.test") == .init(seconds: 40, reason: .everyone))
        // A host without a failure of its own goes ahead; once it fails, it waits too.
        #expect(await throttle.check(identity: "h:new", email: "w@x.test") == nil)
        await throttle.recordFailure(identity: "h:new", email: "w@x.test")
        #expect(await throttle.check(identity: "h:new", email: "w@x.test") == .init(seconds: 41, reason: .everyone))
        // A known owner still gets in, although it failed too.
        #expect(await throttle.check(identity: "h:home", email: "jane@x.test") == nil)
        clock.advance(seconds: 42)
        #expect(await throttle.check(identity: "h:new", email: "w@x.test") == nil)
    }

    @Test func oneOriginCountsNoMoreThanItsOwnAllowanceTowardsTheCap() async {
        let clock = TestWallClock()
        let throttle = Self.throttle(clock, .init(globalFailureLimit: 20))
        // Thirteen services accounts on one host, five failures each.
        for account in 1...13 {
            for _ in 1...5 {
                await throttle.recordFailure(identity: "a:acct\(account)", origin: "h:bad", email: "x@x.test")
            }
        }
        // Only five of them count: another host that failed once is not held back by the cap.
        await throttle.recordFailure(identity: "h:other", email: "y@x.test")
        #expect(await throttle.check(identity: "h:other", email: "y@x.test") == nil)
        // Fourteen more hosts, one failure each, make twenty.
        for index in 1...14 { await throttle.recordFailure(identity: "h:\(index)", email: "z@x.test") }
        #expect(await throttle.check(identity: "h:other", email: "y@x.test") == .init(seconds: 60, reason: .everyone))
        #expect(
            await throttle.check(identity: "a:acct20", origin: "h:bad", email: "y@x.test")
                == .init(seconds: 60, reason: .everyone))
        #expect(await throttle.check(identity: "a:acct20", origin: "h:good", email: "y@x.test") == nil)
    }

    @Test func aThrottleOnTheSameStoreTrustsWhoLoggedInBefore() async throws {
        let folder = try TemporaryDirectory(prefix: "throttle-store")
        let store = try SQLiteStudentDirectory(path: folder.file("state.sqlite"))
        let clock = TestWallClock()
        let first = LoginThrottle(store: store, now: { clock.now })
        await first.recordSuccess(identity: "h:home", email: "Jane@X.test")
        await first.recordSuccess(identity: "a:tom", email: "tom@x.test")

        // A new throttle (the bot started again) on the same store.
        let second = LoginThrottle(store: store, now: { clock.now })
        await second.recordFailure(identity: "h:home", email: "jane@x.test")
        await second.recordFailure(identity: "a:tom", email: "jane@x.test")
        for index in 1...8 { await second.recordFailure(identity: "h:\(index)", email: "jane@x.test") }
        #expect(await second.check(identity: "h:1", email: "jane@x.test") == .init(seconds: 900, reason: .email))
        #expect(await second.check(identity: "a:tom", email: "jane@x.test") == .init(seconds: 900, reason: .email))
        #expect(await second.check(identity: "h:home", email: "jane@x.test") == nil)
        // What the second learns is added to what the first saved.
        await second.recordSuccess(identity: "h:office", email: "jane@x.test")
        let stored = try #require(try await store.state(LoginThrottle.stateKey))
        #expect(stored.contains("h:home") && stored.contains("h:office") && stored.contains("a:tom"))
    }

    @Test func theTrustedLoginsAreBounded() async throws {
        let clock = TestWallClock()
        // At most `trustCapacity` pairs, the latest.
        let store = MemoryStateStore()
        let throttle = LoginThrottle(policy: .init(trustCapacity: 3), store: store, now: { clock.now })
        for index in 1...4 {
            await throttle.recordSuccess(identity: "h:\(index)", email: "e\(index)@x.test")
            clock.advance(seconds: 1)
        }
        for index in 1...3 {
            await throttle.recordSuccess(identity: "h:\(index)", email: "many@x.test")
            clock.advance(seconds: 1)
        }
        #expect(await Self.exempt(LoginThrottle(store: store, now: { clock.now }), from: 1...4) == [1, 2, 3])
        let pairs = try #require(try await store.state(LoginThrottle.stateKey))
        #expect(!pairs.contains("e4@x.test"))

        // At most eight identities for one email, the latest.
        let other = MemoryStateStore()
        let busy = LoginThrottle(store: other, now: { clock.now })
        for index in 1...9 {
            await busy.recordSuccess(identity: "h:\(index)", email: "many@x.test")
            clock.advance(seconds: 1)
        }
        #expect(await Self.exempt(LoginThrottle(store: other, now: { clock.now }), from: 1...9) == Array(2...9))
    }

    /// Which of the identities `h:1`, `h:2`… in `range` are not held back once each of them and a few
    /// others gave a wrong password for `many@x.test` (ten in all: the email is locked).
    static func exempt(_ throttle: LoginThrottle, from range: ClosedRange<Int>) async -> [Int] {
        for index in 1...10 { await throttle.recordFailure(identity: "h:\(index)", email: "many@x.test") }
        var exempt: [Int] = []
        for index in range {
            if await throttle.check(identity: "h:\(index)", email: "many@x.test") == nil { exempt.append(index) }
        }
        return exempt
    }

    @Test func aStoreThatCannotBeReadIsNotOverwritten() async throws {
        let store = MemoryStateStore()
        await store.setFailing(true)
        try await store.setState(LoginThrottle.stateKey, #"[{"email":"jane@x.test","identity":"h:home","at":0}]"#)
        let throttle = LoginThrottle(store: store)
        await throttle.recordSuccess(identity: "h:office", email: "tom@x.test")
        await store.setFailing(false)
        #expect(try await store.state(LoginThrottle.stateKey)?.contains("h:home") == true)
        // Once the store answers, the two are merged.
        await throttle.recordSuccess(identity: "h:office", email: "tom@x.test")
        await throttle.recordSuccess(identity: "h:laptop", email: "tom@x.test")
        let stored = try #require(try await store.state(LoginThrottle.stateKey))
        #expect(stored.contains("h:home") && stored.contains("h:office") && stored.contains("h:laptop"))
    }

    @Test func oldFailuresAreForgotten() async {
        let clock = TestWallClock()
        let throttle = Self.throttle(clock, .init(forgetAfter: .seconds(3600)))
        for _ in 1...4 { await throttle.recordFailure(identity: "n:x", email: "a@x.test") }
        clock.advance(seconds: 3601)
        #expect(await throttle.recordFailure(identity: "n:x", email: "a@x.test") == nil)
    }

    // MARK: - Through the bot

    @Test func manyNicksGuessingOneEmailAreToldToWaitAndTheOwnerIsNot() async throws {
        let fixture = try ClassFixture()
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        // Jane logged in from home once, then out.
        #expect(await fixture.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
        _ = await fixture.dm("!logout", as: "jane")
        var replies: [String] = []
        for guesser in 1...10 {
            replies += await fixture.logIn(
                "guess\(guesser)", email: "jane@class.test", password: "guess-\(guesser)")
        }
        #expect(replies.prefix(9).allSatisfy { $0 == "Wrong email or password." })
        #expect(
            replies.last
                == "Wrong email or password. Too many wrong passwords were tried for that email; please wait 15 minutes before trying again."
        )
        // A nick that guessed waits, even with the right password.
        #expect(
            await fixture.logIn("guess10", email: "jane@class.test")
                == [
                    "Too many wrong passwords were tried for that email; please wait 15 minutes before trying again."
                ])
        // Jane, from home, is not locked out by them.
        #expect(await fixture.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
        // The same for an email nobody has: the answers do not tell them apart.
        var unknown: [String] = []
        for guesser in 1...10 {
            unknown += await fixture.logIn(
                "other\(guesser)", email: "ghost@class.test", password: "guess-\(guesser)")
        }
        #expect(unknown == replies.map { $0 })
    }

    @Test func aSuccessfulLoginResetsTheCount() async throws {
        let fixture = try ClassFixture()
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        for _ in 1...4 {
            #expect(
                await fixture.logIn("jane", email: "jane@class.test", password: "typo") == [
                    "Wrong email or password."
                ])
        }
        #expect(await fixture.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
        for _ in 1...4 {
            #expect(
                await fixture.logIn("jane", email: "jane@class.test", password: "typo") == [
                    "Wrong email or password."
                ])
        }
    }

    @Test func aGlobalFloodTellsTheHostsThatFailedToWaitButNotNewcomers() async throws {
        let fixture = try ClassFixture(loginThrottlePolicy: .init(globalFailureLimit: 12))
        try await fixture.addStudent("amy@class.test", "Amy", "Lee")
        for index in 1...12 {
            let sender = UserIdentity(nick: "bot\(index)", user: "~b", host: "net\(index).example")
            let reply = await fixture.bot.say(
                "!login v\(index)@class.test wrong-password", from: sender, origin: .privateMessage)
            #expect(reply.map(\.text) == ["Wrong email or password."])
        }
        let again = await Self.logIn(fixture, "bot3", on: "net3.example", email: "v3@class.test", password: "other")
        #expect(
            again == [
                "Too many wrong passwords are being tried on this bot just now; please wait 60 seconds before trying again."
            ])
        #expect(await fixture.logIn("amy", email: "amy@class.test").first?.hasPrefix("Welcome") == true)
        fixture.advance(seconds: 61)
        #expect(
            await Self.logIn(fixture, "bot3", on: "net3.example", email: "v3@class.test", password: "other") == [
                "Wrong email or password."
            ])
    }

    // MARK: - Guessing from one host

    /// A private `!login` from `nick` (user name `~nick`) on `host`; returns the bot's answers.
    static func logIn(
        _ fixture: ClassFixture, _ nick: String, on host: String, email: String,
        password: String = ClassFixture.password
    ) async -> [String] {
        let sender = UserIdentity(nick: nick, user: "~" + nick, host: host)
        return await fixture.bot.say("!login \(email) \(password)", from: sender, origin: .privateMessage).map(\.text)
    }

    static let hostLocked =
        "Wrong email or password. Too many failed attempts: please wait 15 minutes before trying again."
    static let hostWaits = "Too many wrong passwords; please wait 15 minutes before trying again."
    static let emailWaits =
        "Too many wrong passwords were tried for that email; please wait 15 minutes before trying again."

    @Test func userNamesOnOneHostShareOneAllowanceAndCannotUseUpTheBotsAllowance() async throws {
        let fixture = try ClassFixture()
        try await fixture.addStudent("amy@class.test", "Amy", "Lee")
        // Thirteen nicks with their own user names on one host, five wrong passwords each.
        var replies: [String] = []
        for index in 1...13 {
            for attempt in 1...5 {
                replies += await Self.logIn(
                    fixture, "m\(index)", on: "198.51.100.7", email: "v\(index)-\(attempt)@class.test",
                    password: "wrong-password")
            }
        }
        #expect(replies.count == 65)
        #expect(replies.prefix(4).allSatisfy { $0 == "Wrong email or password." })
        #expect(replies[4] == Self.hostLocked)
        #expect(replies.dropFirst(5).allSatisfy { $0 == Self.hostWaits })
        // A student on another host, who never logged in before, is not held back.
        #expect(await fixture.logIn("amy", email: "amy@class.test").first?.hasPrefix("Welcome") == true)
    }

    @Test func guessesForOneEmailFromManyHostsHoldBackEveryHostButTheOwnersOwn() async throws {
        let fixture = try ClassFixture()
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        // Jane logged in from her usual host before: it is trusted for her email.
        #expect(await fixture.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
        _ = await fixture.dm("!logout", as: "jane")
        // Ten user names on one host, one guess each: only five are tried before the host waits.
        var first: [String] = []
        for index in 1...10 {
            first += await Self.logIn(
                fixture, "a\(index)", on: "198.51.100.7", email: "jane@class.test", password: "guess")
        }
        #expect(first.prefix(4).allSatisfy { $0 == "Wrong email or password." })
        #expect(first[4] == Self.hostLocked)
        #expect(first.dropFirst(5).allSatisfy { $0 == Self.hostWaits })
        // Four from a second host and one from a third make ten wrong passwords for Jane's email.
        for index in 1...4 {
            #expect(
                await Self.logIn(fixture, "b\(index)", on: "203.0.113.9", email: "jane@class.test", password: "guess")
                    == ["Wrong email or password."])
        }
        #expect(
            await Self.logIn(fixture, "c1", on: "192.0.2.33", email: "jane@class.test", password: "guess")
                == ["Wrong email or password. " + Self.emailWaits])
        // The hosts that guessed wait, even with the right password…
        #expect(await Self.logIn(fixture, "c2", on: "192.0.2.33", email: "jane@class.test") == [Self.emailWaits])
        #expect(await Self.logIn(fixture, "b5", on: "203.0.113.9", email: "jane@class.test") == [Self.emailWaits])
        #expect(await Self.logIn(fixture, "a11", on: "198.51.100.7", email: "jane@class.test") == [Self.hostWaits])
        // …and so does any host that never logged in to the email (the guesser's next address,
        // or Jane on a device she never used), but not Jane's usual host.
        #expect(await Self.logIn(fixture, "d1", on: "192.0.2.200", email: "jane@class.test") == [Self.emailWaits])
        #expect(await fixture.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
    }

    @Test func anIPv6HostIsCountedByItsSlash64() async throws {
        let fixture = try ClassFixture()
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        let sameNetwork = [
            "2001:db8:7:1::10", "2001:db8:7:1:aaaa::1", "2001:DB8:7:1:0:0:0:99", "2001:db8:7:1:ffff:1:2:3",
            "2001:0db8:0007:0001::abcd",
        ]
        var replies: [String] = []
        for (index, address) in sameNetwork.enumerated() {
            replies += await Self.logIn(
                fixture, "v\(index)", on: address, email: "x\(index)@class.test", password: "guess")
        }
        #expect(replies.prefix(4).allSatisfy { $0 == "Wrong email or password." })
        #expect(replies.last == Self.hostLocked)
        #expect(
            await Self.logIn(fixture, "v9", on: "2001:db8:7:1:1234::5", email: "jane@class.test") == [Self.hostWaits])
        // The next /64 is another host.
        #expect(
            await Self.logIn(fixture, "jane", on: "2001:db8:7:2::10", email: "jane@class.test").first?.hasPrefix(
                "Welcome") == true)
    }

    @Test func whoLoggedInFromWhereIsRememberedByTheNextStart() async throws {
        let folder = try TemporaryDirectory(prefix: "throttle-restart")
        let before = try ClassFixture(folder: folder)
        try await before.addStudent("jane@class.test", "Jane", "Doe")
        #expect(await before.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
        // The bot starts again on the same database.
        let after = try ClassFixture(folder: folder)
        // A typo from Jane's usual host and nine guesses from nine other hosts lock her email for
        // the hosts that gave them…
        #expect(
            await after.logIn("jane", email: "jane@class.test", password: "typo") == ["Wrong email or password."])
        for index in 1...9 {
            _ = await after.logIn("guess\(index)", email: "jane@class.test", password: "guess-\(index)")
        }
        #expect(await after.logIn("guess1", email: "jane@class.test") == [Self.emailWaits])
        // …but not Jane's usual host, which the new start remembers.
        #expect(await after.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
    }

    @Test func throttleKeysLeaveOutWhatAGuesserChangesAtWill() {
        let plain = UserIdentity(nick: "a", user: "~a", host: "Dorm-7.Uni.example")
        let other = UserIdentity(nick: "b", user: "~zz", host: "dorm-7.uni.example")
        #expect(
            LoginPlugin.throttleKeys(plain, caseMapping: .rfc1459)
                == LoginPlugin.throttleKeys(other, caseMapping: .rfc1459))
        #expect(
            LoginPlugin.throttleKeys(plain, caseMapping: .rfc1459) == ("h:dorm-7.uni.example", "h:dorm-7.uni.example"))
        let account = UserIdentity(nick: "c", user: "~c", host: "dorm-7.uni.example", account: "Carol")
        #expect(LoginPlugin.throttleKeys(account, caseMapping: .rfc1459) == ("a:carol", "h:dorm-7.uni.example"))
        // An IPv6 host stands for its /64 (the addresses are tested in IRCProtocolTests).
        let v6 = UserIdentity(nick: "d", user: "~d", host: "2001:db8:7:1::10")
        #expect(LoginPlugin.throttleKeys(v6, caseMapping: .rfc1459) == ("h:2001:db8:7:1::/64", "h:2001:db8:7:1::/64"))
        // Without a host, the nick, folded with the server's casemapping.
        let hostless = UserIdentity(nick: "Wiz[1]")
        #expect(LoginPlugin.throttleKeys(hostless, caseMapping: .rfc1459) == ("n:wiz{1}", "n:wiz{1}"))
    }

    /// The same services account on another network is counted apart (it may be someone else), while
    /// the default network keeps the keys it had before the bot served several.
    @Test func throttleKeysAreScopedToTheirNetwork() {
        let account = UserIdentity(nick: "c", user: "~c", host: "dorm-7.uni.example", account: "Carol")
        #expect(
            LoginPlugin.throttleKeys(account, caseMapping: .rfc1459, network: "lab")
                == ("lab/a:carol", "lab/h:dorm-7.uni.example"))
        #expect(
            LoginPlugin.throttleKeys(account, caseMapping: .rfc1459, network: ClassSettings.defaultNetworkName)
                == LoginPlugin.throttleKeys(account, caseMapping: .rfc1459))
    }

    /// An email erased by another process (`accounts forget`) while this bot trusted hosts for it
    /// is not written back by this bot's next save, and this bot trusts no host for it any more.
    @Test func trustErasedByAnotherProcessIsNotWrittenBack() async throws {
        let store = MemoryStateStore()
        let throttle = LoginThrottle(store: store)
        await throttle.recordSuccess(identity: "h:jane.example", email: "jane@class.test")
        await throttle.recordSuccess(identity: "h:tom.example", email: "tom@class.test")
        let saved = try #require(try await store.state(LoginThrottle.stateKey))
        #expect(saved.contains("jane@class.test"))

        // Another process erases Jane.
        let scrubbed = try #require(LoginThrottle.scrub(saved, email: "jane@class.test"))
        try await store.setState(LoginThrottle.stateKey, scrubbed)

        await throttle.recordSuccess(identity: "h:ann.example", email: "ann@class.test")
        let after = try #require(try await store.state(LoginThrottle.stateKey))
        #expect(!after.contains("jane@class.test"), "\(after)")
        #expect(after.contains("tom@class.test") && after.contains("ann@class.test"))
        #expect(await throttle.trusted(email: "jane@class.test").isEmpty)
        #expect(await throttle.trusted(email: "tom@class.test").map(\.identity) == ["h:tom.example"])
    }
}

/// A state store in memory that can be made to fail.
actor MemoryStateStore: BotStateStore {
    private var values: [String: String] = [:]
    private var failing = false

    func setFailing(_ failing: Bool) { self.failing = failing }

    func state(_ key: String) async throws -> String? {
        if failing { throw ServiceError.networkUnreachable("the state store is down") }
        return values[key]
    }

    func setState(_ key: String, _ value: String?) async throws {
        values[key] = value
    }

    func stateKeys(prefix: String) async throws -> [String] {
        values.keys.filter { $0.hasPrefix(prefix) }.sorted()
    }

    func states(prefix: String) async throws -> [String: String] {
        values.filter { $0.key.hasPrefix(prefix) }
    }

    func takeState(_ key: String) async throws -> String? {
        if failing { throw ServiceError.networkUnreachable("the state store is down") }
        return values.removeValue(forKey: key)
    }
}
