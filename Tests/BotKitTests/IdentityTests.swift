import BotKit
import BotTesting
import Foundation
import OnTheMapService
import Testing

/// A session never moves to a different person: nick changes, nicks taken over after a QUIT,
/// the same nick from another user@host, and services logouts (`ACCOUNT *`), through the real
/// router with a plugin that logs in and tells who you are.
@Suite struct IdentityTests {
    /// `!in <name>` binds a session for <name>; `!who` says whose session the sender has.
    struct SessionProbe: Plugin {
        let name = "probe"
        var commands: [Command] {
            [
                Command("in", usage: "!in <name>", help: "Logs in.", allowed: .privateMessage) { call in
                    let session = DirectorySession(
                        accountKey: call.argument, sessionId: "sid-\(call.argument)",
                        expiresAt: Date().addingTimeInterval(3600))
                    let profile = StudentProfile(
                        accountKey: call.argument, firstName: call.argument, lastName: "")
                    await call.sessions.bind(session, profile: profile, to: call.sender)
                    await call.reply("in as \(call.argument)")
                },
                Command("who", usage: "!who", help: "Whose session.", requiresLogin: true) { call in
                    await call.reply("session of \(call.session?.profile.firstName ?? "?")")
                },
            ]
        }
    }

    static let notLoggedIn = "You need to log in first: /msg MapBot !login <email> <password>"
    let bot = TestBot(plugins: [SessionProbe()])

    func who(_ sender: Sender) async -> String? {
        bot.clock.advance(by: .seconds(10))
        return await bot.say("!who", from: sender, origin: .privateMessage).first?.text
    }

    func logIn(_ sender: Sender, as name: String) async {
        bot.clock.advance(by: .seconds(10))
        #expect(
            await bot.say("!in \(name)", from: sender, origin: .privateMessage).first?.text == "in as \(name)"
        )
    }

    @Test func aNickChangeKeepsTheSession() async {
        let jane = Sender(nick: "jane", user: "~jane", host: "home.example")
        await logIn(jane, as: "Jane")
        await bot.router.sessions.nickChanged(from: "jane", to: "jane_lunch")
        #expect(
            await who(Sender(nick: "jane_lunch", user: "~jane", host: "home.example")) == "session of Jane")
        // Twice, and back.
        await bot.router.sessions.nickChanged(from: "jane_lunch", to: "JaneBack")
        #expect(await who(Sender(nick: "janeback", user: "~jane", host: "home.example")) == "session of Jane")
        // The old nick, same user@host but no NICK seen for it: nothing.
        #expect(
            await who(Sender(nick: "jane_lunch", user: "~jane", host: "home.example")) == Self.notLoggedIn)
    }

    @Test func aNickTakenOverAfterAQuitGetsNoSession() async {
        let jane = Sender(nick: "jane", user: "~jane", host: "home.example")
        await logIn(jane, as: "Jane")
        await bot.router.sessions.userQuit(nick: "JANE")
        // Someone else takes the nick, from elsewhere or even from the same user@host (a shared
        // gateway): the session ended with the QUIT.
        #expect(await who(Sender(nick: "jane", user: "~mallory", host: "evil.example")) == Self.notLoggedIn)
        #expect(await who(Sender(nick: "jane", user: "~jane", host: "home.example")) == Self.notLoggedIn)
        #expect(await bot.router.sessions.count == 0)
    }

    @Test func theSameNickFromAnotherUserOrHostGetsNothing() async {
        let jane = Sender(nick: "jane", user: "~jane", host: "home.example")
        await logIn(jane, as: "Jane")
        #expect(await who(Sender(nick: "jane", user: "~jane", host: "other.example")) == Self.notLoggedIn)
        #expect(await who(Sender(nick: "jane", user: "~janet", host: "home.example")) == Self.notLoggedIn)
        #expect(await who(Sender(nick: "jane", user: nil, host: nil)) == Self.notLoggedIn)
        // A services account with the nick's name is another identity too.
        #expect(await who(Sender(nick: "jane", user: "~x", host: "y", account: "jane")) == Self.notLoggedIn)
        #expect(await who(jane) == "session of Jane")
    }

    @Test func aServicesLogoutEndsAnAccountBoundSession() async {
        let jane = Sender(nick: "jane", user: "~jane", host: "home.example", account: "janeacct")
        await logIn(jane, as: "Jane")
        #expect(await who(jane) == "session of Jane")
        // ACCOUNT * from her nick: the server now reports no account for her.
        let ended = await bot.router.sessions.accountChanged(nick: "jane", to: "*")
        #expect(ended.map(\.profile.firstName) == ["Jane"])
        let loggedOut = Sender(nick: "jane", user: "~jane", host: "home.example")
        #expect(await who(loggedOut) == Self.notLoggedIn)
        // Logging in to services again does not bring it back: it ended.
        #expect(await who(jane) == Self.notLoggedIn)
        #expect(await bot.router.sessions.count == 0)
    }

    @Test func aServicesLogoutOfSomeoneElseEndsNothing() async {
        let jane = Sender(nick: "jane", user: "~jane", host: "home.example", account: "janeacct")
        let tom = Sender(nick: "tom", user: "~tom", host: "t.example")
        await logIn(jane, as: "Jane")
        await logIn(tom, as: "Tom")
        #expect(await bot.router.sessions.accountChanged(nick: "mallory", to: nil).isEmpty)
        // A connection-bound session is not ended by an account change.
        #expect(await bot.router.sessions.accountChanged(nick: "tom", to: "*").isEmpty)
        #expect(await who(jane) == "session of Jane")
        #expect(await who(tom) == "session of Tom")
        // An account *login* under the same account keeps it.
        #expect(await bot.router.sessions.accountChanged(nick: "jane", to: "JaneAcct").isEmpty)
        #expect(await who(jane) == "session of Jane")
    }

    @Test func anAccountSwitchEndsTheOldAccountsSession() async {
        let jane = Sender(nick: "jane", user: "~jane", host: "home.example", account: "janeacct")
        await logIn(jane, as: "Jane")
        await bot.router.sessions.accountChanged(nick: "jane", to: "otheracct")
        #expect(
            await who(Sender(nick: "jane", user: "~jane", host: "home.example", account: "otheracct"))
                == Self.notLoggedIn)
        #expect(await who(jane) == Self.notLoggedIn)
    }

    @Test func anAccountBoundSessionNeverReachesTheNextHolderOfTheNick() async {
        // Jane is logged in through services and quits; her session waits for her account.
        let jane = Sender(nick: "jane", user: "~jane", host: "home.example", account: "janeacct")
        await logIn(jane, as: "Jane")
        await bot.router.sessions.userQuit(nick: "jane")
        // Mallory takes the nick, with or without an account of her own.
        #expect(await who(Sender(nick: "jane", user: "~jane", host: "home.example")) == Self.notLoggedIn)
        #expect(
            await who(Sender(nick: "jane", user: "~m", host: "m.example", account: "mallory"))
                == Self.notLoggedIn)
        #expect(
            await who(Sender(nick: "jane", user: "~m", host: "m.example", account: "*")) == Self.notLoggedIn)
        // Jane, back under another nick with her account, has it.
        #expect(
            await who(Sender(nick: "jane2", user: "~j", host: "phone.example", account: "JaneAcct"))
                == "session of Jane")
    }
}
