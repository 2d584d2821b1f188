import BotKit
import BotTesting
@testable import ClassKit
import Foundation
import OnTheMapPlugins
import Testing

@testable import OnTheMapService

/// `!mydata links` on the real router over a real SQLite class: the private addresses of a
/// student's own pin and trips, given in a private answer only, replaced by the next ones, shown by
/// `!mydata` only as "live since", and gone with `!logout` and `!forget confirm`.
@Suite struct DataFeedLinkTests {
    static let mapURL = "https://map.class.example/"

    static func start(webMapURL: String? = mapURL) async throws -> ClassFixture {
        let fixture = try ClassFixture(
            settings: ClassSettings(announceChannels: ["#class"], webMapURL: webMapURL),
            folder: TemporaryDirectory(prefix: "feed-links"))
        await fixture.bot.router.restorePlugins()
        return fixture
    }

    /// Jane with a pin in Seattle, logged in as "jane".
    static func jane(_ fixture: ClassFixture) async throws -> StudentLocation {
        let pin = try await fixture.addPin(
            email: "jane@class.test", first: "Jane", last: "Doe", place: "Seattle, WA",
            at: SharedGazetteer.coordinate(of: "Seattle, WA"))
        #expect(await fixture.logIn("jane", email: "jane@class.test").first?.hasPrefix("Welcome") == true)
        return pin
    }

    /// The token in the answer to `!mydata links` (from its pins address), checked against the
    /// trips address of the same answer.
    static func token(in lines: [String]) throws -> String {
        let pins = try #require(
            lines.first?.firstMatch(
                of: /^Your pin as GeoJSON: https:\/\/map\.class\.example\/me\/([^\/ ]+)\/pins\.geojson$/),
            "\(lines)")
        let token = String(pins.1)
        #expect(
            lines.dropFirst().first
                == "Your trips as a calendar feed (subscribe to it in your calendar app): https://map.class.example/me/\(token)/trips.ics"
        )
        return token
    }

    @Test func linksGivesTwoPrivateAddressesOfOneLiveTokenThatANewAskReplaces() async throws {
        let fixture = try await Self.start()
        let pin = try await Self.jane(fixture)
        let feeds = DataFeedLinks(store: fixture.sqlite)

        let first = await fixture.dm("!mydata links", as: "jane")
        #expect(first.count == 3, "\(first)")
        let token = try Self.token(in: first)
        #expect(
            first.last
                == "Keep these addresses to yourself: whoever has them reads your pin and trips. The ones given before no longer work; !mydata links replaces these, !logout turns them off."
        )
        #expect(try await feeds.account(of: token) == pin.uniqueKey)
        // Only the digest is kept, never the token or its secret.
        let kept = try #require(try await fixture.sqlite.state(DataFeedLinks.stateKey(accountKey: pin.uniqueKey)))
        #expect(!kept.contains(token) && !kept.contains(String(token.split(separator: ".")[1])))
        // Opening it does not use it up: a calendar app polls it.
        #expect(try await feeds.account(of: token) == pin.uniqueKey)

        let second = try Self.token(in: await fixture.dm("!mydata links", as: "jane"))
        #expect(second != token)
        #expect(try await feeds.account(of: token) == nil)
        #expect(try await feeds.account(of: second) == pin.uniqueKey)
    }

    @Test func myDataSaysWhetherAFeedAddressIsLiveWithoutShowingIt() async throws {
        let fixture = try await Self.start()
        _ = try await Self.jane(fixture)
        let before = await fixture.dm("!mydata", as: "jane").joined(separator: "\n")
        #expect(
            before.contains("no feed addresses (!mydata links gives you private ones for calendar and map apps)"),
            "\(before)")
        let token = try Self.token(in: await fixture.dm("!mydata links", as: "jane"))
        let after = await fixture.dm("!mydata", as: "jane").joined(separator: "\n")
        #expect(
            after.contains("private addresses of your pin and trips feeds (kept as a digest), given out "), "\(after)")
        #expect(!after.contains(token) && !after.contains(String(token.split(separator: ".")[1])))
        #expect(!after.contains("/me/"))
    }

    @Test func inAChannelNoAddressIsGivenOrIssued() async throws {
        let fixture = try await Self.start()
        let pin = try await Self.jane(fixture)
        for text in ["!mydata links", "!mydata"] {
            let answer = await fixture.say(text, as: "jane")
            let all = answer.map(\.text).joined(separator: "\n")
            #expect(all.contains("works only in a private message"), "\(all)")
            #expect(!all.contains("/me/") && !all.contains("map.class.example"), "\(all)")
        }
        #expect(try await fixture.sqlite.state(DataFeedLinks.stateKey(accountKey: pin.uniqueKey)) == nil)
    }

    @Test func withoutAPublicAddressTheAnswerSaysSoAndIssuesNothing() async throws {
        let fixture = try await Self.start(webMapURL: nil)
        let pin = try await Self.jane(fixture)
        #expect(
            await fixture.dm("!mydata links", as: "jane") == [
                "This bot has no public web address, so it serves no feed of your data; the operator sets one with web.public_url."
            ])
        #expect(try await fixture.sqlite.state(DataFeedLinks.stateKey(accountKey: pin.uniqueKey)) == nil)
    }

    @Test func otherWordsGetTheUsageAndChangeNothing() async throws {
        let fixture = try await Self.start()
        let pin = try await Self.jane(fixture)
        #expect(
            await fixture.dm("!mydata link please", as: "jane") == [
                "!mydata shows what is kept about you; !mydata links gives private addresses of your pin and trips."
            ])
        #expect(try await fixture.sqlite.state(DataFeedLinks.stateKey(accountKey: pin.uniqueKey)) == nil)
    }

    @Test func logoutTurnsTheAddressesOff() async throws {
        let fixture = try await Self.start()
        let pin = try await Self.jane(fixture)
        let token = try Self.token(in: await fixture.dm("!mydata links", as: "jane"))
        let bye = await fixture.dm("!logout", as: "jane").joined(separator: "\n")
        #expect(bye.contains("your data feed addresses no longer work"), "\(bye)")
        #expect(try await DataFeedLinks(store: fixture.sqlite).account(of: token) == nil)
        #expect(try await fixture.sqlite.state(DataFeedLinks.stateKey(accountKey: pin.uniqueKey)) == nil)
    }

    @Test func theExportShowsWhenAndErasureDeletesTheToken() async throws {
        let fixture = try await Self.start()
        let pin = try await Self.jane(fixture)
        let token = try Self.token(in: await fixture.dm("!mydata links", as: "jane"))
        let key = DataFeedLinks.stateKey(accountKey: pin.uniqueKey)
        #expect(KeptStateRegistry.entry(claiming: key) != nil)
        let export = try #require(
            try await StudentDataExport.make(.key(pin.uniqueKey), accounts: fixture.sqlite, store: fixture.sqlite))
        let issued = try #require(export.dataFeedIssuedAt)
        #expect(abs(issued.timeIntervalSince(fixture.now)) < 5)
        let json = String(decoding: try JSONEncoder().encode(export), as: UTF8.self)
        #expect(!json.contains(String(token.split(separator: ".")[1])))

        _ = await fixture.dm("!forget", as: "jane")
        let erased = await fixture.dm("!forget confirm", as: "jane").joined(separator: "\n")
        #expect(erased.hasPrefix("Erased:"), "\(erased)")
        #expect(try await fixture.sqlite.state(key) == nil)
        #expect(try await DataFeedLinks(store: fixture.sqlite).account(of: token) == nil)
    }
}

/// The tokens themselves, over a state store in memory: only the one issued last works, for its
/// own account, as often as it is opened, until it is revoked; anything else is refused and changes
/// nothing.
@Suite struct DataFeedTokenTests {
    @Test func aTokenWorksRepeatedlyUntilReplacedOrRevoked() async throws {
        let store = MemoryStateStore()
        let links = DataFeedLinks(store: store, now: { Date(timeIntervalSince1970: 1_800_000_000) })
        let token = try await links.issue(accountKey: "u-jane")
        for _ in 0..<3 { #expect(try await links.account(of: token) == "u-jane") }
        #expect(try await links.issuedAt(accountKey: "u-jane") == Date(timeIntervalSince1970: 1_800_000_000))

        let newer = try await links.issue(accountKey: "u-jane")
        #expect(try await links.account(of: token) == nil)
        #expect(try await links.account(of: newer) == "u-jane")

        try await links.revoke(accountKey: "u-jane")
        #expect(try await links.account(of: newer) == nil)
        #expect(try await links.issuedAt(accountKey: "u-jane") == nil)
        #expect(try await store.stateKeys(prefix: "").isEmpty)
    }

    @Test func wrongSecretsGarbageAndOtherAccountsAreRefusedAndChangeNothing() async throws {
        let store = MemoryStateStore()
        let links = DataFeedLinks(store: store)
        let jane = try await links.issue(accountKey: "u-jane")
        let tom = try await links.issue(accountKey: "u-tom")
        let before = try await store.states(prefix: "")
        let parts = jane.split(separator: ".").map(String.init)
        let tomSecret = String(tom.split(separator: ".")[1])
        var flipped = Array(parts[1])
        flipped[0] = flipped[0] == "A" ? "B" : "A"
        let refused = [
            parts[0] + "." + tomSecret,  // another account's secret
            parts[0] + "." + String(flipped),  // one character off
            parts[0] + ".",
            parts[0],
            "." + parts[1],
            jane + ".x",
            "not a token",
            "%%%." + parts[1],
            RandomID.base64URL(Array("u-nobody".utf8)) + "." + parts[1],
            String(repeating: "A", count: 600) + "." + parts[1],
            "",
        ]
        for token in refused {
            #expect(try await links.account(of: token) == nil, "\(token)")
        }
        #expect(try await store.states(prefix: "") == before)
        #expect(try await links.account(of: jane) == "u-jane")
        #expect(try await links.account(of: tom) == "u-tom")
    }

    @Test func theKeptValueIsADigestAndAnIssueTime() async throws {
        let store = MemoryStateStore()
        let links = DataFeedLinks(store: store, now: { Date(timeIntervalSince1970: 1_700_000_000.5) })
        let token = try await links.issue(accountKey: "u-jane")
        let kept = try #require(try await store.state("export/u-jane"))
        let secret = String(token.split(separator: ".")[1])
        #expect(kept == SessionToken.digest(secret) + " 1700000000500")
        #expect(DataFeedLinks.issuedAt(in: kept) == Date(timeIntervalSince1970: 1_700_000_000.5))
        #expect(DataFeedLinks.issuedAt(in: "garbage") == nil)
        // A value that is not a kept token (a damaged store) opens nothing.
        try await store.setState("export/u-jane", "short 1")
        #expect(try await links.account(of: token) == nil)
    }
}
