import BotKit
import IRCClient
import IRCProtocol

/// Sends the router's replies through the IRC client, which sanitizes, splits and
/// flood-controls every line.
struct IRCBotTransport: BotTransport {
    let client: IRCClient
    /// The most IRC lines one reply text may become after splitting.
    var maxLinesPerReply = 3

    nonisolated(nonsending) func send(_ text: OutgoingText) async {
        await client.send(texts: [capped(text)])
    }

    nonisolated(nonsending) func send(lines: [OutgoingText]) async {
        await client.send(texts: lines.map(capped))
    }

    /// `text` split into at most ``maxLinesPerReply`` IRC lines.
    private func capped(_ text: OutgoingText) -> OutgoingText {
        var capped = text
        capped.maxLines = min(text.maxLines, maxLinesPerReply)
        return capped
    }

    nonisolated(nonsending) func currentNick() async -> String { client.nick }

    nonisolated(nonsending) func waitUntilSent() async -> Bool { await client.waitUntilQueuedLinesAreWritten() }

    nonisolated(nonsending) func identity(ofNick nick: String) async -> UserIdentity? {
        await client.identity(ofNick: nick)
    }

    nonisolated(nonsending) func lookUpConnection(ofNick nick: String) async -> ConnectionLookup {
        if let reply = await client.whois(nick) {
            return .found(user: reply.user, host: reply.host, account: reply.account, signedOnAt: reply.signedOnAt)
        }
        // No answer in time (a server that holds the bot's lines back under load), or nobody: someone in
        // a channel with the bot is there all the same, but without a sign-on time to check later.
        guard let seen = await client.identity(ofNick: nick) else { return .nobody }
        return .found(user: seen.user, host: seen.host, account: seen.account, signedOnAt: nil)
    }

    nonisolated(nonsending) func watchPresence(ofNick nick: String) async -> Bool {
        await client.watchPresence(of: nick)
    }

    nonisolated(nonsending) func unwatchPresence(ofNick nick: String) async {
        await client.unwatchPresence(of: nick)
    }

    nonisolated(nonsending) func sharesChannel(withNick nick: String) async -> Bool {
        await client.identity(ofNick: nick) != nil
    }
}
