import BotKit
import BotTesting
import ClassKit
import Foundation
import OnTheMapPlugins
import OnTheMapService
import Testing

/// A channel anyone may join (no key, not invite-only) hears students' names only while the class
/// is for the class (`web.visibility: class`) and `privacy.open_channel` is `names`, the default:
/// announcements and channel answers leave out places and links, and a logged-in asker gets the
/// full answer by notice. `open_channel: full` and a public class say everything.
@Suite struct OpenChannelTests {
    static let london = Coordinate(latitude: 51.5074, longitude: -0.1278)

    /// A class announcing in the open `#class` and the keyed `#keyed`, with Ada's pin in London and
    /// Bob's account; `visibility` and `openChannel` as a test needs.
    static func fixture(
        visibility: PrivacyPolicy.Visibility = .class, openChannel: PrivacyPolicy.OpenChannel = .names,
        replacing: (ClassServices) -> [any Plugin] = { _ in [] }
    ) async throws -> ClassFixture {
        var settings = ClassSettings(announceChannels: ["#class", "#keyed"])
        settings.privacy.openChannel = openChannel
        let fixture = try ClassFixture(settings: settings, visibility: visibility, replacing: replacing)
        fixture.bot.transport.setOpenChannel("#class")
        try await fixture.addPin(
            email: "ada@class.test", first: "Ada", last: "Lovelace", place: "London, UK", at: london,
            link: "https://ada.example")
        try await fixture.addStudent("bob@class.test", "Bob", "Baker")
        return fixture
    }

    /// Whether a line gives away Ada's place or link.
    static func givesAwayAda(_ text: String) -> Bool {
        text.contains("London") || text.contains("ada.example")
    }

    /// The announcer names a new pin's student in the open channel, without place or link, and
    /// says everything in the keyed one.
    @Test func theAnnouncerNamesOnlyInAnOpenChannel() async throws {
        let fixture = try await Self.fixture(replacing: AnnounceTests.fastAnnouncer)
        try await AnnounceTests.withAnnouncer(fixture) {
            try await AnnounceTests.waitUntilStarted(fixture)
            try await AnnounceTests.settle(fixture)
            try await fixture.addPin(
                email: "new@class.test", first: "New", last: "Comer", place: "Lisbon",
                at: Coordinate(latitude: 38.72, longitude: -9.14), link: "https://new.example")
            #expect(
                try await AnnounceTests.channelLines(fixture, "#class", count: 1) == [
                    "New Comer is on the map — ask me privately, or see the class map"
                ])
            #expect(
                try await AnnounceTests.channelLines(fixture, "#keyed", count: 1) == [
                    "New pin: New Comer — Lisbon — https://new.example"
                ])
        }
    }

    /// The announcement `!post` makes at once names the student only in the open channel.
    @Test func aPostIsAnnouncedByNameInAnOpenChannel() async throws {
        let fixture = try await Self.fixture()
        _ = await fixture.logIn("bob", email: "bob@class.test")
        let saved = await fixture.dmLines("!post Paris, France | https://bob.example", as: "bob")
        let open = saved.filter { $0.target == "#class" }.map(\.text)
        #expect(open == ["Bob Baker is on the map — ask me privately, or see the class map"], "\(saved)")
        let keyed = saved.filter { $0.target == "#keyed" }.map(\.text)
        #expect(keyed.count == 1 && keyed[0].hasPrefix("New pin: Bob Baker — Paris") == true, "\(saved)")
        #expect(keyed.first?.hasSuffix("https://bob.example") == true, "\(saved)")
    }

    /// A lookup asked in the open channel names the students there, and the logged-in asker gets
    /// the places and links by notice; in the keyed channel the answer is the full one.
    @Test func aChannelLookupNamesOnlyAndTellsTheAskerByNotice() async throws {
        let fixture = try await Self.fixture()
        _ = await fixture.logIn("bob", email: "bob@class.test")
        for command in ["!where Ada", "!near London", "!time Ada"] {
            let answer = await fixture.say(command, as: "bob")
            let channel = answer.filter { $0.target == "#class" }.map(\.text)
            #expect(
                channel == [
                    "bob: Ada Lovelace — I sent you where by notice (this channel is open to anyone, so places stay out of it)."
                ], "\(command): \(answer)")
            let notices = answer.filter { $0.kind == .notice && $0.target == "bob" }.map(\.text)
            #expect(notices.contains { $0.contains("Ada Lovelace") && $0.contains("London") }, "\(command): \(answer)")
            #expect(answer.count == channel.count + notices.count, "\(command): \(answer)")
        }
        let keyed = await fixture.say("!where Ada", in: "#keyed", as: "bob")
        #expect(keyed.map(\.text) == ["bob: Ada Lovelace — London, UK — https://ada.example — just now"])
    }

    /// `privacy.open_channel: full` says everything in an open channel, as before.
    @Test func openChannelFullSaysEverything() async throws {
        let fixture = try await Self.fixture(openChannel: .full)
        _ = await fixture.logIn("bob", email: "bob@class.test")
        let found = await fixture.say("!where Ada", as: "bob")
        #expect(found.map(\.text) == ["bob: Ada Lovelace — London, UK — https://ada.example — just now"])
        let saved = await fixture.dmLines("!post Paris, France | https://bob.example", as: "bob")
        let open = saved.filter { $0.target == "#class" }.map(\.text)
        #expect(open.count == 1 && open[0].hasPrefix("New pin: Bob Baker — Paris"), "\(saved)")
    }

    /// A public class withholds nothing: it is public anyway.
    @Test func aPublicClassWithholdsNothing() async throws {
        let fixture = try await Self.fixture(visibility: .public)
        let found = await fixture.say("!where Ada", as: "eve")
        #expect(found.map(\.text) == ["eve: Ada Lovelace — London, UK — https://ada.example — just now"])
        #expect(!found.contains { $0.kind == .notice })
    }

    /// Nothing of Ada's place reaches the open channel from any lookup a logged-in student asks
    /// there, `!awake` and `!overlap` included.
    @Test func noLookupGivesAPlaceAwayInAnOpenChannel() async throws {
        let fixture = try await Self.fixture()
        _ = await fixture.logIn("bob", email: "bob@class.test")
        _ = await fixture.dm("!post Paris, France | https://bob.example", as: "bob")
        for command in [
            "!where Ada", "!where Lovelace", "!near London", "!near Ada", "!time Ada", "!time", "!awake",
            "!overlap Ada", "!list",
        ] {
            let answer = await fixture.say(command, as: "bob")
            let channel = answer.filter { $0.target == "#class" }.map(\.text)
            #expect(!channel.contains(where: Self.givesAwayAda), "\(command): \(channel)")
            #expect(!channel.contains { $0.contains("Paris") || $0.contains("bob.example") }, "\(command): \(channel)")
        }
    }

    /// `!refresh` tells the class's size and activity: a stranger is refused while the class is for
    /// the class, a logged-in student is answered.
    @Test func refreshIsRefusedToAStrangerInAClassOnlyClass() async throws {
        let fixture = try await Self.fixture()
        #expect(
            await fixture.say("!refresh", as: "eve").map(\.text) == [
                "eve: " + ClassVisibilityTests.refusal
            ])
        _ = await fixture.logIn("bob", email: "bob@class.test")
        let answer = await fixture.say("!refresh", in: "#keyed", as: "bob").map(\.text)
        #expect(answer.first?.hasPrefix("bob: Refreshed: 1 post on the map") == true, "\(answer)")
    }
}
