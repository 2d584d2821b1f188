import BotKit
import BotTesting
import Foundation
import IRCProtocol
import NIOConcurrencyHelpers
import Testing

/// A plugin with one command of each kind, recording what ran.
struct ProbePlugin: Plugin {
    let name = "probe"
    let log = CallLog()
    /// The sessions its `!mine` reads (the gate its bot is made with).
    let gate = LoginGate<TestLogin>()

    var commands: [Command] {
        let (log, gate) = (self.log, self.gate)
        return [
            Command("echo", aliases: ["say"], usage: "!echo <text>", help: "Repeats text.") { call in
                log.append("echo:\(call.argument)")
                await call.reply(call.argument.isEmpty ? "(nothing)" : call.argument)
            },
            Command("compute", usage: "!compute", help: "Keeps its thread busy until someone is echoed.") { call in
                // Busy, not waiting: the thread is not given back until another user's echo has run
                // (or 10 s have passed).
                log.append("compute started")
                let deadline = ContinuousClock.now + .seconds(10)
                while ContinuousClock.now < deadline {
                    if log.all.contains(where: { $0.hasPrefix("echo:") }) { return await call.reply("saw an echo") }
                }
                await call.reply("saw no echo")
            },
            Command(
                "secret", usage: "!secret <email> <password>", help: "Takes a password.",
                allowed: .privateMessage, hasSecretArguments: true
            ) { call in
                log.append("secret")
                await call.reply("ok")
            },
            Command("onlyhere", usage: "!onlyhere", help: "Channel only.", allowed: .channel) { call in
                await call.reply("here")
            },
            Command("mine", usage: "!mine", help: "Needs login.", requiresLogin: true) { call in
                await call.reply("yours, \(gate.session(of: call)?.login.name ?? "?")")
            },
            Command("slowish", usage: "!slowish", help: "Rate limited.", rateLimit: .perUser(every: .seconds(10))) {
                call in
                await call.reply("done")
            },
            Command("boom", usage: "!boom", help: "Fails.") { _ in
                struct Kaboom: Error {}
                throw Kaboom()
            },
            Command("refuse", usage: "!refuse", help: "Refuses politely.") { _ in
                throw UserFacingError("No place called that was found.")
            },
            Command("many", usage: "!many", help: "Five lines.") { call in
                await call.reply(lines: (1...5).map { "line \($0)" })
            },
            Command("hang", usage: "!hang", help: "Never ends in time.") { _ in
                try await Task.sleep(for: .seconds(300))
            },
            Command("whisper", usage: "!whisper", help: "Answers privately.") { call in
                await call.replyPrivately("psst")
                await call.notice("noted")
            },
        ]
    }
}

/// What the probe's handlers did, in order; a test can wait for an entry.
final class CallLog: Sendable {
    private let lines = WaitableLines()
    func append(_ line: String) { lines.append(line) }
    var all: [String] { lines.lines }

    /// Waits (woken by each entry) until `entry` is logged; false after `timeout`.
    @discardableResult
    func waitFor(_ entry: String, timeout: Duration = .seconds(60)) async -> Bool {
        await lines.wait(timeout: timeout) { $0.contains(entry) }
    }
}

@Suite struct RouterTests {
    let probe = ProbePlugin()

    func makeBot(_ settings: CommandRouter.Settings = .init()) -> TestBot<TestLogin> {
        TestBot(
            plugins: [CorePlugin(aboutLines: ["Place data © GeoNames"]), probe], settings: settings, gate: probe.gate)
    }

    @Test func prefixedCommandInChannelIsAddressedToTheSender() async {
        let bot = makeBot()
        let replies = await bot.say("!echo hello world", in: "#class", as: "alice")
        #expect(
            replies == [
                OutgoingText(
                    .privmsg, to: "#class", text: "alice: hello world", fairnessKey: "alice",
                    fairnessGroup: "h:alice.example")
            ])
    }

    @Test func aliasAndNickAddressingWork() async {
        let bot = makeBot()
        #expect(await bot.say("!SAY hi", in: "#class", as: "bob").map(\.text) == ["bob: hi"])
        #expect(await bot.say("MapBot: echo there", in: "#class", as: "bob").map(\.text) == ["bob: there"])
        #expect(await bot.say("mapbot, !echo again", in: "#class", as: "bob").map(\.text) == ["bob: again"])
        #expect(await bot.say("OtherBot: echo no", in: "#class", as: "bob").isEmpty)
    }

    @Test func chatterIsIgnoredButEveryWayOfAddressingStillWorks() async {
        let bot = makeBot()
        for chatter in ["hello all", "re: the map", "well, maybe", "see you at 10:30", "  spaced: out"] {
            #expect(await bot.say(chatter, in: "#class", as: "bob").isEmpty)
        }
        #expect(await bot.say("  !echo padded", in: "#class", as: "bob").map(\.text) == ["bob: padded"])
        #expect(await bot.say("MapBot,echo tight", in: "#class", as: "bob").map(\.text) == ["bob: tight"])
        #expect(await bot.say("MapBot: nosuch", in: "#class", as: "bob").first?.text.contains("nosuch") == true)
        #expect(probe.log.all == ["echo:padded", "echo:tight"])
    }

    @Test func withoutUserLimitsNeitherTheFloodRuleNorRateLimitsHoldAnyoneBack() async {
        var settings = CommandRouter.Settings()
        settings.userLimits = nil
        let bot = makeBot(settings)
        for _ in 0..<20 {
            #expect(await bot.dm("!slowish", as: "kim").map(\.text) == ["done"])
        }
    }

    @Test func privateMessagesAcceptBareCommandsAndReplyPrivately() async {
        let bot = makeBot()
        let replies = await bot.dm("echo psst", as: "carol")
        #expect(replies == [OutgoingText(.privmsg, to: "carol", text: "psst", fairnessGroup: "h:carol.example")])
        let chatter = await bot.dm("hello there", as: "carol")
        #expect(chatter.count == 1)
        #expect(chatter.first?.text.contains("!help") == true)
    }

    @Test func plainChatterAndUnknownPrefixedCommandsInChannelAreIgnored() async {
        let bot = makeBot()
        #expect(await bot.say("hello everyone", in: "#class", as: "dave").isEmpty)
        #expect(await bot.say("!nosuchthing", in: "#class", as: "dave").isEmpty)
        #expect(await bot.say("!", in: "#class", as: "dave").isEmpty)
    }

    @Test func unknownCommandInPrivateOrAddressedGetsAnAnswer() async {
        let bot = makeBot()
        let replies = await bot.dm("!frobnicate", as: "erin")
        #expect(replies.map(\.text) == ["I don't know the command \"frobnicate\". Try !help."])
        let addressed = await bot.say("MapBot: frobnicate", in: "#class", as: "erin")
        #expect(addressed.first?.text == "erin: I don't know the command \"frobnicate\". Try !help.")
    }

    @Test func unknownCommandWordIsSanitized() async {
        let bot = makeBot()
        let replies = await bot.dm("!\u{03}4red\u{02}x", as: "erin")
        #expect(replies.count == 1)
        #expect(replies[0].text.unicodeScalars.allSatisfy { $0.value >= 0x20 })
    }

    @Test func secretCommandInChannelIsRefusedWithoutEchoingTheLine() async {
        let bot = makeBot()
        let replies = await bot.say("!secret me@x.org hunter22", in: "#class", as: "frank")
        #expect(replies.count == 1)
        #expect(replies[0].target == "#class")
        #expect(replies[0].text.contains("change that password"))
        #expect(!replies[0].text.contains("hunter22"))
        #expect(!replies[0].text.contains("me@x.org"))
        #expect(probe.log.all.isEmpty)
        // In private it runs.
        #expect(await bot.dm("!secret me@x.org hunter22", as: "frank").map(\.text) == ["ok"])
    }

    @Test func venueIsEnforcedByTheRouter() async {
        let bot = makeBot()
        #expect(await bot.dm("!onlyhere", as: "gina").map(\.text) == ["!onlyhere works only in a channel."])
        #expect(await bot.say("!onlyhere", in: "#class", as: "gina").map(\.text) == ["gina: here"])
    }

    @Test func loginIsRequiredWhenDeclared() async throws {
        let bot = makeBot()
        let refused = await bot.say("!mine", in: "#class", as: "hank")
        #expect(refused.first?.text.contains("log in first") == true)
        await bot.sessions.bind(TestLogin("Hank"), to: bot.user("hank"))
        #expect(await bot.say("!mine", in: "#class", as: "hank").map(\.text) == ["hank: yours, Hank"])
    }

    @Test func rateLimitUsesTheClock() async {
        let bot = makeBot()
        #expect(await bot.dm("!slowish", as: "ivy").map(\.text) == ["done"])
        let wait = await bot.dm("!slowish", as: "ivy")
        #expect(wait.first?.text.hasPrefix("Please wait 10 seconds") == true)
        bot.clock.advance(by: .seconds(4))
        #expect(await bot.dm("!slowish", as: "ivy").first?.text.hasPrefix("Please wait 6 seconds") == true)
        bot.clock.advance(by: .seconds(6))
        #expect(await bot.dm("!slowish", as: "ivy").map(\.text) == ["done"])
        // Another user is not limited by ivy's use.
        #expect(await bot.dm("!slowish", as: "jack").map(\.text) == ["done"])
    }

    @Test func aUserSendingTooManyCommandsIsIgnoredForAWhile() async {
        let bot = makeBot()
        for i in 1...12 {
            #expect(await bot.dm("!echo \(i)", as: "kim").map(\.text) == ["\(i)"])
        }
        let warned = await bot.dm("!echo 13", as: "kim")
        #expect(warned.count == 1)
        #expect(warned.first?.kind == .notice)
        #expect(warned.first?.text.contains("5 minutes") == true)
        #expect(await bot.dm("!echo 14", as: "kim").isEmpty)
        // Changing nick on the same user@host does not escape it.
        let renamed = UserIdentity(nick: "kim2", user: "~kim", host: "kim.example")
        #expect(await bot.say("!echo 15", from: renamed, origin: .privateMessage).isEmpty)
        // Another student behind the same NAT (same host, other user name) is not ignored.
        let classmate = UserIdentity(nick: "lou", user: "~lou", host: "kim.example")
        #expect(await bot.say("!echo hey", from: classmate, origin: .privateMessage).map(\.text) == ["hey"])
        // Others are served.
        #expect(await bot.dm("!echo hi", as: "lee").map(\.text) == ["hi"])
        bot.clock.advance(by: .seconds(301))
        #expect(await bot.dm("!echo back", as: "kim").map(\.text) == ["back"])
    }

    @Test func aCrowdOfConnectionsFromOneAddressSharesOneBudget() async {
        // Every connection has its own nick and user name, which the per-user rule keys on; the
        // address they share holds 40 commands, then one a second, and only 3 refusals a minute are
        // told (the rest are silent, so refusing a crowd does not fill the send queue).
        let bot = makeBot()
        func crowd(_ index: Int) -> UserIdentity {
            UserIdentity(nick: "crowd\(index)", user: "~c\(index)", host: "2001:db8:5:7:\(index % 9)::1")
        }
        for index in 0..<40 {
            let answer = await bot.say("!echo \(index)", from: crowd(index), origin: .privateMessage)
            #expect(answer.map(\.text) == ["\(index)"])
            #expect(answer.first?.fairnessGroup == "h:2001:db8:5:7::/64")
        }
        for index in 40..<43 {
            let refused = await bot.say("!echo \(index)", from: crowd(index), origin: .privateMessage)
            #expect(refused.first?.kind == .notice)
            #expect(refused.first?.text.hasPrefix("Too many commands are coming from your address") == true)
        }
        #expect(await bot.say("!echo 43", from: crowd(43), origin: .privateMessage).isEmpty)
        #expect(probe.log.all == (0..<40).map { "echo:\($0)" })
        // A student elsewhere is served as ever.
        #expect(await bot.dm("!echo hi", as: "ada").map(\.text) == ["hi"])
        bot.clock.advance(by: .seconds(2))
        #expect(await bot.say("!echo 44", from: crowd(44), origin: .privateMessage).map(\.text) == ["44"])
    }

    @Test func handlerErrorsBecomeOneHumanLine() async {
        let bot = makeBot()
        let boom = await bot.say("!boom", in: "#class", as: "max")
        #expect(
            boom.map(\.text) == ["max: Sorry, !boom failed on my side; the operator can see the details in the log."])
        let refused = await bot.dm("!refuse", as: "max")
        #expect(refused.map(\.text) == ["No place called that was found."])
    }

    @Test func aHandlerThatHangsIsStoppedAtTheTimeout() async {
        let bot = makeBot(.init(commandTimeout: .milliseconds(100)))
        let replies = await bot.dm("!hang", as: "ned")
        #expect(replies.first?.text.contains("took too long") == true)
    }

    @Test func twoHandlersThatHangAreEachStoppedAtTheirOwnTimeout() async {
        // Long enough for the echo to finish in time even under a sanitizer on a loaded machine.
        let bot = makeBot(.init(commandTimeout: .seconds(2)))
        let started = ContinuousClock.now
        await bot.router.handle(IRCUserMessage(sender: bot.user("ned"), origin: .privateMessage, text: "!hang"))
        try? await Task.sleep(for: .milliseconds(300))
        await bot.router.handle(IRCUserMessage(sender: bot.user("oli"), origin: .privateMessage, text: "!hang"))
        await bot.router.handle(
            IRCUserMessage(sender: bot.user("pia"), origin: .privateMessage, text: "!echo still here"))
        await bot.router.waitUntilIdle()
        let sent = bot.transport.takeSent()
        // Far below the handlers' own 300 s: they were stopped, not left to end (a sanitizer amid
        // hundreds of parallel tests on two cores can take tens of seconds for the rest).
        #expect(ContinuousClock.now - started < .seconds(120))
        #expect(sent.contains { $0.text == "still here" && $0.target == "pia" })
        let stopped = sent.filter { $0.text.contains("took too long") }.map(\.target)
        #expect(stopped.sorted() == ["ned", "oli"])
    }

    /// Handlers run off the router: while one computes, the router takes and answers another user's
    /// command.
    @Test(.tags(.runsAlone)) func aHandlerThatComputesDoesNotHoldUpOtherUsers() async {
        let bot = makeBot()
        await bot.router.handle(IRCUserMessage(sender: bot.user("rae"), origin: .privateMessage, text: "!compute"))
        #expect(await probe.log.waitFor("compute started"))
        let replies = await bot.dm("!echo meanwhile", as: "sam")
        #expect(replies.contains { $0.target == "sam" && $0.text == "meanwhile" })
        #expect(replies.contains { $0.target == "rae" && $0.text == "saw an echo" })
    }

    @Test func channelRepliesAreCappedAtThreeLines() async {
        let bot = makeBot()
        let replies = await bot.say("!many", in: "#class", as: "ola")
        #expect(replies.count == 4)
        #expect(replies.prefix(3).map(\.text) == ["ola: line 1", "ola: line 2", "ola: line 3"])
        #expect(replies[3].text.contains("2 more lines"))
        #expect(replies[3].text.contains("/msg MapBot !many"))
        #expect(await bot.dm("!many", as: "ola").count == 5)
    }

    @Test func pluginsCanBeDisabledPerChannel() async {
        let bot = makeBot(.init(disabledPlugins: ["#quiet": ["probe"]]))
        let replies = await bot.say("!echo hi", in: "#Quiet", as: "pat")
        #expect(replies.first?.text.contains("turned off in #Quiet") == true)
        #expect(await bot.say("!echo hi", in: "#class", as: "pat").map(\.text) == ["pat: hi"])
    }

    /// `plugins.disabled_in` names a channel as configured; the router finds it under the server's
    /// casemapping (rfc1459 until the server says otherwise: `#Foo[1]` is `#foo{1}`; not under ascii).
    @Test func aDisabledChannelIsFoundUnderTheServersCasemapping() async {
        let bot = makeBot(.init(disabledPlugins: ["#Foo[1]": ["probe"]]))
        let replies = await bot.say("!echo hi", in: "#foo{1}", as: "pat")
        #expect(replies.first?.text.contains("turned off in #foo{1}") == true, "\(replies)")
        await bot.router.setCaseMapping(.ascii)
        #expect(await bot.say("!echo hi", in: "#foo{1}", as: "pat").map(\.text) == ["pat: hi"])
        #expect(await bot.say("!echo hi", in: "#FOO[1]", as: "pat").first?.text.contains("turned off") == true)
    }

    @Test func helpIsGeneratedFromTheDeclarations() async {
        let bot = makeBot()
        let list = await bot.dm("!help", as: "quinn")
        #expect(list.first?.text.contains("!echo") == true)
        #expect(list.first?.text.contains("!secret*") == true)
        let one = await bot.dm("!help secret", as: "quinn")
        #expect(one.map(\.text) == ["!secret <email> <password> — Takes a password. (in a private message only)"])
        let alias = await bot.dm("!help !say", as: "quinn")
        #expect(alias.first?.text.hasPrefix("!echo <text>") == true)
        #expect(alias.first?.text.contains("also !say") == true)
        #expect(await bot.dm("!help nope", as: "quinn").first?.text.contains("There is no command") == true)
        #expect(await bot.dm("!help about", as: "quinn").map(\.text) == ["Place data © GeoNames"])
    }

    @Test func customPrefixIsUsedEverywhere() async {
        let bot = makeBot(.init(prefix: "."))
        #expect(await bot.say(".echo x", in: "#class", as: "rae").map(\.text) == ["rae: x"])
        #expect(await bot.say("!echo x", in: "#class", as: "rae").isEmpty)
        #expect(await bot.dm(".help secret", as: "rae").first?.text.hasPrefix(".secret") == true)
    }

    @Test func pingAndCTCP() async {
        let bot = makeBot(.init(version: "OnTheMapBot test"))
        #expect(await bot.say("!ping", in: "#class", as: "sam").map(\.text) == ["sam: pong"])
        let version = await bot.dm("\u{01}VERSION\u{01}", as: "sam")
        #expect(
            version == [
                OutgoingText(
                    .notice, to: "sam", text: "\u{01}VERSION OnTheMapBot test\u{01}", fairnessGroup: "h:sam.example")
            ])
        let ping = await bot.dm("\u{01}PING 12345\u{01}", as: "sam")
        #expect(ping.map(\.text) == ["\u{01}PING 12345\u{01}"])
        let time = await bot.dm("\u{01}TIME\u{01}", as: "sam")
        #expect(time.first?.text.hasPrefix("\u{01}TIME 20") == true)
        #expect(await bot.dm("\u{01}ACTION waves\u{01}", as: "sam").isEmpty)
        // An unclosed query is still one; a lone or empty delimiter, or a line starting with one, is
        // never taken for a command. (Each from its own host and later: the CTCP budget holds a host, and
        // everyone, back for a while.)
        bot.clock.advance(by: .seconds(60))
        let clientInfo = await bot.say("\u{01}CLIENTINFO", from: bot.user("uma"), origin: .privateMessage)
        #expect(clientInfo.map(\.text) == ["\u{01}CLIENTINFO CLIENTINFO PING TIME VERSION\u{01}"])
        let bare = await bot.say("\u{01}ping", from: bot.user("val"), origin: .privateMessage)
        #expect(bare.map(\.text) == ["\u{01}PING\u{01}"])
        for (index, text) in ["\u{01}", "\u{01}\u{01}", "\u{01}!echo hi\u{01}", "\u{01} VERSION\u{01}"].enumerated() {
            let asker = bot.user("wes\(index)")
            #expect(await bot.say(text, from: asker, origin: .privateMessage).isEmpty, "\(text.debugDescription)")
        }
        #expect(probe.log.all.isEmpty)
    }

    @Test func commandsOfOneUserRunInOrder() async {
        let bot = makeBot()
        for i in 0..<20 {
            await bot.router.handle(
                IRCUserMessage(sender: bot.user("tia"), origin: .privateMessage, text: "!echo \(i)"))
            if i == 10 { bot.clock.advance(by: .seconds(120)) }
        }
        await bot.router.waitUntilIdle()
        let texts = bot.transport.sent.map(\.text).filter { Int($0) != nil }
        #expect(texts == texts.sorted { Int($0)! < Int($1)! })
        #expect(texts.count >= 12)
    }
}
