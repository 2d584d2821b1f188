import IRCProtocol
import Testing

/// The one key that tells IRC users apart (limits, login throttle, sessions, preferences), and the
/// user-message and identity values the client and the bot share.
@Suite struct UserIdentityTests {
    let alice = UserIdentity(nick: "Alice[1]", user: "~Al", host: "Home.Example")

    @Test func aServicesAccountStandsForTheUserWhateverTheBasis() {
        var loggedIn = alice
        loggedIn.account = "Alice[Acct]"
        for basis in [UserIdentity.KeyBasis.nick, .network, .userAtHost, .connection] {
            #expect(loggedIn.key(by: basis, caseMapping: .rfc1459) == "a:alice{acct}")
            #expect(loggedIn.key(by: basis, caseMapping: .ascii) == "a:alice[acct]")
        }
        // `*` and an empty name mean not logged in.
        for none in ["*", ""] {
            var out = alice
            out.account = none
            #expect(out.loggedInAccount == nil)
            #expect(out.key(by: .nick, caseMapping: .rfc1459) == "n:alice{1}")
        }
    }

    @Test func eachBasisKeepsWhatItNamesFoldedTheServersWay() {
        #expect(alice.key(by: .nick, caseMapping: .rfc1459) == "n:alice{1}")
        #expect(alice.key(by: .nick, caseMapping: .ascii) == "n:alice[1]")
        #expect(alice.key(by: .network, caseMapping: .rfc1459) == "h:home.example")
        // The user name is kept as it is; the host is lower-cased.
        #expect(alice.key(by: .userAtHost, caseMapping: .rfc1459) == "h:~Al@home.example")
        #expect(alice.key(by: .connection, caseMapping: .rfc1459) == "c:alice{1}!~Al@home.example")
        #expect(alice.key(by: .connection, caseMapping: .strictRFC1459) == "c:alice{1}!~Al@home.example")
    }

    @Test func withoutAHostTheNickStandsForTheUser() {
        let hostless = UserIdentity(nick: "Bob~")
        #expect(hostless.key(by: .network, caseMapping: .rfc1459) == "n:bob^")
        #expect(hostless.key(by: .userAtHost, caseMapping: .ascii) == "n:bob~")
        #expect(hostless.key(by: .connection, caseMapping: .ascii) == "c:bob~!@")
        #expect(UserIdentity(nick: "b", host: "").key(by: .userAtHost, caseMapping: .ascii) == "n:b")
    }

    @Test func aNetworkKeyTakesAnIPv6AddressAsItsSlash64() {
        #expect(UserIdentity.networkKey(ofHost: "2001:db8:7:1::10") == "2001:db8:7:1::/64")
        #expect(UserIdentity.networkKey(ofHost: "2001:0DB8:0007:0001:ffff:1:2:3") == "2001:db8:7:1::/64")
        #expect(UserIdentity.networkKey(ofHost: "::1") == "0:0:0:0::/64")
        #expect(UserIdentity.networkKey(ofHost: "fe80::1%eth0") == "fe80:0:0:0::/64")
        #expect(UserIdentity.networkKey(ofHost: "::ffff:192.0.2.7") == "192.0.2.7")
        #expect(UserIdentity.networkKey(ofHost: "64:ff9b::192.0.2.7") == "64:ff9b:0:0::/64")
        #expect(UserIdentity.networkKey(ofHost: "192.0.2.7") == "192.0.2.7")
        // Not addresses: taken as written.
        for host in ["1:2:3", "1::2::3", "12345::1", "a:b:c:d:e:f:1:2:3", "gg::1", "+1::2", "::1.2.3", "user/cloak:x"] {
            #expect(UserIdentity.networkKey(ofHost: host) == host.lowercased(), "\(host)")
        }
    }

    @Test func userNamesMatchWithOrWithoutTheUnverifiedIdentMark() {
        #expect(UserIdentity.sameUserName("~alice", "alice"))
        #expect(UserIdentity.sameUserName("alice", "alice"))
        #expect(!UserIdentity.sameUserName("~alice", "~alicia"))
        #expect(!UserIdentity.sameUserName(nil, nil))
        #expect(!UserIdentity.sameUserName("alice", nil))
    }

    @Test func aMaskShowsUnknownPartsAsStars() {
        #expect(alice.mask == "Alice[1]!~Al@Home.Example")
        #expect(UserIdentity(nick: "carol").mask == "carol!*@*")
        #expect(UserIdentity(nick: "carol", account: "c").description == "carol!*@* (account c)")
    }

    @Test func aUserMessageMadeWithoutAWireLineReadsLikeOneFromTheServer() {
        let inChannel = IRCUserMessage(sender: alice, origin: .channel("#class"), text: "!near Paris")
        #expect(inChannel.origin == .channel("#class"))
        #expect(inChannel.replyTarget == "#class")
        #expect(
            inChannel.message
                == IRCMessage(source: alice.mask, command: "PRIVMSG", parameters: ["#class", "!near Paris"]))
        let privately = IRCUserMessage(sender: alice, origin: .privateMessage, text: "help")
        #expect(privately.isPrivate && privately.origin == .privateMessage)
        #expect(privately.replyTarget == "Alice[1]")
        // From the wire: a channel target with a status prefix stays as sent.
        let wire = IRCUserMessage(
            sender: alice, target: "@#class", text: "hi", isPrivate: false,
            message: IRCMessage(source: alice.mask, command: "PRIVMSG", parameters: ["@#class", "hi"]))
        #expect(wire.origin == .channel("@#class"))
    }
}
