import Testing

@testable import IRCProtocol

@Suite("RPL_ISUPPORT")
struct ServerSupportTests {
    /// 005 lines as InspIRCd 3 sends them (abridged only in count, not in form).
    static let inspircdLines = [
        ":irc.example.net 005 bot ACCEPT=30 AWAYLEN=200 BOT=B CALLERID=g CASEMAPPING=ascii CHANLIMIT=#:20 "
            + "CHANMODES=IXbeg,k,Hfjl,BCMNOPRScimnprstz CHANNELLEN=64 CHANTYPES=# ELIST=CMNTU ESILENCE=CcdiNnPpTtx "
            + "EXCEPTS=e :are supported by this server",
        ":irc.example.net 005 bot EXTBAN=,ACNOQRSTUacjmnprwz HOSTLEN=64 INVEX=I KEYLEN=32 KICKLEN=255 LINELEN=512 "
            + "MAXLIST=I:100,X:100,b:100,e:100,g:100 MAXTARGETS=20 MODES=20 MONITOR=30 NAMELEN=128 NAMESX "
            + "NETWORK=Example\\x20Net :are supported by this server",
        ":irc.example.net 005 bot NICKLEN=30 PREFIX=(qaohv)~&@%+ SAFELIST SILENCE=32 STATUSMSG=~&@%+ "
            + "TARGMAX=ACCEPT:,KICK:1,LIST:1,NAMES:1,NOTICE:20,PRIVMSG:20,WATCH:32 TOPICLEN=307 UHNAMES USERIP "
            + "USERLEN=10 USERMODES=,,s,BDHILRSTWcdghikorswxz WHOX :are supported by this server",
    ]

    @Test func defaultsBeforeAny005() {
        let support = ServerSupport()
        #expect(support.caseMapping == .rfc1459)
        #expect(support.channelTypes == "#&")
        #expect(support.prefixSymbols == "@+")
        #expect(support.nickLength == 9)
        #expect(support.channelLength == 200)
        #expect(support.lineLength == 512)
        #expect(support.networkName == nil)
        #expect(support.botMode == nil)
        #expect(support.isChannel("&local"))
    }

    @Test func inspircdSequence() throws {
        var support = ServerSupport()
        for line in Self.inspircdLines {
            support.apply(try IRCMessage(parsing: line))
        }
        #expect(support.caseMapping == .ascii)
        #expect(support.botMode == "B")
        #expect(support.channelTypes == "#")
        #expect(support.isChannel("#onthemap"))
        #expect(!support.isChannel("&local"))
        #expect(!support.isChannel("alice"))
        #expect(!support.isChannel(""))
        #expect(support.prefixes.map(\.mode) == ["q", "a", "o", "h", "v"])
        #expect(support.prefixSymbols == "~&@%+")
        #expect(support.mode(forPrefix: "%") == "h")
        #expect(support.nickLength == 30)
        #expect(support.channelLength == 64)
        #expect(support.lineLength == 512)
        #expect(support.networkName == "Example Net")
        #expect(support["NAMESX"] == "")
        #expect(support["userlen"] == "10")
        #expect(support["NOPE"] == nil)
        #expect(support.tokens.count == 37)
        let split = support.splitPrefixes("~@alice")
        #expect(split.symbols == "~@" && split.nick == "alice")
    }

    @Test func ngircdStyleAndRemoval() throws {
        var support = ServerSupport()
        support.apply(
            try IRCMessage(
                parsing:
                    ":ngircd.example 005 bot RFC2812 IRCD=ngIRCd CHARSET=UTF-8 CASEMAPPING=ascii PREFIX=(qaohv)~&@%+ "
                    + "CHANTYPES=#&+ CHANMODES=beI,k,l,imMnOPQRstVz CHANLIMIT=#&+:10 :are supported on this server"
            )
        )
        support.apply(
            try IRCMessage(
                parsing:
                    ":ngircd.example 005 bot EXCEPTS=e INVEX=I PENALTY FNC NICKLEN=9 TOPICLEN=490 KICKLEN=400 "
                    + "MAXLIST=beI:50 MAXNICKLEN=9 CHANNELLEN=50 NETWORK=ngnet :are supported on this server"
            )
        )
        #expect(support.channelTypes == "#&+")
        #expect(support.isChannel("+modeless"))
        #expect(support.channelLength == 50)
        #expect(support.networkName == "ngnet")

        support.apply(
            try IRCMessage(parsing: ":ngircd.example 005 bot -CHANTYPES -NETWORK -PREFIX -CASEMAPPING :bye"))
        #expect(support.channelTypes == "#&")
        #expect(support.networkName == nil)
        #expect(support.prefixSymbols == "@+")
        #expect(support.caseMapping == .rfc1459)
        #expect(support["CHANTYPES"] == nil)
        #expect(support["NICKLEN"] == "9")
    }

    @Test func oddValues() throws {
        var support = ServerSupport()
        support.apply(
            try IRCMessage(
                parsing:
                    ":s 005 me PREFIX= CHANTYPES= CASEMAPPING=rfc7613 LINELEN=2048 CHANNELLEN= X=a\\x5Cb\\x3 :ok"
            )
        )
        #expect(support.prefixes.isEmpty)
        #expect(!support.isChannel("#c"))
        #expect(support.caseMapping == .ascii)
        #expect(support.lineLength == 2048)
        #expect(support.channelLength == Int.max)
        #expect(support["X"] == "a\\b\\x3")
        // Non-005 messages are ignored.
        support.apply(IRCMessage(command: "004", parameters: ["me", "NETWORK=x", "y"]))
        #expect(support.networkName == nil)
    }
}
