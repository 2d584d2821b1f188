import BotTesting
import IRCProtocol
import Testing

@testable import BotKit

/// The router's admission decides, with no transport and nothing sent, whether a command line
/// runs, is refused with a sentence (and how that sentence reaches the sender), or is ignored; and
/// it takes its checks in order: the limits first, then the command's declarations.
@Suite struct AdmissionTests {
    struct Probe: Plugin {
        let name = "probe"
        var commands: [Command] {
            [
                Command("echo", usage: "!echo <text>", help: "Repeats.") { _ in },
                Command("quit", usage: "!quit", help: "Owners only.", requiresOwner: true) { _ in },
                Command(
                    "login", usage: "!login <email> <password>", help: "Takes a password.", allowed: .privateMessage,
                    hasSecretArguments: true
                ) { _ in },
                Command("here", usage: "!here", help: "Channel only.", allowed: .channel) { _ in },
                Command("slow", usage: "!slow", help: "Rate limited.", rateLimit: .perUser(every: .seconds(10))) { _ in
                },
            ]
        }
    }

    static let catalog = CommandCatalog(plugins: [Probe()])
    static let alice = UserIdentity(nick: "alice", user: "~alice", host: "alice.example")

    /// What becomes of `text` said by `sender` (privately, or in `channel`) at `seconds` on the clock.
    static func admit(
        _ text: String, in channel: String? = nil, from sender: UserIdentity = alice, owner: Bool = false,
        at seconds: Int64 = 0, settings: inout CommandRouter.Settings
    ) -> Admission {
        let line = IRCUserMessage(sender: sender, origin: channel.map(Origin.channel) ?? .privateMessage, text: text)
        let parser = CommandLineParser(prefix: settings.prefix)
        guard
            let parsed = parser.parse(text, isPrivate: channel == nil, botNick: "MapBot", nicksEqual: { $0 == $1 })
        else { return .ignore }
        let facts = CommandRouter.AdmissionFacts(
            botNick: "MapBot", caseMapping: .rfc1459, senderIsOwner: owner, now: .seconds(seconds), phrases: .english)
        return CommandRouter.admit(
            parsed, entry: catalog.lookup(parsed.word), line: line, facts: facts, settings: &settings)
    }

    /// The name of the command that runs, nil when none does.
    static func runs(_ admission: Admission) -> String? {
        if case .run(let entry) = admission { return entry.command.name }
        return nil
    }

    static func refusal(_ admission: Admission) -> Refusal? {
        if case .refuse(let refusal) = admission { return refusal }
        return nil
    }

    static func isIgnored(_ admission: Admission) -> Bool {
        if case .ignore = admission { return true }
        return false
    }

    @Test func theCommandsDeclarationsRefuseWithOneSentenceEach() {
        var settings = CommandRouter.Settings.unlimited
        settings.disabledPlugins = ["#Quiet": ["probe"]]
        #expect(Self.runs(Self.admit("!echo hi", settings: &settings)) == "echo")
        #expect(
            Self.refusal(Self.admit("!quit", settings: &settings))
                == Refusal(.ownersOnly, "!quit is for the bot's owners only."))
        #expect(Self.runs(Self.admit("!quit", owner: true, settings: &settings)) == "quit")
        #expect(
            Self.refusal(Self.admit("!login a@b.c hunter2", in: "#class", settings: &settings))
                == Refusal(
                    .secretInChannel,
                    "alice: never type a password in a channel. Everyone here has seen it: change that password now, then log in privately with /msg MapBot !login …",
                    .channel("#class")))
        #expect(
            Self.refusal(Self.admit("!here", settings: &settings))
                == Refusal(.wrongPlace, "!here works only in a channel."))
        // The channel's name compares under the casemapping; the command runs elsewhere.
        #expect(
            Self.refusal(Self.admit("!echo hi", in: "#quiet", settings: &settings))
                == Refusal(.turnedOff, "!echo is turned off in #quiet; try it in a private message: /msg MapBot !echo"))
        #expect(Self.runs(Self.admit("!here", in: "#class", settings: &settings)) == "here")
    }

    @Test func aLineThatNamesNoCommandGetsANoticeOnlyWhenAddressed() {
        var settings = CommandRouter.Settings.unlimited
        #expect(
            Self.refusal(Self.admit("!teleport", settings: &settings))
                == Refusal(.unknownCommand, "I don't know the command \"teleport\". Try !help.", .reply(.notice)))
        #expect(
            Self.refusal(Self.admit("hello there", settings: &settings))
                == Refusal(.chatLine, "Hi! I am a class map bot. Try !help for what I can do.", .reply(.notice)))
        #expect(Self.isIgnored(Self.admit("!teleport", in: "#class", settings: &settings)))
    }

    @Test func theLimitsComeFirstAndRememberEachAttempt() {
        var settings = CommandRouter.Settings(floodGuard: CommandFloodGuard(maxCommands: 3))
        // The rate limit: the second run within 10 s waits.
        #expect(Self.runs(Self.admit("!slow", settings: &settings)) == "slow")
        #expect(
            Self.refusal(Self.admit("!slow", at: 4, settings: &settings))
                == Refusal(.tooSoon, "Please wait 6 seconds before using !slow again."))
        // The fourth line in the window, an unknown command's included, starts the flood rule's
        // silence (told once, by notice), then everything is ignored, a command that would run too.
        #expect(Self.refusal(Self.admit("!teleport", at: 5, settings: &settings))?.reason == .unknownCommand)
        let flood = Self.refusal(Self.admit("!echo hi", at: 6, settings: &settings))
        #expect(flood?.reason == .flooding && flood?.delivery == .noticeToSender, "\(String(describing: flood))")
        #expect(Self.isIgnored(Self.admit("!echo hi", at: 7, settings: &settings)))
        // Owners are never held back.
        #expect(Self.runs(Self.admit("!echo hi", owner: true, at: 8, settings: &settings)) == "echo")
    }

    @Test func aBusyHostIsToldThenIgnored() {
        var settings = CommandRouter.Settings(floodGuard: CommandFloodGuard(maxCommands: 1_000))
        settings.userLimits?.hostBudget = HostCommandBudget(burst: 2, perMinute: 1, refusalNoticesPerMinute: 1)
        for user in ["a", "b"] {
            let sender = UserIdentity(nick: user, user: "~\(user)", host: "school.example")
            #expect(Self.runs(Self.admit("!echo hi", from: sender, settings: &settings)) == "echo")
        }
        let third = UserIdentity(nick: "c", user: "~c", host: "school.example")
        let busy = Self.refusal(Self.admit("!echo hi", from: third, settings: &settings))
        #expect(busy?.reason == .busyHost && busy?.delivery == .noticeToSender, "\(String(describing: busy))")
        #expect(Self.isIgnored(Self.admit("!echo hi", from: third, settings: &settings)))
    }
}
