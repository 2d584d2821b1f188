import BotKit
import BotTesting
import Foundation
import OnTheMapPlugins
import OnTheMapService
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

    @Test func oneEmailTriedFromManyNicksIsSlowedDownButNotForItsOwner() async {
        let clock = TestWallClock()
        let throttle = Self.throttle(clock)
        // The owner logged in from home before.
        await throttle.recordSuccess(identity: "h:~jane@home", email: "jane@x.test")
        // Ten guessers, one try each, with the email in different spellings.
        for guesser in 1...9 {
            #expect(
                await throttle.check(identity: "h:~g\(guesser)@net\(guesser)", email: "jane@x.test") == nil)
            #expect(
                await throttle.recordFailure(identity: "h:~g\(guesser)@net\(guesser)", email: " JANE@x.test")
                    == nil)
        }
        #expect(
            await throttle.recordFailure(identity: "h:~g10@net10", email: "Jane@X.test")
                == .init(seconds: 900, reason: .email))
        // A new guesser has to wait; so does every nick from anywhere…
        #expect(
            await throttle.check(identity: "h:~g11@net11", email: "jane@x.test")
                == .init(seconds: 900, reason: .email))
        // …but not the owner, and not other emails.
        #expect(await throttle.check(identity: "h:~jane@home", email: "jane@x.test") == nil)
        #expect(await throttle.check(identity: "h:~g11@net11", email: "tom@x.test") == nil)
        clock.advance(seconds: 901)
        #expect(await throttle.check(identity: "h:~g11@net11", email: "jane@x.test") == nil)
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

    @Test func aFloodOfWrongPasswordsSlowsDownEveryoneForAMinute() async {
        let clock = TestWallClock()
        let throttle = Self.throttle(clock, .init(globalFailureLimit: 20, globalWindow: .seconds(60)))
        await throttle.recordSuccess(identity: "h:~jane@home", email: "jane@x.test")
        for index in 1...20 {
            #expect(await throttle.check(identity: "n:\(index)", email: "v\(index)@x.test") == nil)
            await throttle.recordFailure(identity: "n:\(index)", email: "v\(index)@x.test")
            clock.advance(seconds: 1)
        }
        // The oldest failure is 20 s old: the window moves on in 40 s.
        #expect(
            await throttle.check(identity: "n:new", email: "w@x.test")
                == .init(seconds: 40, reason: .everyone))
        // A known owner still gets in.
        #expect(await throttle.check(identity: "h:~jane@home", email: "jane@x.test") == nil)
        clock.advance(seconds: 41)
        #expect(await throttle.check(identity: "n:new", email: "w@x.test") == nil)
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
        // An eleventh nick, even with the right password, waits.
        #expect(
            await fixture.logIn("guess11", email: "jane@class.test")
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

    @Test func aGlobalFloodTellsNewcomersToWait() async throws {
        let fixture = try ClassFixture(
            settings: ClassSettings(announceChannels: ["#class"], loginGlobalFailureLimit: 12))
        for index in 1...12 {
            let sender = Sender(nick: "bot\(index)", user: "~b", host: "net\(index).example")
            let reply = await fixture.bot.say(
                "!login v\(index)@class.test wrong-password", from: sender, origin: .privateMessage)
            #expect(reply.map(\.text) == ["Wrong email or password."])
        }
        let late = await fixture.logIn("late", email: "late@class.test", password: "wrong-password")
        #expect(
            late == [
                "Too many wrong passwords are being tried on this bot just now; please wait 60 seconds before trying again."
            ])
        fixture.wall.advance(seconds: 61)
        #expect(
            await fixture.logIn("late", email: "late@class.test", password: "wrong-password") == [
                "Wrong email or password."
            ])
    }
}
