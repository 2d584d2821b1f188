import BotKit
import BotTesting
import IRCProtocol
import Testing

/// A plugin with one owner command.
private struct SteeringPlugin: Plugin {
    let name = "steer"
    var commands: [Command] {
        [
            Command("steer", usage: "!steer", help: "Owner only.", requiresOwner: true, isHidden: true) { call in
                await call.reply("steered")
            },
            Command("hello", usage: "!hello", help: "Anyone.") { call in await call.reply("hi") },
        ]
    }
}

@Suite struct OwnerAccessTests {
    static func bot(owners: [String]) -> TestBot<TestLogin> {
        var settings = CommandRouter.Settings.unlimited
        settings.owners = OwnerList(owners.compactMap(OwnerList.Entry.init(parsing:)))
        return TestBot(plugins: [SteeringPlugin(), CorePlugin()], settings: settings)
    }

    /// Config entries: a mask has `!` and `@`; an account is bare or marked; globs in an account,
    /// spaces and control characters are refused.
    @Test func ownerEntriesAreReadAsAccountsOrMasks() {
        #expect(OwnerList.Entry(parsing: "teacher") == .account("teacher"))
        #expect(OwnerList.Entry(parsing: "account:Teacher") == .account("Teacher"))
        #expect(OwnerList.Entry(parsing: "$a:teacher") == .account("teacher"))
        #expect(OwnerList.Entry(parsing: "ada!*@staff.example.edu") == .mask("ada!*@staff.example.edu"))
        for bad in ["", "  ", "te*cher", "account:", "account:a*", "ada@host", "a b!c@d", "x!y@z\r\nQUIT"] {
            #expect(OwnerList.Entry(parsing: bad) == nil, "\(bad)")
        }
        #expect(OwnerList.Entry(parsing: "ada!*@*")?.hasOpenHost == true)
        #expect(OwnerList.Entry(parsing: "ada!*@*.*")?.hasOpenHost == true)
        #expect(OwnerList.Entry(parsing: "ada!*@*.example.edu")?.hasOpenHost == false)
    }

    /// An account owner is recognised only while logged in to that account (any case); a mask owner
    /// only with a known user and host that match.
    @Test func ownersAreRecognisedByAccountOrByFullMask() {
        let owners = OwnerList([.account("Teacher"), .mask("ada!*@staff.example.edu")])
        let mapping = CaseMapping.rfc1459
        #expect(
            owners.contains(UserIdentity(nick: "x", user: "u", host: "h", account: "teacher"), caseMapping: mapping))
        #expect(!owners.contains(UserIdentity(nick: "teacher", user: "u", host: "h"), caseMapping: mapping))
        #expect(!owners.contains(UserIdentity(nick: "x", user: "u", host: "h", account: "*"), caseMapping: mapping))
        #expect(
            owners.contains(UserIdentity(nick: "ADA", user: "~ada", host: "staff.example.edu"), caseMapping: mapping))
        #expect(!owners.contains(UserIdentity(nick: "ada", user: "~ada", host: "evil.example"), caseMapping: mapping))
        #expect(!owners.contains(UserIdentity(nick: "ada"), caseMapping: mapping))
    }

    /// Someone else gets a plain refusal and the command does not run; the owner runs it.
    @Test func onlyOwnersRunOwnerCommands() async {
        let bot = Self.bot(owners: ["account:teacher"])
        let stranger = await bot.say("!steer", from: bot.user("mallory"), origin: .privateMessage)
        #expect(stranger.map(\.text) == ["!steer is for the bot's owners only."])
        let impostor = await bot.say("!steer", from: bot.user("teacher"), origin: .privateMessage)
        #expect(impostor.map(\.text) == ["!steer is for the bot's owners only."])
        let owner = await bot.say("!steer", from: bot.user("ada", account: "Teacher"), origin: .privateMessage)
        #expect(owner.map(\.text) == ["steered"])
    }

    /// The flood rule (12 lines a minute, then 5 minutes ignored) never holds back an owner: a busy
    /// owner can still steer and stop the bot; anyone else is held back as before.
    @Test func theFloodRuleDoesNotApplyToOwners() async {
        var settings = CommandRouter.Settings(floodGuard: CommandFloodGuard(maxCommands: 3))
        settings.owners = OwnerList([.account("teacher")])
        let bot = TestBot<TestLogin>(plugins: [SteeringPlugin(), CorePlugin()], settings: settings)
        let owner = bot.user("ada", account: "teacher")
        for _ in 0..<20 {
            #expect(await bot.say("!steer", from: owner, origin: .privateMessage).map(\.text) == ["steered"])
        }
        let other = bot.user("mallory")
        for _ in 0..<3 { _ = await bot.say("!hello", from: other, origin: .privateMessage) }
        #expect(
            await bot.say("!hello", from: other, origin: .privateMessage).map(\.text) == [
                "You are sending commands too fast; I will ignore you for 5 minutes."
            ])
    }

    /// A mask whose user name is written out never matches a user the server marks with `~`.
    @Test func aLiteralUserNameIsNamedForTheHint() {
        #expect(OwnerList.Entry(parsing: "boss!boss@host.example")?.literalUserName == "boss")
        for loose in ["boss!*boss@host.example", "boss!~boss@host.example", "boss!*@host.example", "account:boss"] {
            #expect(OwnerList.Entry(parsing: loose)?.literalUserName == nil, "\(loose)")
        }
        #expect(
            !OwnerList([.mask("boss!boss@host.example")]).contains(
                UserIdentity(nick: "boss", user: "~boss", host: "host.example"), caseMapping: .rfc1459))
    }

    /// With no owners configured nobody may run an owner command.
    @Test func withoutOwnersNobodyRunsOwnerCommands() async {
        let bot = Self.bot(owners: [])
        let answer = await bot.say("!steer", from: bot.user("ada", account: "ada"), origin: .privateMessage)
        #expect(answer.map(\.text) == ["!steer is for the bot's owners only."])
    }

    /// Owner commands stay out of `!help`'s list; `!help steer` says who may use it.
    @Test func helpListsNoOwnerCommandButExplainsOne() async {
        let bot = Self.bot(owners: [])
        let list = await bot.ask("!help")
        #expect(list.lines.first?.contains("!steer") == false)
        #expect(list.lines.first?.contains("!hello") == true)
        await bot.assertResponse("!help steer", "!steer — Owner only. (the bot's owners only)")
    }

    /// Masks are completed as owners type them; anything with spaces, control characters or two
    /// `@` is refused.
    @Test func ignoreMasksAreCompleted() {
        #expect(IgnoreList.normalizedMask("spammer") == "spammer!*@*")
        #expect(IgnoreList.normalizedMask("*@bad.example") == "*!*@bad.example")
        #expect(IgnoreList.normalizedMask("x!y") == "x!y@*")
        #expect(IgnoreList.normalizedMask("x!y@z") == "x!y@z")
        for bad in ["", "a b", "a@b@c", "a!b!c", "x@y!z", "a\u{0}b", String(repeating: "a", count: 201)] {
            #expect(IgnoreList.normalizedMask(bad) == nil, "\(bad)")
        }
    }

    /// An ignored user gets no answer (commands and CTCP) until the ignore lapses or is lifted;
    /// others, and owners who match the mask, are answered.
    @Test func ignoredUsersAreNotAnsweredUntilTheIgnoreEnds() async {
        let bot = Self.bot(owners: ["account:teacher"])
        #expect(await bot.router.ignore("*!*@mallory.example", for: .seconds(60), addedBy: "ada"))
        #expect(await bot.say("!hello", from: bot.user("mallory"), origin: .privateMessage).isEmpty)
        #expect(await bot.say("\u{1}VERSION\u{1}", from: bot.user("mallory"), origin: .privateMessage).isEmpty)
        #expect(await bot.say("!hello", from: bot.user("bob"), origin: .privateMessage).map(\.text) == ["hi"])
        let ownerThere = UserIdentity(nick: "teach", user: "t", host: "mallory.example", account: "teacher")
        #expect(await bot.say("!hello", from: ownerThere, origin: .privateMessage).map(\.text) == ["hi"])

        bot.clock.advance(by: .seconds(61))
        #expect(await bot.say("!hello", from: bot.user("mallory"), origin: .privateMessage).map(\.text) == ["hi"])
        #expect(await bot.router.ignoredMasks().isEmpty)

        #expect(await bot.router.ignore("mallory!*@*", for: nil, addedBy: "ada"))
        #expect(await bot.say("!hello", from: bot.user("Mallory"), origin: .privateMessage).isEmpty)
        #expect(await bot.router.ignoredMasks() == [.init(mask: "mallory!*@*", remaining: nil, addedBy: "ada")])
        #expect(await bot.router.unignore("MALLORY!*@*"))
        #expect(!(await bot.router.unignore("mallory!*@*")))
        #expect(await bot.say("!hello", from: bot.user("mallory"), origin: .privateMessage).map(\.text) == ["hi"])
    }

    /// New settings take effect on the next line: a new prefix, new owners; the old prefix is chatter.
    @Test func appliedSettingsTakeEffectOnTheNextLine() async {
        let bot = Self.bot(owners: [])
        var settings = await bot.router.currentSettings
        settings.prefix = "?"
        settings.owners = OwnerList([.account("ada")])
        await bot.router.apply(settings)
        #expect(await bot.say("!hello", in: "#c", as: "bob").isEmpty)
        #expect(await bot.say("?hello", in: "#c", as: "bob").map(\.text) == ["bob: hi"])
        let owner = await bot.say("?steer", from: bot.user("x", account: "ada"), origin: .privateMessage)
        #expect(owner.map(\.text) == ["steered"])
    }
}
