import BotKit
import IRCClient
import IRCProtocol

/// Sends the router's replies through the IRC client, which sanitizes, splits and
/// flood-controls every line.
struct IRCBotTransport: BotTransport {
    let client: IRCClient
    /// The most IRC lines one reply text may become after splitting.
    var maxLinesPerReply = 3

    func send(_ text: OutgoingText) async {
        await client.send(texts: [capped(text)])
    }

    func send(lines: [OutgoingText]) async {
        await client.send(texts: lines.map(capped))
    }

    /// `text` split into at most ``maxLinesPerReply`` IRC lines.
    private func capped(_ text: OutgoingText) -> OutgoingText {
        var capped = text
        capped.maxLines = min(text.maxLines, maxLinesPerReply)
        return capped
    }

    func currentNick() async -> String { client.nick }

    func waitUntilSent() async -> Bool { await client.waitUntilQueuedLinesAreWritten() }

    func hasNothingQueued() async -> Bool { await client.queuedLineCount == 0 }

    func identity(ofNick nick: String) async -> UserIdentity? {
        await client.identity(ofNick: nick)
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

    func isOpenChannel(_ channel: String) async -> Bool {
        await client.channelAccess(channel)?.isOpen ?? true
    }

    func accountTracking() async -> AccountTracking {
        Self.accountTracking(enabled: await client.enabledCapabilities)
    }

    /// What the capabilities the server acknowledged let the bot believe of accounts.
    static func accountTracking(enabled: Set<String>) -> AccountTracking {
        if enabled.contains("account-tag") { return .tagged }
        if enabled.contains("account-notify") && enabled.contains("extended-join") { return .notified }
        return .none
    }
}
