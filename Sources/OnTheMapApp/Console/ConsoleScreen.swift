import BotKit
import IRCProtocol

/// The console's output: the bot's lines rendered as an IRC client shows them
/// (`[#class] <MapBot> alice: pong`, `[private] <MapBot> pong`, `-MapBot- notice`), the console's
/// own notes (`* …`), and in interactive use a prompt kept on the last line.
public actor ConsoleScreen {
    private let write: @Sendable (String) -> Void
    private let botNick: String
    private var user: String
    private var prompt: String?

    /// `write` receives finished text (whole lines, or the prompt).
    public init(botNick: String, user: String, write: @escaping @Sendable (String) -> Void) {
        self.botNick = botNick
        self.user = user
        self.write = write
    }

    /// Who is typing now (private lines to them show as `[private]`).
    public func setUser(_ nick: String) {
        user = nick
    }

    /// Prints one line the bot sends.
    public func show(_ line: OutgoingText) {
        emit([Self.render(line, botNick: botNick, user: user)])
    }

    /// Prints the console's own notes, each as `* note` (indented help lines stay as they are).
    public func note(_ lines: [String]) {
        emit(lines.map { $0.hasPrefix(" ") ? "*\($0)" : "* \($0)" })
    }

    /// Shows the prompt (interactive use only); later output is printed above it.
    public func showPrompt(_ text: String) {
        prompt = text
        write(text)
    }

    /// The user pressed Enter: the cursor is on a fresh line again.
    public func promptAnswered() {
        prompt = nil
    }

    private func emit(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        let text = lines.map { $0 + "\n" }.joined()
        if let prompt {
            // Clear the prompt line, print, and show the prompt again below.
            write("\r\u{1B}[K" + text + prompt)
        } else {
            write(text)
        }
    }

    /// How an IRC client would show `line` to `user`.
    public static func render(_ line: OutgoingText, botNick: String, user: String) -> String {
        let text = TextSanitizer.untrusted(line.text)
        let isChannel = line.target.first.map { "#&".contains($0) } ?? false
        let isUser = CaseMapping.rfc1459.equals(line.target, user)
        switch line.kind {
        case .privmsg:
            let place = isChannel ? line.target : isUser ? "private" : "private to \(line.target)"
            return "[\(place)] <\(botNick)> \(text)"
        case .notice:
            let place = isChannel ? "[\(line.target)] " : isUser ? "" : "[to \(line.target)] "
            return "\(place)-\(botNick)- \(text)"
        }
    }
}

/// Sends the router's replies to the console screen instead of IRC.
struct ConsoleTransport: BotTransport {
    let screen: ConsoleScreen
    let botNick: String

    func send(_ line: OutgoingText) async {
        await screen.show(line)
    }

    func currentNick() async -> String { botNick }

    func identity(ofNick nick: String) async -> UserIdentity? {
        ConsoleInterpreter.sender(nick: nick)
    }

    // A console has no network to ask: lines go out at once, nobody is looked up or watched.
    func send(lines: [OutgoingText]) async {
        for line in lines { await send(line) }
    }
    func waitUntilSent() async -> Bool { true }
    func hasNothingQueued() async -> Bool { true }
    func lookUpConnection(ofNick nick: String) async -> ConnectionLookup { .notAsked }
    func watchPresence(ofNick nick: String) async -> Bool { false }
    func unwatchPresence(ofNick nick: String) async {}
    func sharesChannel(withNick nick: String) async -> Bool { false }
    func accountTracking() async -> AccountTracking { .none }
    // The console's channels are the operator's own screen: nobody else reads them.
    func isOpenChannel(_ channel: String) async -> Bool { false }
}
