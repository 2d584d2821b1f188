import Testing

@testable import IRCProtocol

/// What a client tells the layers above of an ISUPPORT change: the values that matter, each as it
/// is now, and nothing for tokens nobody above reads.
@Suite("ISUPPORT changes")
struct ServerSupportChangeTests {
    static func support(_ tokens: String...) -> ServerSupport {
        var support = ServerSupport()
        for token in tokens { support.apply(token: token) }
        return support
    }

    @Test func eachValueThatMattersIsToldWithItsNewValue() {
        let before = ServerSupport()
        let after = Self.support(
            "CASEMAPPING=ascii", "CHANTYPES=#", "PREFIX=(qov)~@+", "NICKLEN=30", "CHANNELLEN=", "LINELEN=1024",
            "NETWORK=Example\\x20Net", "BOT=B", "SAFERATE")
        #expect(
            after.changes(since: before) == [
                .caseMapping(.ascii), .channelTypes("#"),
                .prefixes([.init(mode: "q", symbol: "~"), .init(mode: "o", symbol: "@"), .init(mode: "v", symbol: "+")]
                ),
                .nickLength(30), .channelLength(Int.max), .lineLength(1024), .networkName("Example Net"),
                .botMode("B"), .pacesClients(true),
            ])
        #expect(
            after.changes(since: before).map(\.description) == [
                "CASEMAPPING=ascii", "CHANTYPES=#", "PREFIX=(qov)~@+", "NICKLEN=30", "CHANNELLEN=", "LINELEN=1024",
                "NETWORK=Example Net", "BOT=B", "SAFERATE",
            ])
    }

    @Test func tokensNobodyAboveReadsAndValuesSaidAgainChangeNothing() {
        let before = Self.support("CASEMAPPING=ascii", "NICKLEN=30")
        #expect(Self.support("CASEMAPPING=ascii", "NICKLEN=30", "WHOX", "MONITOR=100").changes(since: before).isEmpty)
        // The default said out loud is no change either.
        #expect(Self.support("CASEMAPPING=rfc1459").changes(since: ServerSupport()).isEmpty)
    }

    @Test func aTokenTakenBackIsToldAsItsDefault() {
        let before = Self.support("CASEMAPPING=ascii", "NETWORK=Libera", "BOT=B", "SAFERATE")
        var after = before
        for token in ["-CASEMAPPING", "-NETWORK", "-BOT", "-SAFERATE"] { after.apply(token: token) }
        #expect(
            after.changes(since: before) == [
                .caseMapping(.rfc1459), .networkName(nil), .botMode(nil), .pacesClients(false),
            ])
        #expect(
            after.changes(since: before).map(\.description) == ["CASEMAPPING=rfc1459", "-NETWORK", "-BOT", "-SAFERATE"])
    }
}
