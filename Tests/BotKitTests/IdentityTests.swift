import BotKit
import BotTesting
import IRCProtocol
import Testing

/// A session never moves to a different person: nick changes, nicks taken over after a QUIT,
/// the same nick from another user@host, and services logouts (`ACCOUNT *`), through the real
/// router with a plugin that logs in and tells who you are.
@Suite struct IdentityTests {
    /// `!in <name>` binds a session for <name>; `!who` says whose session the sender has.
    struct SessionProbe: Plugin {
        let name = "probe"
        let gate: LoginGate<TestLogin>
        var commands: [Command] {
            let gate = self.gate
            return [
                Command("in", usage: "!in <name>", help: "Logs in.", allowed: .privateMessage) { call in
                    await gate.book.bind(TestLogin(call.argument), to: call.sender)
                    await call.reply("in as \(call.argument)")
                },
                Command("who", usage: "!who", help: "Whose session.", requiresLogin: true) { call in
                    await call.reply("session of \(gate.session(of: call)?.login.name ?? "?")")
                },
            ]
        }
    }

    static let notLoggedIn = "You need to log in first: /msg MapBot !login <email> <password>"
    let bot: TestBot<TestLogin> = {
        let gate = LoginGate<TestLogin>()
        return TestBot(plugins: [SessionProbe(gate: gate)], gate: gate)
    }()

    func who(_ sender: UserIdentity) async -> String? {
        bot.clock.advance(by: .seconds(10))
        return await bot.say("!who", from: sender, origin: .privateMessage).first?.text
    }

    func logIn(_ sender: UserIdentity, as name: String) async {
        bot.clock.advance(by: .seconds(10))
        #expect(
            await bot.say("!in \(name)", from: sender, origin: .privateMessage).first?.text == "in as \(name)"
        )
    }

    @Test func aNickChangeKeepsTheSession() async {
        let jane = UserIdentity(nick: "jane", user: "~jane", host: "home.example")
        await logIn(jane, as: "Jane")
        await bot.sessions.nickChanged(from: "jane", to: "jane_lunch")
        #expect(
            await who(UserIdentity(nick: "jane_lunch", user: "~jane", host: "home.example")) == "session of Jane")
        // Twice, and back.
        await bot.sessions.nickChanged(from: "jane_lunch", to: "JaneBack")
        #expect(await who(UserIdentity(nick: "janeback", user: "~jane", host: "home.example")) == "session of Jane")
        // The old nick, same user@host but no NICK seen for it: nothing.
        #expect(
            await who(UserIdentity(nick: "jane_lunch", user: "~jane", host: "home.example")) == Self.notLoggedIn)
    }

    @Test func aNickTakenOverAfterAQuitGetsNoSession() async {
        let jane = UserIdentity(nick: "jane", user: "~jane", host: "home.example")
        await logIn(jane, as: "Jane")
        await bot.sessions.userQuit(nick: "JANE")
        // Someone else takes the nick, from elsewhere or even from the same user@host (a shared
        // gateway): the session ended with the QUIT.
        #expect(await who(UserIdentity(nick: "jane", user: "~mallory", host: "evil.example")) == Self.notLoggedIn)
        #expect(await who(UserIdentity(nick: "jane", user: "~jane", host: "home.example")) == Self.notLoggedIn)
        #expect(await bot.sessions.count == 0)
    }

    @Test func theSameNickFromAnotherUserOrHostGetsNothing() async {
        let jane = UserIdentity(nick: "jane", user: "~jane", host: "home.example")
        await logIn(jane, as: "Jane")
        #expect(await who(UserIdentity(nick: "jane", user: "~jane", host: "other.example")) == Self.notLoggedIn)
        #expect(await who(UserIdentity(nick: "jane", user: "~janet", host: "home.example")) == Self.notLoggedIn)
        #expect(await who(UserIdentity(nick: "jane", user: nil, host: nil)) == Self.notLoggedIn)
        // A services account with the nick's name is another identity too.
        #expect(await who(UserIdentity(nick: "jane", user: "~x", host: "y", account: "jane")) == Self.notLoggedIn)
        #expect(await who(jane) == "session of Jane")
    }

    @Test func aServicesLogoutEndsAnAccountBoundSession() async {
        let jane = UserIdentity(nick: "jane", user: "~jane", host: "home.example", account: "janeacct")
        await logIn(jane, as: "Jane")
        #expect(await who(jane) == "session of Jane")
        // ACCOUNT * from her nick: the server now reports no account for her.
        let ended = await bot.sessions.accountChanged(nick: "jane", to: "*")
        #expect(ended.map(\.login.name) == ["Jane"])
        let loggedOut = UserIdentity(nick: "jane", user: "~jane", host: "home.example")
        #expect(await who(loggedOut) == Self.notLoggedIn)
        // Logging in to services again does not bring it back: it ended.
        #expect(await who(jane) == Self.notLoggedIn)
        #expect(await bot.sessions.count == 0)
    }

    @Test func aServicesLogoutOfSomeoneElseEndsNothing() async {
        let jane = UserIdentity(nick: "jane", user: "~jane", host: "home.example", account: "janeacct")
        let tom = UserIdentity(nick: "tom", user: "~tom", host: "t.example")
        await logIn(jane, as: "Jane")
        await logIn(tom, as: "Tom")
        #expect(await bot.sessions.accountChanged(nick: "mallory", to: nil).isEmpty)
        // A connection-bound session is not ended by an account change.
        #expect(await bot.sessions.accountChanged(nick: "tom", to: "*").isEmpty)
        #expect(await who(jane) == "session of Jane")
        #expect(await who(tom) == "session of Tom")
        // An account *login* under the same account keeps it.
        #expect(await bot.sessions.accountChanged(nick: "jane", to: "JaneAcct").isEmpty)
        #expect(await who(jane) == "session of Jane")
    }

    @Test func anAccountSwitchEndsTheOldAccountsSession() async {
        let jane = UserIdentity(nick: "jane", user: "~jane", host: "home.example", account: "janeacct")
        await logIn(jane, as: "Jane")
        await bot.sessions.accountChanged(nick: "jane", to: "otheracct")
        #expect(
            await who(UserIdentity(nick: "jane", user: "~jane", host: "home.example", account: "otheracct"))
                == Self.notLoggedIn)
        #expect(await who(jane) == Self.notLoggedIn)
    }

    @Test func anAccountBoundSessionNeverReachesTheNextHolderOfTheNick() async {
        // Jane is logged in through services and quits; her session waits for her account.
        let jane = UserIdentity(nick: "jane", user: "~jane", host: "home.example", account: "janeacct")
        await logIn(jane, as: "Jane")
        await bot.sessions.userQuit(nick: "jane")
        // Mallory takes the nick, with or without an account of her own.
        #expect(await who(UserIdentity(nick: "jane", user: "~jane", host: "home.example")) == Self.notLoggedIn)
        #expect(
            await who(UserIdentity(nick: "jane", user: "~m", host: "m.example", account: "mallory"))
                == Self.notLoggedIn)
        #expect(
            await who(UserIdentity(nick: "jane", user: "~m", host: "m.example", account: "*")) == Self.notLoggedIn)
        // Jane, back under another nick with her account, has it.
        #expect(
            await who(UserIdentity(nick: "jane2", user: "~j", host: "phone.example", account: "JaneAcct"))
                == "session of Jane")
    }
}
