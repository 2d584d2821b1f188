import BotKit
import Foundation
import IRCProtocol
import Logging
import NIOConcurrencyHelpers
import Testing

/// A transport that records what the bot would send, for plugin tests (no socket).
///
/// Its state sits behind a pthread lock rather than `Synchronization.Mutex`: handlers that run at
/// once send from several threads, and ThreadSanitizer sees a pthread lock's ordering but not the
/// futex inside `Mutex`, so with `Mutex` it reports those sends as a race.
public final class RecordingTransport: BotTransport {
    private let state: NIOLockedValueBox<(nick: String, sent: [OutgoingText])>

    public init(nick: String = "MapBot") {
        state = NIOLockedValueBox((nick, []))
    }

    public func send(_ line: OutgoingText) async {
        let sent = state.withLockedValue { state in
            state.sent.append(line)
            return state.sent
        }
        let satisfied = waiters.withLockedValue { waiters in
            let ready = waiters.filter { $0.value.condition(sent) }
            for id in ready.keys { waiters.removeValue(forKey: id) }
            return ready.values
        }
        for waiter in satisfied { waiter.continuation.resume() }
    }

    /// The waits of ``waitForSent(timeout:until:)`` not yet satisfied.
    private let waiters = NIOLockedValueBox<
        [UUID: (condition: @Sendable ([OutgoingText]) -> Bool, continuation: CheckedContinuation<Void, Never>)]
    >([:])

    /// Waits until what was sent satisfies `condition` (looked at as each line is sent) and returns
    /// it; `timeout` only bounds a wait for a line that never comes (then it returns what was sent).
    @discardableResult
    public func waitForSent(
        timeout: Duration = .seconds(60), until condition: @escaping @Sendable ([OutgoingText]) -> Bool
    ) async -> [OutgoingText] {
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        // Registered and checked under the lock `send` takes after appending: a
                        // line sent meanwhile is seen by one or the other.
                        let done = self.waiters.withLockedValue { waiters in
                            if Task.isCancelled || condition(self.sent) { return true }
                            waiters[id] = (condition, continuation)
                            return false
                        }
                        if done { continuation.resume() }
                    }
                } onCancel: {
                    self.waiters.withLockedValue { $0.removeValue(forKey: id) }?.continuation.resume()
                }
            }
            await group.next()
            group.cancelAll()
        }
        return sent
    }

    public func currentNick() async -> String { state.withLockedValue { $0.nick } }

    // A recorder has no network to ask: lines go out at once, nobody is looked up or watched.
    public func send(lines: [OutgoingText]) async {
        for line in lines { await send(line) }
    }
    public func waitUntilSent() async -> Bool { true }
    public func hasNothingQueued() async -> Bool { true }
    public func lookUpConnection(ofNick nick: String) async -> ConnectionLookup { .notAsked }
    public func watchPresence(ofNick nick: String) async -> Bool { false }
    public func unwatchPresence(ofNick nick: String) async {}
    public func sharesChannel(withNick nick: String) async -> Bool { false }

    /// Identities that `identity(ofNick:)` reports (set them with ``setIdentity(_:)``).
    private let identities = NIOLockedValueBox<[String: UserIdentity]>([:])

    /// How many times the bot asked ``identity(ofNick:)`` (a round trip to the connection).
    private let identityQuestions = NIOLockedValueBox(0)

    public func identity(ofNick nick: String) async -> UserIdentity? {
        identityQuestions.withLockedValue { $0 += 1 }
        return identities.withLockedValue { $0[CaseMapping.rfc1459.lowercased(nick)] }
    }

    /// How many times the bot has asked the connection who uses a nick (``identity(ofNick:)``).
    public var identityLookups: Int { identityQuestions.withLockedValue { $0 } }

    /// Makes `identity(ofNick:)` report `sender` for its nick.
    public func setIdentity(_ sender: UserIdentity) {
        identities.withLockedValue { $0[CaseMapping.rfc1459.lowercased(sender.nick)] = sender }
    }

    /// Everything sent so far.
    public var sent: [OutgoingText] { state.withLockedValue { $0.sent } }

    /// Returns and forgets everything sent so far.
    public func takeSent() -> [OutgoingText] {
        state.withLockedValue { s in
            defer { s.sent.removeAll() }
            return s.sent
        }
    }

    public func setNick(_ nick: String) { state.withLockedValue { $0.nick = nick } }

    /// What ``accountTracking()`` reports (set it with ``setAccountTracking(_:)``): none at first.
    private let tracking = NIOLockedValueBox<AccountTracking>(.none)

    public func accountTracking() async -> AccountTracking { tracking.withLockedValue { $0 } }

    /// Makes the transport report that the server tracks accounts in this way.
    public func setAccountTracking(_ mode: AccountTracking) { tracking.withLockedValue { $0 = mode } }

    /// The channels ``isOpenChannel(_:)`` reports as open (set them with ``setOpenChannel(_:_:)``):
    /// none at first, so that the tests of full channel texts hear them as in a keyed channel.
    private let openChannels = NIOLockedValueBox<Set<String>>([])

    public func isOpenChannel(_ channel: String) async -> Bool {
        openChannels.withLockedValue { $0.contains(CaseMapping.rfc1459.lowercased(channel)) }
    }

    /// Makes the transport report `channel` as open to anyone (or not).
    public func setOpenChannel(_ channel: String, _ isOpen: Bool = true) {
        let key = CaseMapping.rfc1459.lowercased(channel)
        openChannels.withLockedValue { channels in
            if isOpen {
                _ = channels.insert(key)
            } else {
                _ = channels.remove(key)
            }
        }
    }
}

/// Drives the real ``CommandRouter`` with a recording transport, so a plugin test reads like a
/// conversation: `let replies = await bot.say("!near Seattle", in: "#class", as: "alice")`, or
/// in one line: `await bot.assertResponse("!ping", "pong")`. `Login` is what its session book stores;
/// plugins that read sessions must be given the same ``gate``.
///
/// The per-user limits (flood guard, command rate limits) are off unless the test passes router
/// settings of its own. One clock drives the bot: ``clock`` for the router, and ``now`` (the same
/// clock as a date) for the plugins' wall clock.
public struct TestBot<Login: ExpiringLogin>: Sendable {
    public let router: CommandRouter
    /// Who may act as a logged-in user: the router's gate.
    public let gate: LoginGate<Login>
    /// The gate's session book.
    public var sessions: SessionBook<Login> { gate.book }
    public let transport: RecordingTransport
    public let clock: ManualBotClock
    /// The clock as a date (what the plugins under test should use as their wall clock).
    public let now: @Sendable () -> Date
    /// The default host of test users ("alice" is alice!alice@alice.example).
    public var hostSuffix = ".example"
    private let outcomes: CommandRecorder

    /// `logger` receives the router's log lines (none when nil); `clock` is the one clock of the
    /// test (make it first when the plugins need ``now`` too, see ``ManualBotClock/wallClock()``).
    public init(
        plugins: [any Plugin], settings: CommandRouter.Settings = .unlimited, nick: String = "MapBot",
        gate: LoginGate<Login>, logger: Logger? = nil, clock: ManualBotClock = ManualBotClock(),
        languageChoices: (any LanguageChoices)? = nil
    ) {
        let transport = RecordingTransport(nick: nick)
        let outcomes = CommandRecorder()
        self.transport = transport
        self.gate = gate
        self.clock = clock
        self.now = clock.wallClock()
        self.outcomes = outcomes
        self.router = CommandRouter(
            plugins: plugins, settings: settings, transport: transport, gate: gate,
            logger: logger ?? Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), clock: clock,
            observer: outcomes, languageChoices: languageChoices)
    }

    /// A sender with a predictable user and host.
    public func user(_ nick: String, account: String? = nil, host: String? = nil) -> UserIdentity {
        UserIdentity(
            nick: nick, user: "~" + CaseMapping.rfc1459.lowercased(nick),
            host: host ?? CaseMapping.rfc1459.lowercased(nick) + hostSuffix, account: account)
    }

    /// Says `text` in a channel as `nick`; returns everything the bot sent in answer.
    public func say(_ text: String, in channel: String, as nick: String) async -> [OutgoingText] {
        await say(text, from: user(nick), origin: .channel(channel))
    }

    /// Says `text` privately to the bot as `nick`; returns everything the bot sent in answer.
    public func dm(_ text: String, as nick: String) async -> [OutgoingText] {
        await say(text, from: user(nick), origin: .privateMessage)
    }

    /// Says `text` from any sender and place; returns the bot's answer lines.
    public func say(_ text: String, from sender: UserIdentity, origin: Origin) async -> [OutgoingText] {
        _ = transport.takeSent()
        _ = outcomes.take()
        await router.handle(IRCUserMessage(sender: sender, origin: origin, text: text))
        await router.waitUntilIdle()
        return transport.takeSent()
    }

    /// Says `text` privately to the bot from `sender`, in a message with the server's `tags` (an
    /// `account` tag); returns everything the bot sent in answer.
    public func dm(_ text: String, from sender: UserIdentity, tags: [String: String]) async -> [OutgoingText] {
        _ = transport.takeSent()
        _ = outcomes.take()
        let message = IRCMessage(tags: tags, source: sender.mask, command: "PRIVMSG", parameters: ["*", text])
        await router.handle(
            IRCUserMessage(sender: sender, target: "*", text: text, isPrivate: true, message: message))
        await router.waitUntilIdle()
        return transport.takeSent()
    }
}

// MARK: - One-line assertions

extension TestBot {
    /// What one line to the bot did.
    public struct Answer: Sendable {
        /// How the command ended, as the router reports it: `.ok`, `.refused` (the handler threw a
        /// `UserFacingError`), `.error`, `.timeout`; nil when no command ran.
        public var outcome: CommandReport.Outcome?
        /// Why the command did not run (the flood rule, the command's declarations, its rate limit,
        /// no login…); nil when it ran or the line named none.
        public var refusal: Refusal?
        /// The answer lines; a channel answer without the "nick: " in front.
        public var lines: [String]
    }

    /// Says `text` as `nick`, privately or in `channel`, and returns what the bot did.
    public func ask(_ text: String, as nick: String = "tester", in channel: String? = nil) async -> Answer {
        let sent = await say(text, from: user(nick), origin: channel.map(Origin.channel) ?? .privateMessage)
        let lines = sent.map { line in
            channel != nil && line.target == channel && line.text.hasPrefix("\(nick): ")
                ? String(line.text.dropFirst(nick.count + 2)) : line.text
        }
        let events = outcomes.take()
        return Answer(outcome: events.outcomes.last, refusal: events.refusals.last, lines: lines)
    }

    /// Expects `text` to run a command that answers exactly `expected` (one string per line;
    /// `…` stands for any text, as in a command's examples).
    public func assertResponse(
        _ text: String, _ expected: String..., as nick: String = "tester", in channel: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let answer = await ask(text, as: nick, in: channel)
        #expect(
            answer.outcome == .ok && CommandExample(text, answer: expected).matches(answer.lines),
            "\(text) → \(answer.outcome?.rawValue ?? "no command"): \(answer.lines), expected \(expected)",
            sourceLocation: sourceLocation)
    }

    /// Expects `text` to be refused with a sentence for the user (a `UserFacingError`), which is
    /// `expected` when given (`…` stands for any text).
    public func assertError(
        _ text: String, _ expected: String? = nil, as nick: String = "tester", in channel: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let answer = await ask(text, as: nick, in: channel)
        let matches =
            expected.map { CommandExample(text, answer: $0).matches(answer.lines) } ?? (answer.lines.count == 1)
        #expect(
            answer.outcome == .refused && matches,
            "\(text) → \(answer.outcome?.rawValue ?? "no command"): \(answer.lines), expected an error \(expected ?? "")",
            sourceLocation: sourceLocation)
    }
}

/// What the router reported since the last ``take()``: the outcomes of the commands that ran and the
/// refusals of those that did not.
final class CommandRecorder: CommandObserver {
    private let events = NIOLockedValueBox<(outcomes: [CommandReport.Outcome], refusals: [Refusal])>(([], []))

    func observe(_ event: CommandEvent) {
        events.withLockedValue { recorded in
            switch event {
            case .finished(let report): recorded.outcomes.append(report.outcome)
            case .refused(let refusal, _, _): recorded.refusals.append(refusal)
            }
        }
    }

    func take() -> (outcomes: [CommandReport.Outcome], refusals: [Refusal]) {
        events.withLockedValue { recorded in
            defer { recorded = ([], []) }
            return recorded
        }
    }
}

extension TestBot where Login == TestLogin {
    /// A bot whose session book stores ``TestLogin``s.
    public init(
        plugins: [any Plugin], settings: CommandRouter.Settings = .unlimited, nick: String = "MapBot",
        logger: Logger? = nil, clock: ManualBotClock = ManualBotClock()
    ) {
        self.init(
            plugins: plugins, settings: settings, nick: nick, gate: LoginGate(), logger: logger, clock: clock)
    }
}

extension CommandRouter.Settings {
    /// Router settings without the per-user limits (flood guard, command rate limits).
    public static var unlimited: CommandRouter.Settings {
        var settings = CommandRouter.Settings()
        settings.userLimits = nil
        return settings
    }
}

extension ManualBotClock {
    /// This clock as a wall clock: the time of the call, moved with the clock.
    public func wallClock() -> @Sendable () -> Date {
        let start = Date()
        return {
            let elapsed = self.now().components
            return start.addingTimeInterval(Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
        }
    }
}
