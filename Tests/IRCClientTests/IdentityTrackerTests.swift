import IRCClient
import IRCProtocol
import Testing

@Suite("IdentityTracker")
struct IdentityTrackerTests {
    func tracker(_ lines: [String], ownNick: String = "Bot") -> IdentityTracker {
        var tracker = IdentityTracker()
        for line in lines { tracker.apply(parse(line), ownNick: ownNick) }
        return tracker
    }

    @Test func joinAndExtendedJoin() {
        let state = tracker([
            ":Bot!bot@bot.host JOIN #class",
            ":alice!al@alice.host JOIN #class",
            ":bob!bo@bob.host JOIN #class bobacct :Bob Real",
            ":carol!ca@carol.host JOIN #class * :Carol",
        ])
        #expect(
            state.identity(ofNick: "alice") == UserIdentity(nick: "alice", user: "al", host: "alice.host")
        )
        #expect(state.identity(ofNick: "BOB")?.account == "bobacct")
        #expect(state.identity(ofNick: "carol")?.account == nil)
        #expect(state.members(ofChannel: "#CLASS")?.map(\.nick) == ["Bot", "alice", "bob", "carol"])
        #expect(state.isInChannel("#class"))
    }

    @Test func othersInUnknownChannelsAreIgnored() {
        let state = tracker([":alice!al@h JOIN #elsewhere"])
        #expect(state.identity(ofNick: "alice") == nil)
        #expect(state.members(ofChannel: "#elsewhere") == nil)
    }

    @Test func namesWithMultiPrefixAndUserhost() {
        let state = tracker([
            ":Bot!bot@h JOIN #class",
            ":srv 353 Bot = #class :@+alice!al@alice.host +bob!bo@bob.host Bot!bot@h",
            ":srv 366 Bot #class :End of /NAMES list.",
        ])
        let members = state.members(ofChannel: "#class") ?? []
        #expect(members.contains(ChannelMember(nick: "alice", prefixes: "@+")))
        #expect(members.contains(ChannelMember(nick: "bob", prefixes: "+")))
        #expect(state.identity(ofNick: "bob")?.host == "bob.host")
        #expect(state.prefixes(of: "alice", in: "#class") == "@+")
    }

    @Test func nickChangeQuitAndPart() {
        var state = tracker([
            ":Bot!bot@h JOIN #class",
            ":Bot!bot@h JOIN #other",
            ":alice!al@ah JOIN #class bobacct :A",
            ":dave!da@dh JOIN #class",
            ":dave!da@dh JOIN #other",
        ])
        state.apply(parse(":alice!al@ah NICK alice2"), ownNick: "Bot")
        #expect(state.identity(ofNick: "alice") == nil)
        #expect(state.identity(ofNick: "alice2")?.account == "bobacct")
        #expect(state.members(ofChannel: "#class")?.contains { $0.nick == "alice2" } == true)

        state.apply(parse(":dave!da@dh PART #class :bye"), ownNick: "Bot")
        #expect(state.channels(of: "dave") == ["#other"])
        #expect(state.identity(ofNick: "dave") != nil)
        state.apply(parse(":dave!da@dh PART #other"), ownNick: "Bot")
        #expect(state.identity(ofNick: "dave") == nil)

        state.apply(parse(":alice2!al@ah QUIT :Quit: bye"), ownNick: "Bot")
        #expect(state.identity(ofNick: "alice2") == nil)
        #expect(state.members(ofChannel: "#class")?.map(\.nick) == ["Bot"])
    }

    @Test func accountNotifyChghostAndAccountTag() {
        var state = tracker([":Bot!bot@h JOIN #class", ":alice!al@ah JOIN #class"])
        state.apply(parse(":alice!al@ah ACCOUNT aliceacct"), ownNick: "Bot")
        #expect(state.identity(ofNick: "alice")?.account == "aliceacct")
        state.apply(parse(":alice!al@ah ACCOUNT *"), ownNick: "Bot")
        #expect(state.identity(ofNick: "alice")?.account == nil)
        state.apply(parse(":alice!al@ah CHGHOST newuser new.host"), ownNick: "Bot")
        #expect(state.identity(ofNick: "alice")?.user == "newuser")
        #expect(state.identity(ofNick: "alice")?.host == "new.host")
        state.apply(parse("@account=tagged :alice!newuser@new.host PRIVMSG #class :hi"), ownNick: "Bot")
        #expect(state.identity(ofNick: "alice")?.account == "tagged")
    }

    /// CHGHOST reaches whoever follows the connection, whether the client shares a channel with the
    /// user or watches the nick with MONITOR (extended-monitor): the same path as an account change.
    /// The client's own host change is not someone else's.
    @Test func chghostIsReportedForSharedAndWatchedNicks() {
        var state = tracker([":Bot!bot@h JOIN #class", ":alice!al@ah JOIN #class"])
        #expect(
            state.apply(parse(":alice!al@ah CHGHOST al student/alice"), ownNick: "Bot")
                == [.hostChanged(nick: "alice", user: "al", host: "student/alice")])
        #expect(
            state.apply(parse(":carol!ca@ch CHGHOST ca student/carol"), ownNick: "Bot")
                == [.hostChanged(nick: "carol", user: "ca", host: "student/carol")])
        #expect(state.identity(ofNick: "carol") == nil, "nobody unseen is tracked")
        #expect(state.apply(parse(":Bot!bot@h CHGHOST bot bot/host"), ownNick: "Bot").isEmpty)
        #expect(
            state.apply(parse(":carol!ca@ch ACCOUNT carolacct"), ownNick: "Bot")
                == [.accountChanged(nick: "carol", account: "carolacct")])
    }

    @Test func kickOfSelfForgetsTheChannel() {
        var state = tracker([":Bot!bot@h JOIN #class", ":alice!al@ah JOIN #class"])
        state.apply(parse(":alice!al@ah KICK #class Bot :out"), ownNick: "Bot")
        #expect(!state.isInChannel("#class"))
        #expect(state.identity(ofNick: "alice") == nil)
    }

    @Test func whoAndWhoxReplies() {
        var state = tracker([":Bot!bot@h JOIN #class", ":srv 353 Bot = #class :alice bob Bot"])
        state.apply(parse(":srv 352 Bot #class al alice.host srv alice H :0 Alice"), ownNick: "Bot")
        state.apply(parse(":srv 354 Bot 152 #class bo bob.host bob bobacct"), ownNick: "Bot")
        #expect(
            state.identity(ofNick: "alice") == UserIdentity(nick: "alice", user: "al", host: "alice.host")
        )
        #expect(state.identity(ofNick: "bob")?.account == "bobacct")
    }

    @Test func casemappingIsHonoured() {
        var state = IdentityTracker()
        state.apply(parse(":Bot!bot@h JOIN #Class"), ownNick: "Bot")
        state.apply(parse(":Nick[1]!u@h JOIN #class"), ownNick: "Bot")
        // rfc1459 (the default): [ ] fold to { }.
        #expect(state.identity(ofNick: "nick{1}")?.nick == "Nick[1]")
        var support = ServerSupport()
        support.apply(parse(":srv 005 Bot CASEMAPPING=ascii :are supported"))
        state.updateServerSupport(support)
        #expect(state.identity(ofNick: "nick{1}") == nil)
        #expect(state.identity(ofNick: "NICK[1]")?.nick == "Nick[1]")
    }

    @Test func whoRequestUsesWhoxWhenAdvertised() {
        var state = IdentityTracker()
        #expect(state.whoRequest(for: "#c") == IRCMessage(command: "WHO", parameters: ["#c"]))
        var support = ServerSupport()
        support.apply(parse(":srv 005 Bot WHOX :are supported"))
        state.updateServerSupport(support)
        #expect(state.whoRequest(for: "#c").parameters == ["#c", "%tcuhna,152"])
    }
}
