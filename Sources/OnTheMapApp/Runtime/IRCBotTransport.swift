import BotKit
import IRCClient

/// Sends the router's replies through the IRC client, which sanitizes, splits and
/// flood-controls every line.
struct IRCBotTransport: BotTransport {
    let client: IRCClient
    /// The most IRC lines one reply line may become after splitting.
    var maxLinesPerReply = 3

    func send(_ line: OutgoingLine) async {
        switch line.kind {
        case .message:
            await client.sendPrivmsg(
                to: line.target, text: line.text, maxLines: maxLinesPerReply, fairnessKey: line.requester)
        case .notice:
            await client.sendNotice(
                to: line.target, text: line.text, maxLines: maxLinesPerReply, fairnessKey: line.requester)
        }
    }

    func send(lines: [OutgoingLine]) async {
        await client.send(
            texts: lines.map { line in
                OutgoingText(
                    line.kind == .notice ? .notice : .privmsg, to: line.target, text: line.text,
                    maxLines: maxLinesPerReply, fairnessKey: line.requester)
            })
    }

    func currentNick() async -> String { client.nick }

    func waitUntilSent() async -> Bool { await client.waitUntilQueuedLinesAreWritten() }

    func identity(ofNick nick: String) async -> Sender? {
        await client.identity(ofNick: nick).map(Sender.init)
    }

    func lookUpConnection(ofNick nick: String) async -> ConnectionLookup {
        if let reply = await client.whois(nick) {
            return .found(user: reply.user, host: reply.host, account: reply.account, signedOnAt: reply.signedOnAt)
        }
        // No answer in time (a server that holds the bot's lines back under load), or nobody: someone in
        // a channel with the bot is there all the same, but without a sign-on time to check later.
        guard let seen = await client.identity(ofNick: nick) else { return .nobody }
        return .found(user: seen.user, host: seen.host, account: seen.account, signedOnAt: nil)
    }

    func watchPresence(ofNick nick: String) async -> Bool {
        await client.watchPresence(of: nick)
    }

    func unwatchPresence(ofNick nick: String) async {
        await client.unwatchPresence(of: nick)
    }

    func sharesChannel(withNick nick: String) async -> Bool {
        await client.identity(ofNick: nick) != nil
    }
}

extension Sender {
    init(_ identity: UserIdentity) {
        self.init(nick: identity.nick, user: identity.user, host: identity.host, account: identity.account)
    }
}
