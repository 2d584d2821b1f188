import BotKit
import IRCProtocol
import Testing

@testable import OnTheMapApp

/// Which accounts the bot believes, from the capabilities the server acknowledged, and which
/// account a message is vouched for.
@Suite struct AccountTrackingTests {
    /// account-tag vouches for each message; account-notify needs extended-join to be kept current;
    /// anything less vouches for nothing.
    @Test func capabilitiesDecideTheTracking() {
        #expect(IRCBotTransport.accountTracking(enabled: ["account-tag", "message-tags"]) == .tagged)
        #expect(IRCBotTransport.accountTracking(enabled: ["account-notify", "extended-join"]) == .notified)
        #expect(IRCBotTransport.accountTracking(enabled: ["account-notify"]) == .none)
        #expect(IRCBotTransport.accountTracking(enabled: ["server-time", "sasl"]) == .none)
    }

    /// With account-tag, only the tag of the message itself counts (an account the client tracks
    /// from earlier does not); with account-notify, only for someone in a shared channel.
    @Test func theVouchedAccountOfAMessage() {
        let sender = UserIdentity(nick: "jane", user: "jane", host: "h", account: "jane")
        let untagged = IRCUserMessage(sender: sender, origin: .privateMessage, text: "!whoami")
        var tagged = untagged
        tagged.message.tags["account"] = "jane"
        #expect(AccountTracking.tagged.vouchedAccount(of: tagged, sharesChannel: false) == "jane")
        #expect(AccountTracking.tagged.vouchedAccount(of: untagged, sharesChannel: true) == nil)
        #expect(AccountTracking.notified.vouchedAccount(of: untagged, sharesChannel: true) == "jane")
        #expect(AccountTracking.notified.vouchedAccount(of: untagged, sharesChannel: false) == nil)
        #expect(AccountTracking.none.vouchedAccount(of: tagged, sharesChannel: true) == nil)
        var loggedOut = tagged
        loggedOut.message.tags["account"] = "*"
        #expect(AccountTracking.tagged.vouchedAccount(of: loggedOut, sharesChannel: true) == nil)
    }
}
