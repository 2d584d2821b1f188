import IRCProtocol
import Testing

@testable import IRCClient

/// Whether the client knows a channel keeps strangers out: the pure ``ChannelAccess`` and
/// ``ChannelModeTracker`` values, and the machine that asks for and follows a channel's modes.
@Suite("Channel access")
struct ChannelAccessTests {
    typealias Machine = ConnectionStateMachineTests

    /// A `324` mode string is the whole state: a key or invite-only keeps strangers out, neither
    /// leaves the channel open; other letters change nothing.
    @Test func aListedModeStringSaysWhetherTheChannelIsOpen() {
        #expect(ChannelAccess(modes: "+nt").isOpen)
        #expect(ChannelAccess(modes: "+ntk") == ChannelAccess(isKeyed: true))
        #expect(ChannelAccess(modes: "+i") == ChannelAccess(isInviteOnly: true))
        #expect(ChannelAccess(modes: "+").isOpen)
    }

    /// Changes set and unset the key and invite-only, in mixed strings too.
    @Test func changesSetAndUnsetTheKeyAndInviteOnly() {
        var access = ChannelAccess()
        access.apply("+ik-t")
        #expect(access == ChannelAccess(isKeyed: true, isInviteOnly: true))
        access.apply("-k")
        #expect(access == ChannelAccess(isInviteOnly: true))
        access.apply("+s-i+m")
        #expect(access.isOpen)
    }

    /// The tracker knows a channel only once listed, reports a change of access only when there is
    /// one, forgets a channel left, and compares names under the server's casemapping (re-keyed
    /// when it changes).
    @Test func theTrackerFollowsChannelsUnderTheCasemapping() {
        var tracker = ChannelModeTracker()
        #expect(tracker.changed("#class", modes: "+k") == nil)
        #expect(tracker.access(of: "#class") == nil)
        #expect(tracker.listed("#Class[1]", modes: "+nt") == ChannelAccess())
        #expect(tracker.access(of: "#class{1}")?.isOpen == true)
        #expect(tracker.changed("#CLASS{1}", modes: "+t") == nil)
        #expect(tracker.changed("#class{1}", modes: "+k") == ChannelAccess(isKeyed: true))
        tracker.setCaseMapping(.ascii)
        #expect(tracker.access(of: "#class[1]") == ChannelAccess(isKeyed: true))
        #expect(tracker.access(of: "#class{1}") == nil)
        tracker.left("#CLASS[1]")
        #expect(tracker.access(of: "#class[1]") == nil)
    }

    /// After its own JOIN the client asks the channel's modes; the `324` answer and later channel
    /// MODE changes are emitted when they change whether the channel is open, and read back from
    /// the machine.
    @Test func theClientAsksAndFollowsAChannelsModes() {
        var machine = Machine.registered()
        let joined = Machine.receive(":bot!otm@h JOIN #class", into: &machine)
        #expect(joined.contains("queue MODE #class"))
        #expect(machine.channelModes.access(of: "#class") == nil)
        #expect(
            Machine.receive(":srv 324 bot #class +nt", into: &machine) == [
                "emit channelAccess(channel: \"#class\", access: IRCClient.ChannelAccess(isKeyed: false, isInviteOnly: false))"
            ])
        #expect(machine.channelModes.access(of: "#CLASS")?.isOpen == true)
        #expect(
            Machine.receive(":op!o@h MODE #class +k secret", into: &machine) == [
                "emit channelAccess(channel: \"#class\", access: IRCClient.ChannelAccess(isKeyed: true, isInviteOnly: false))"
            ])
        #expect(Machine.receive(":op!o@h MODE #class +m", into: &machine).isEmpty)
        _ = Machine.receive(":op!o@h MODE #class +i-k *", into: &machine)
        #expect(machine.channelModes.access(of: "#class") == ChannelAccess(isInviteOnly: true))
        _ = Machine.receive(":op!o@h MODE #class -i", into: &machine)
        #expect(machine.channelModes.access(of: "#class")?.isOpen == true)
    }

    /// The client forgets a channel's modes when it parts, is kicked or loses the connection; the
    /// bot's own user modes still follow a MODE on its nick.
    @Test func theModesAreForgottenOnPartKickAndDisconnect() {
        var machine = Machine.registered()
        _ = Machine.receive(
            ":bot!otm@h JOIN #class", ":bot!otm@h JOIN #other", ":srv 324 bot #class +k key",
            ":srv 324 bot #other +nt", into: &machine)
        _ = Machine.receive(":bot!otm@h PART #Class :bye", into: &machine)
        #expect(machine.channelModes.access(of: "#class") == nil)
        #expect(machine.channelModes.access(of: "#other")?.isOpen == true)
        _ = Machine.receive(":op!o@h KICK #OTHER bot :behave", into: &machine)
        #expect(machine.channelModes.access(of: "#other") == nil)

        _ = Machine.receive(":bot!otm@h JOIN #class", ":srv 324 bot #class +i", into: &machine)
        #expect(machine.channelModes.access(of: "#class") == ChannelAccess(isInviteOnly: true))
        _ = machine.connectionClosed(reason: "gone", at: Machine.at(5))
        #expect(machine.channelModes.access(of: "#class") == nil)
    }

    /// A user MODE (its target is the bot's nick) still sets the bot mode, and a channel MODE does
    /// not touch it.
    @Test func aUserModeStillFollowsTheBotMode() {
        var machine = Machine.registered()
        _ = Machine.receive(":srv 005 bot BOT=B :are supported by this server", into: &machine)
        #expect(machine.botMode == BotMode(mode: "B", isSet: false))
        _ = Machine.receive(":bot!otm@h JOIN #class", ":srv 324 bot #class +nt", into: &machine)
        _ = Machine.receive(":op!o@h MODE #class +B", into: &machine)
        #expect(machine.botMode == BotMode(mode: "B", isSet: false))
        _ = Machine.receive(":bot MODE bot :+B", into: &machine)
        #expect(machine.botMode == BotMode(mode: "B", isSet: true, answered: true))
        #expect(machine.channelModes.access(of: "#class")?.isOpen == true)
    }
}
