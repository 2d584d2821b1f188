import BotKit
import Logging
import Synchronization

/// A transport that records what the bot would send, for plugin tests (no socket).
public final class RecordingTransport: BotTransport {
    private let state: Mutex<(nick: String, sent: [OutgoingLine])>

    public init(nick: String = "MapBot") {
        state = Mutex((nick, []))
    }

    public func send(_ line: OutgoingLine) async {
        state.withLock { $0.sent.append(line) }
    }

    public func currentNick() async -> String { state.withLock { $0.nick } }

    /// Identities that `identity(ofNick:)` reports (set them with ``setIdentity(_:)``).
    private let identities = Mutex<[String: Sender]>([:])

    public func identity(ofNick nick: String) async -> Sender? {
        identities.withLock { $0[nick.lowercased()] }
    }

    /// Makes `identity(ofNick:)` report `sender` for its nick.
    public func setIdentity(_ sender: Sender) {
        identities.withLock { $0[sender.nick.lowercased()] = sender }
    }

    /// Everything sent so far.
    public var sent: [OutgoingLine] { state.withLock { $0.sent } }

    /// Returns and forgets everything sent so far.
    public func takeSent() -> [OutgoingLine] {
        state.withLock { s in
            defer { s.sent.removeAll() }
            return s.sent
        }
    }

    public func setNick(_ nick: String) { state.withLock { $0.nick = nick } }
}

/// Drives the real ``CommandRouter`` with a recording transport, so a plugin test reads like a
/// conversation: `let replies = await bot.say("!near Seattle", in: "#class", as: "alice")`.
public struct TestBot: Sendable {
    public let router: CommandRouter
    public let transport: RecordingTransport
    public let clock: ManualBotClock
    /// The default host of test users ("alice" is alice!alice@alice.example).
    public var hostSuffix = ".example"

    /// `logger` receives the router's log lines (none when nil).
    public init(
        plugins: [any Plugin], settings: CommandRouter.Settings = .init(), nick: String = "MapBot",
        sessions: SessionBook = SessionBook(), logger: Logger? = nil
    ) {
        let transport = RecordingTransport(nick: nick)
        let clock = ManualBotClock()
        self.transport = transport
        self.clock = clock
        self.router = CommandRouter(
            plugins: plugins, settings: settings, transport: transport, sessions: sessions,
            logger: logger ?? Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), clock: clock)
    }

    /// A sender with a predictable user and host.
    public func user(_ nick: String, account: String? = nil, host: String? = nil) -> Sender {
        Sender(
            nick: nick, user: "~" + nick.lowercased(), host: host ?? nick.lowercased() + hostSuffix, account: account)
    }

    /// Says `text` in a channel as `nick`; returns everything the bot sent in answer.
    public func say(_ text: String, in channel: String, as nick: String) async -> [OutgoingLine] {
        await say(text, from: user(nick), origin: .channel(channel))
    }

    /// Says `text` privately to the bot as `nick`; returns everything the bot sent in answer.
    public func dm(_ text: String, as nick: String) async -> [OutgoingLine] {
        await say(text, from: user(nick), origin: .privateMessage)
    }

    /// Says `text` from any sender and place; returns the bot's answer lines.
    public func say(_ text: String, from sender: Sender, origin: Origin) async -> [OutgoingLine] {
        _ = transport.takeSent()
        await router.handle(IncomingLine(sender: sender, origin: origin, text: text))
        await router.waitUntilIdle()
        return transport.takeSent()
    }
}
