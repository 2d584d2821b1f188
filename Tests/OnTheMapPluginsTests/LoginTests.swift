import BotKit
import BotTesting
import ClassKit
import Foundation
import IRCProtocol
import OnTheMapPlugins
import OnTheMapService
import Testing

@Suite struct LoginTests {
    @Test func privateLoginWhoamiAndLogout() async throws {
        let fixture = try ClassFixture()
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        let welcome = await fixture.logIn("jane", email: "jane@class.test")
        #expect(welcome.count == 1)
        #expect(welcome[0].hasPrefix("Welcome, Jane Doe!"))
        #expect(!welcome.joined().contains(ClassFixture.password))

        let who = await fixture.dm("!whoami", as: "jane")
        #expect(who.first?.hasPrefix("You are logged in as Jane Doe") == true)
        #expect(who.first?.contains("jane!~jane@jane.example") == true)
        #expect(who.first?.contains(", until 20") == true)

        await fixture.bot.assertResponse(
            "!logout",
            "You are logged out, Jane Doe. Your other sessions ended with it: the class map in any browser, the API "
                + "and the bot's other networks; an unused sign-in link and your data feed addresses no longer work. "
                + "See you soon!", as: "jane")
        await fixture.bot.assertResponse("!whoami", "You are not logged in.…", as: "jane")
        await fixture.bot.assertResponse("!logout", "You were not logged in.", as: "jane")
    }

    /// `!logout` leaves no door open: the student's sessions in the directory (a browser signed in
    /// to the class map, an API client) end, and a sign-in link given out before no longer works.
    @Test func logoutEndsWebSessionsAndSignInLinks() async throws {
        let fixture = try ClassFixture()
        let jane = try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        _ = await fixture.logIn("jane", email: "jane@class.test")
        let browser = try #require(try await fixture.sqlite.openSession(accountKey: jane.accountKey))
        let links = SignInLinks(store: fixture.sqlite)
        let link = try await links.issue(accountKey: jane.accountKey)
        #expect(try await fixture.sqlite.session(id: browser.sessionId) != nil)

        let answer = await fixture.dm("!logout", as: "jane")
        #expect(answer.first?.hasPrefix("You are logged out, Jane Doe.") == true, "\(answer)")
        #expect(try await fixture.sqlite.session(id: browser.sessionId) == nil, "the browser's session still works")
        #expect(try await links.redeem(link) == .unknown, "the sign-in link still works")
        #expect(try await fixture.sqlite.accountRecord(.key(jane.accountKey))?.sessions.isEmpty == true)
    }

    @Test func wrongPasswordAndUnreachableServiceAreDifferentReplies() async throws {
        let fixture = try ClassFixture()
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        let wrong = await fixture.logIn("jane", email: "jane@class.test", password: "not the password")
        #expect(wrong == ["Wrong email or password."])
        let unknown = await fixture.logIn("jane", email: "nobody@class.test")
        #expect(unknown == ["Wrong email or password."])

        fixture.directory.setFault(.networkUnreachable("connection refused"))
        let down = await fixture.logIn("jane", email: "jane@class.test")
        #expect(down == ["I could not reach the class directory just now; please try again in a minute."])
        fixture.directory.setFault(nil)
        #expect(await fixture.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
    }

    @Test func loginWithoutPasswordShowsUsage() async throws {
        let fixture = try ClassFixture()
        let replies = await fixture.dm("!login jane@class.test", as: "jane")
        #expect(replies == ["Usage: !login <email> <password> (in this private chat)."])
    }

    @Test func loginInAChannelIsRefusedAndNeverEchoed() async throws {
        let fixture = try ClassFixture()
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        let replies = await fixture.say("!login jane@class.test \(ClassFixture.password)", as: "jane")
        #expect(replies.count == 1)
        let warning = try #require(replies.first)
        #expect(warning.target == "#class")
        #expect(warning.text.hasPrefix("jane: never type a password in a channel"))
        #expect(warning.text.contains("change that password"))
        #expect(!warning.text.contains(ClassFixture.password))
        #expect(!warning.text.contains("jane@class.test"))
        // Not processed: no session was made.
        #expect(await fixture.dm("!whoami", as: "jane").first?.hasPrefix("You are not logged in.") == true)
    }

    @Test func fiveFailuresLockTheIdentityForFifteenMinutes() async throws {
        let fixture = try ClassFixture()
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        for attempt in 1...5 {
            let reply = await fixture.logIn(
                "mallory", email: "jane@class.test", password: "guess number \(attempt)")
            if attempt < 5 {
                #expect(reply == ["Wrong email or password."])
            } else {
                #expect(reply.first?.contains("please wait 15 minutes") == true)
            }
        }
        // Even the right password waits now.
        let locked = await fixture.logIn("mallory", email: "jane@class.test")
        #expect(locked.first?.hasPrefix("Too many wrong passwords; please wait") == true)
        // Another identity is not affected.
        #expect(await fixture.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)

        fixture.advance(seconds: 15 * 60 + 1)
        #expect(await fixture.logIn("mallory", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
    }

    @Test func theSessionStaysWithTheIdentityThatLoggedIn() async throws {
        let fixture = try ClassFixture()
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        _ = await fixture.logIn("jane", email: "jane@class.test")

        // Someone else using the nick "jane" from another host has no session.
        let impostor = fixture.bot.user("jane", host: "elsewhere.example")
        let theirs = await fixture.bot.say("!whoami", from: impostor, origin: .privateMessage)
        #expect(theirs.first?.text.hasPrefix("You are not logged in.") == true)

        // A nick change keeps the session (the IRC layer reports NICK to the session book).
        await fixture.bot.sessions.nickChanged(from: "jane", to: "jane_away")
        let moved = UserIdentity(nick: "jane_away", user: "~jane", host: "jane.example")
        let after = await fixture.bot.say("!whoami", from: moved, origin: .privateMessage)
        #expect(after.first?.text.hasPrefix("You are logged in as Jane Doe") == true)
        // Whoever takes the old nick afterwards does not get it.
        let newcomer = fixture.bot.user("jane", host: "newcomer.example")
        let taken = await fixture.bot.say("!whoami", from: newcomer, origin: .privateMessage)
        #expect(taken.first?.text.hasPrefix("You are not logged in.") == true)
    }

    @Test func signupGivesTheBackendsPage() async throws {
        let fixture = try ClassFixture(signUpURL: "https://signup.example/join")
        let replies = await fixture.say("!signup", as: "jane")
        #expect(replies.map(\.text) == ["jane: Create your account here: https://signup.example/join"])

        let closed = try ClassFixture(signUpURL: nil)
        #expect(
            await closed.dm("!signup", as: "jane")
                == ["This class has no sign-up page; ask your instructor for an account."])
    }

    /// A local class that allows registration, without a sign-up page, points at `!register`.
    @Test func signupPointsAtRegisterWhenTheClassAllowsIt() async throws {
        let open = try ClassFixture(
            signUpURL: nil, replacing: { [LoginPlugin(services: .init($0), settings: .init(allowRegistration: true))] })
        let replies = await open.dm("!signup", as: "jane")
        #expect(replies.count == 1)
        #expect(replies.first?.hasPrefix("Create your account in a private message: /msg ") == true, "\(replies)")
        #expect(replies.first?.hasSuffix("!register <email> <password> <first name> <last name>") == true)
    }

    @Test func registerIsOffUnlessAllowed() async throws {
        let fixture = try ClassFixture()
        let replies = await fixture.dm("!register new@class.test longpassword New Student", as: "newbie")
        #expect(replies == ["Registration is turned off for this class; ask your instructor for an account."])
        #expect(try await fixture.sqlite.listAccounts().isEmpty)
    }

    /// `!register` makes the account and says the same whether or not the email had one (so it
    /// never tells who is in the class); the student then logs in with what they chose.
    @Test func registerCreatesAnAccountAndNeverSaysWhetherTheEmailHadOne() async throws {
        let fixture = try ClassFixture(replacing: {
            [LoginPlugin(services: .init($0), settings: .init(allowRegistration: true))]
        })
        let short = await fixture.dm("!register new@class.test short New", as: "newbie")
        #expect(short.first?.contains("at least 8 characters") == true)
        #expect(!short.joined().contains("short New"))

        let created = await fixture.dm(
            "!register new@class.test longpassword Ada Lovelace King", as: "newbie")
        let sameEitherWay =
            "Thank you. If new@class.test had no account, it has one now with the password you chose; if it had one, nothing was changed. Log in with /msg MapBot !login new@class.test <password>."
        #expect(created == [sameEitherWay])
        #expect(!created.joined().contains("longpassword"))
        let accounts = try await fixture.sqlite.listAccounts()
        #expect(accounts.map(\.email) == ["new@class.test"])
        #expect(
            await fixture.dm("!login new@class.test longpassword", as: "newbie").first?.hasPrefix("Welcome") == true)
        #expect(await fixture.dm("!whoami", as: "newbie").first?.contains("Ada Lovelace King") == true)

        // The same email again, from elsewhere: the same answer, and nothing changed.
        let taken = await fixture.dm("!register new@class.test otherpassword Ada Lovelace", as: "other")
        #expect(taken == [sameEitherWay])
        #expect(try await fixture.sqlite.listAccounts() == accounts)
        #expect(await fixture.dm("!login new@class.test otherpassword", as: "other") == ["Wrong email or password."])

        // In a channel: refused before anything happens.
        let inChannel = await fixture.say("!register x@class.test longpassword X Y", as: "newbie")
        #expect(inChannel.first?.text.contains("never type a password in a channel") == true)
        #expect(try await fixture.sqlite.listAccounts().count == 1)
    }
}

/// What one host can register, and namesakes told apart.
@Suite struct RegistrationAbuseTests {
    static func fixture() throws -> ClassFixture {
        try ClassFixture(replacing: { [LoginPlugin(services: .init($0), settings: .init(allowRegistration: true))] })
    }

    static func register(_ fixture: ClassFixture, _ nick: String, on host: String, _ email: String) async -> [String] {
        let sender = UserIdentity(nick: nick, user: "~" + nick, host: host)
        return await fixture.bot.say(
            "!register \(email) longpassword Radia Perlman", from: sender, origin: .privateMessage
        ).map(\.text)
    }

    @Test func oneHostRegistersThreeTimesADayWhateverItsNicks() async throws {
        let fixture = try Self.fixture()
        for index in 1...3 {
            let answer = await Self.register(fixture, "n\(index)", on: "198.51.100.7", "r\(index)@class.test")
            #expect(answer.first?.hasPrefix("Thank you.") == true, "\(answer)")
        }
        let fourth = await Self.register(fixture, "n4", on: "198.51.100.7", "r4@class.test")
        #expect(
            fourth == [
                "Your host has tried 3 registrations today; try again in 24 hours, or ask your instructor for an account."
            ])
        #expect(try await fixture.sqlite.listAccounts().count == 3)
        // Another host is not held back; a day later the first one may again.
        #expect(
            await Self.register(fixture, "m1", on: "203.0.113.9", "m1@class.test").first?.hasPrefix("Thank you.")
                == true)
        fixture.advance(seconds: 24 * 3600 + 1)
        #expect(
            await Self.register(fixture, "n5", on: "198.51.100.7", "r5@class.test").first?.hasPrefix("Thank you.")
                == true)
    }

    @Test func namesakesAreAllNamedWithTheirPlaces() async throws {
        let fixture = try ClassFixture(settings: ClassSettings(privacy: PrivacyPolicy(visibility: .public)))
        try await fixture.addPin(
            email: "radia@class.test", first: "Radia", last: "Perlman", place: "Boston, Massachusetts, United States",
            at: SharedGazetteer.coordinate(of: "Boston"))
        fixture.advance(seconds: 3600)
        try await fixture.addPin(
            email: "other@class.test", first: "Radia", last: "Perlman", place: "Paris, Île-de-France, France",
            at: SharedGazetteer.coordinate(of: "Paris"))
        let answer = await fixture.dm("!where Radia Perlman", as: "bob")
        #expect(answer.first == "2 students are called Radia Perlman; each line is one of them:")
        // Each with its place and how long ago it was posted (an hour apart).
        #expect(answer.dropFirst().contains { $0.hasPrefix("Radia Perlman — Boston") && !$0.hasSuffix("just now") })
        #expect(answer.dropFirst().contains { $0.hasPrefix("Radia Perlman — Paris") && $0.hasSuffix("just now") })
        #expect(answer.count == 3)
    }
}
