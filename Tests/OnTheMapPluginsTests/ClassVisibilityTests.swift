import BotKit
import BotTesting
@testable import ClassKit
import Foundation
import IRCProtocol
import OnTheMapPlugins
import Testing

@testable import OnTheMapService

/// The class map is for the class (`web.visibility: class`, the default): on IRC, lookups of other
/// students answer only students logged in with `!login`; `privacy.channel_answers: private` sends
/// a channel's answers to the asker by notice; a private `!map` gives a logged-in student a
/// single-use sign-in link for the web map.
@Suite struct ClassVisibilityTests {
    static let london = Coordinate(latitude: 51.5074, longitude: -0.1278)
    static let refusal =
        "The class map is for the class: log in first with /msg MapBot !login <email> <password>, then ask again."

    /// A class-only class with Ada's pin in London and Bob's account (no pin).
    static func classOnly(
        channelAnswers: PrivacyPolicy.ChannelAnswers = .channel, webMapURL: String? = "https://map.class.example/"
    ) async throws -> ClassFixture {
        var settings = ClassSettings(announceChannels: ["#class"], webMapURL: webMapURL)
        settings.privacy.channelAnswers = channelAnswers
        let fixture = try ClassFixture(settings: settings, visibility: .class)
        try await fixture.addPin(
            email: "ada@class.test", first: "Ada", last: "Lovelace", place: "London, UK", at: london,
            link: "https://ada.example")
        try await fixture.addStudent("bob@class.test", "Bob", "Baker")
        return fixture
    }

    /// A stranger's `!where` (by name, and by the nick of a logged-in student), `!near` and `!list`,
    /// in a channel or privately, get the one sentence on how to log in: no name, place or link.
    @Test func aStrangerLearnsNothingFromWhereNearOrList() async throws {
        let fixture = try await Self.classOnly()
        _ = await fixture.logIn("ada_", email: "ada@class.test")
        let asked: [[OutgoingText]] = [
            await fixture.say("!where Ada", as: "eve"),
            await fixture.say("!where ada_", as: "eve"),
            await fixture.bot.dm("!where Lovelace", as: "eve"),
            await fixture.say("!near London", as: "eve"),
            await fixture.bot.dm("!near ada_", as: "eve"),
            await fixture.bot.dm("!list", as: "eve"),
            await fixture.say("!list", as: "eve"),
        ]
        for answer in asked {
            #expect(answer.count == 1, "\(answer)")
            let text = answer.first?.text ?? ""
            #expect(text == Self.refusal || text == "eve: " + Self.refusal, "\(answer)")
            for secret in ["Ada", "Lovelace", "London", "ada.example"] { #expect(!text.contains(secret)) }
        }
    }

    /// The same lookups answer a student logged in with `!login`.
    @Test func aLoggedInStudentIsAnswered() async throws {
        let fixture = try await Self.classOnly()
        let welcome = await fixture.logIn("bob", email: "bob@class.test")
        #expect(welcome.first?.hasPrefix("Welcome") == true, "\(welcome)")
        let found = await fixture.say("!where Ada", as: "bob")
        #expect(found.map(\.text).first?.hasPrefix("bob: Ada Lovelace — London, UK — https://ada.example") == true)
        let near = await fixture.dm("!near London", as: "bob")
        #expect(near.contains { $0.hasPrefix("Ada Lovelace — ") }, "\(near)")
        let list = await fixture.dm("!list", as: "bob")
        #expect(list.contains { $0.hasPrefix("1. Ada Lovelace — London, UK") }, "\(list)")
        // After !logout the class is closed to him again.
        _ = await fixture.dm("!logout", as: "bob")
        #expect(await fixture.dm("!where Ada", as: "bob") == [Self.refusal])
    }

    /// With `privacy.channel_answers: private`, a lookup said in the channel is answered by notice
    /// to the asker alone; nothing of it reaches the channel.
    @Test func privateChannelAnswersGoToTheAskerByNotice() async throws {
        let fixture = try await Self.classOnly(channelAnswers: .private)
        _ = await fixture.logIn("bob", email: "bob@class.test")
        for command in ["!where Ada", "!near London"] {
            let answer = await fixture.say(command, as: "bob")
            #expect(!answer.isEmpty, "\(command)")
            #expect(answer.allSatisfy { $0.kind == .notice && $0.target == "bob" }, "\(command): \(answer)")
            #expect(answer.contains { $0.text.contains("Ada Lovelace") }, "\(command): \(answer)")
        }
        // A refusal says nothing of anyone, so it may stay in the channel.
        let stranger = await fixture.say("!where Ada", as: "eve")
        #expect(stranger.map(\.text) == ["eve: " + Self.refusal])
    }

    /// The token in the sign-in link of a private `!map` answer, or nil.
    static func token(in lines: [String]) -> String? {
        for line in lines {
            if let range = line.range(of: "https://map.class.example/signin#") {
                return String(line[range.upperBound...].prefix { !$0.isWhitespace })
            }
        }
        return nil
    }

    /// A private `!map` gives a logged-in student a link that opens once and names their account;
    /// the same link a second time, and a garbled one, open nothing. In a channel, and for a
    /// stranger, `!map` gives no link.
    @Test func aPrivateMapGivesALoggedInStudentASingleUseSignInLink() async throws {
        let fixture = try await Self.classOnly()
        let bob = try #require(try await fixture.sqlite.listAccounts().first { $0.firstName == "Bob" })
        let links = SignInLinks(store: fixture.sqlite, now: fixture.services.now)

        let stranger = await fixture.dm("!map", as: "bob")
        #expect(stranger.count == 2, "\(stranger)")
        #expect(stranger.last?.hasPrefix("Its pins are for the class: log in with /msg MapBot !login") == true)
        #expect(Self.token(in: stranger) == nil)

        _ = await fixture.logIn("bob", email: "bob@class.test")
        let inChannel = await fixture.say("!map", as: "bob")
        #expect(
            inChannel.map(\.text) == [
                "bob: The class map: https://map.class.example/ — as a picture: https://map.class.example/map.png"
            ])

        let answer = await fixture.dm("!map", as: "bob")
        #expect(
            answer.first
                == "The class map: https://map.class.example/ — as a picture: https://map.class.example/map.png")
        #expect(answer.last?.hasPrefix("Your sign-in link (it works once, for 10 minutes") == true, "\(answer)")
        let token = try #require(Self.token(in: answer))
        // Only a digest is kept, under the account's key.
        let kept = try #require(try await fixture.sqlite.state(SignInLinks.stateKey(accountKey: bob.accountKey)))
        #expect(!kept.contains(token) && !kept.contains(String(token.split(separator: ".").last ?? "")))

        // A wrong secret for the same account and garbage do not use the link up.
        let account = String(token.split(separator: ".").first ?? "")
        for garbage in ["", "x", "\(account).wrong", "\(account).", "..", String(repeating: "a", count: 5_000)] {
            #expect(try await links.redeem(garbage) == .unknown, "\(garbage.prefix(20))")
        }
        #expect(try await links.redeem(token) == .account(bob.accountKey))
        #expect(try await links.redeem(token) == .unknown)
        #expect(try await fixture.sqlite.state(SignInLinks.stateKey(accountKey: bob.accountKey)) == nil)
    }

    /// A link is good for ten minutes; a newer `!map` replaces the one before.
    @Test func aSignInLinkExpiresAndANewOneReplacesTheOld() async throws {
        let fixture = try await Self.classOnly()
        _ = await fixture.logIn("bob", email: "bob@class.test")
        let links = SignInLinks(store: fixture.sqlite, now: fixture.services.now)

        let old = try #require(Self.token(in: await fixture.dm("!map", as: "bob")))
        let new = try #require(Self.token(in: await fixture.dm("!map", as: "bob")))
        #expect(old != new)
        #expect(try await links.redeem(old) == .unknown)

        fixture.advance(seconds: 601)
        #expect(try await links.redeem(new) == .expired)
        #expect(try await links.redeem(new) == .unknown)

        let fresh = try #require(Self.token(in: await fixture.dm("!map", as: "bob")))
        fixture.advance(seconds: 590)
        #expect(try await links.redeem(fresh) != .expired)
    }

    /// On a public class a private `!map` is the plain address, as before.
    @Test func aPublicClassGivesNoSignInLink() async throws {
        let fixture = try ClassFixture(settings: ClassSettings(webMapURL: "https://map.class.example/"))
        try await fixture.addStudent("bob@class.test", "Bob", "Baker")
        _ = await fixture.logIn("bob", email: "bob@class.test")
        #expect(
            await fixture.dm("!map", as: "bob") == [
                "The class map: https://map.class.example/ — as a picture: https://map.class.example/map.png"
            ])
    }

    /// The link is built on the web map's public address, whatever its form.
    @Test func theLinkIsTheSignInPageOfTheMapsAddress() {
        for base in ["https://m.example", "https://m.example/", "https://m.example/?focus=x", "https://m.example#a"] {
            #expect(MapPlugin.signInLink(base: base, token: "t.k") == "https://m.example/signin#t.k")
        }
        #expect(
            MapPlugin.signInLink(base: "https://x.example/class/", token: "t") == "https://x.example/class/signin#t")
    }
}
