import BotKit
import BotTesting
import ClassKit
import Foundation
import IRCProtocol
import OnTheMapService
import Testing

@testable import OnTheMapPlugins

/// The one lookup rule (``ClassLookup``): its order (who may look, nothing typed, a nick, names, a
/// place), nicks compared under the network's casemapping, no connection round trip for a word
/// that cannot be a nick, and the visibility rule applied inside it.
@Suite struct ClassLookupTests {
    /// Commands that resolve their argument as `!where`, `!time` and `!near` do and say what came
    /// back, so that a test reads the resolver's answer through the real router.
    struct ProbePlugin: Plugin {
        let name = "probe"
        /// What the lookup rule reads (as `!where` is given it).
        let services: WherePlugin.Needs

        var commands: [Command] {
            let services = services
            return [
                Command("probewhere") { call in
                    let found = try await ClassLookup.resolve(
                        call, services, accepting: [.nick, .name], matching: .every)
                    await call.reply(Self.describe(found.found))
                },
                Command("probetime") { call in
                    let found = try await ClassLookup.resolve(
                        call, services, accepting: [.nick, .name, .place], anyoneMayAskPlaces: true)
                    await call.reply(Self.describe(found.found))
                },
                Command("probenear") { call in
                    let found = try await ClassLookup.resolve(call, services, accepting: [.nick, .place])
                    await call.reply(Self.describe(found.found))
                },
                Command("probeclass") { call in
                    _ = try ClassLookup.classAudience(call, services)
                    await call.reply("class")
                },
            ]
        }

        /// "nick Turing=Grace Hopper (Grace Hopper) + Alan Turing", "place found Tokyo…", "nobody"…
        static func describe(_ found: ClassLookup.Found) -> String {
            switch found {
            case .nothing: return "nothing"
            case .nobody: return "nobody"
            case .classmates(let nick, let named):
                var parts: [String] = []
                if let nick {
                    parts.append("nick \(nick.nick)=\(nick.name) (\(nick.pin.map(Formatting.name) ?? "no pin"))")
                }
                parts += named.map(Formatting.name)
                return parts.joined(separator: " + ")
            case .place(.found(let place, _)): return "place found \(place.displayName)"
            case .place(.offered(let offers)): return "place offered \(offers.first?.displayName ?? "")"
            case .place(.notAPlace): return "place notAPlace"
            case .place(.notFound): return "place notFound"
            }
        }
    }

    /// A class with Alan Turing's and Grace Hopper's pins, Grace logged in under the nick "[Turing]";
    /// and a bot of probe commands on the same session book.
    static func fixture(visibility: PrivacyPolicy.Visibility = .public) async throws
        -> (ClassFixture, TestBot<StudentLogin>)
    {
        let fixture = try ClassFixture(visibility: visibility)
        try await fixture.addPin(
            email: "alan@class.test", first: "Alan", last: "Turing", place: "London, UK",
            at: Coordinate(latitude: 51.5, longitude: -0.13))
        try await fixture.addPin(
            email: "grace@class.test", first: "Grace", last: "Hopper", place: "New York, USA",
            at: Coordinate(latitude: 40.71, longitude: -74.0))
        try await fixture.addStudent("paris@class.test", "Paris", "Nopin")
        _ = await fixture.logIn("[Turing]", email: "grace@class.test")
        let probe = TestBot(
            plugins: [ProbePlugin(services: WherePlugin.Needs(fixture.services))], gate: fixture.services.logins,
            clock: fixture.bot.clock)
        return (fixture, probe)
    }

    @Test func aNickComesBeforeNamesAndAPlaceAndIsComparedUnderTheNetworksCasemapping() async throws {
        let (_, probe) = try await Self.fixture()
        // rfc1459: "{turing}" is "[Turing]".
        for typed in ["[Turing]", "{TURING}"] {
            #expect(
                await probe.dm("!probetime \(typed)", as: "bob").map(\.text)
                    == ["nick \(typed)=Grace Hopper (Grace Hopper)"])
            #expect(
                await probe.dm("!probenear \(typed)", as: "bob").map(\.text)
                    == ["nick \(typed)=Grace Hopper (Grace Hopper)"])
        }
        // Someone else's nick, or no one's: not a nick.
        #expect(await probe.dm("!probetime Hopper", as: "bob").map(\.text) == ["Grace Hopper"])
    }

    @Test func namesComeBeforeAPlaceAndEveryMatchIsGivenToWhere() async throws {
        let (fixture, probe) = try await Self.fixture()
        _ = await fixture.logIn("Turing", email: "grace@class.test")
        #expect(
            await probe.dm("!probetime Turing", as: "bob").map(\.text) == ["nick Turing=Grace Hopper (Grace Hopper)"])
        #expect(
            await probe.dm("!probewhere Turing", as: "bob").map(\.text)
                == ["nick Turing=Grace Hopper (Grace Hopper) + Alan Turing"])
        // A name, not a nick: the pins of that name.
        #expect(await probe.dm("!probetime Alan Turing", as: "bob").map(\.text) == ["Alan Turing"])
        #expect(await probe.dm("!probewhere hopper", as: "bob").map(\.text) == ["Grace Hopper"])
        // No classmate of that name: a place for a command that takes places, nobody otherwise.
        #expect(await probe.dm("!probetime Tokyo", as: "bob").map(\.text).first?.hasPrefix("place found Tokyo") == true)
        #expect(await probe.dm("!probewhere Tokyo", as: "bob").map(\.text) == ["nobody"])
        // `!near` takes no names: a classmate's name is read as a place.
        #expect(await probe.dm("!probenear Alan Turing", as: "bob").map(\.text).first?.hasPrefix("place") == true)
        #expect(await probe.dm("!probetime", as: "bob").map(\.text) == ["nothing"])
    }

    @Test func aWordThatCannotBeANickCostsNoRoundTrip() async throws {
        let (_, probe) = try await Self.fixture()
        for typed in ["Alan Turing", "London, UK", "2cool", "#class", "-dash", "a*b", "x@y"] {
            let before = probe.transport.identityLookups
            _ = await probe.dm("!probetime \(typed)", as: "bob")
            #expect(probe.transport.identityLookups == before, "\(typed)")
        }
        // A word that could be a nick is asked about once.
        let before = probe.transport.identityLookups
        _ = await probe.dm("!probetime Hopper", as: "bob")
        #expect(probe.transport.identityLookups == before + 1)
    }

    static let signIn =
        "The class map is for the class: log in first with /msg MapBot !login <email> <password>, then ask again."

    @Test func whileTheClassIsForTheClassAStrangerMayAskOnlyAPlaceFoundExactly() async throws {
        let (fixture, probe) = try await Self.fixture(visibility: .class)
        // Commands about classmates refuse a stranger at once, with or without an argument.
        for asked in ["!probewhere Turing", "!probewhere", "!probenear Tokyo", "!probenear [Turing]", "!probeclass"] {
            let answer = await probe.ask(asked, as: "eve")
            #expect(answer.lines == [Self.signIn], "\(asked)")
            #expect(answer.outcome == .refused, "\(asked)")
        }
        // A command that also answers for a place: the place alone, found exactly; a nick or a name
        // is no place, and a near spelling might be a classmate's name.
        #expect(await probe.dm("!probetime Tokyo", as: "eve").map(\.text).first?.hasPrefix("place found Tokyo") == true)
        #expect(await probe.dm("!probetime", as: "eve").map(\.text) == ["nothing"])
        let before = probe.transport.identityLookups
        for asked in ["!probetime [Turing]", "!probetime Alan Turing", "!probetime Hopper", "!probetime Tokyx"] {
            #expect(await probe.ask(asked, as: "eve").lines == [Self.signIn], "\(asked)")
        }
        #expect(probe.transport.identityLookups == before, "a stranger's word is never looked up as a nick")
        // Logged in, the same questions find the classmates.
        _ = await fixture.logIn("bob", email: "paris@class.test")
        #expect(
            await probe.dm("!probetime [Turing]", as: "bob").map(\.text) == [
                "nick [Turing]=Grace Hopper (Grace Hopper)"
            ])
        #expect(await probe.dm("!probewhere Alan", as: "bob").map(\.text) == ["Alan Turing"])
        #expect(await probe.dm("!probeclass", as: "bob").map(\.text) == ["class"])
    }

    @Test func aNickWithoutAPinIsFoundWithTheStudentsName() async throws {
        let (fixture, probe) = try await Self.fixture()
        _ = await fixture.logIn("parisn", email: "paris@class.test")
        #expect(await probe.dm("!probewhere parisn", as: "bob").map(\.text) == ["nick parisn=Paris Nopin (no pin)"])
    }

    /// The plugins find a classmate by nick or name, and decide who hears an answer, only through
    /// ``ClassLookup``: no other plugin source calls the class map's search by name, the session
    /// book's or the connection's search by nick, or reads `privacy.channel_answers`. A new lookup
    /// command that skipped the rule (and its visibility check) fails here with its file.
    @Test func onlyTheLookupRuleFindsClassmatesByNickOrName() throws {
        let plugins = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/OnTheMapPlugins")
        let files = try FileManager.default.subpathsOfDirectory(atPath: plugins.path)
            .filter { $0.hasSuffix(".swift") }
        #expect(files.contains("Shared/ClassLookup.swift"), "the sources were not found at \(plugins.path)")
        var found: [String] = []
        for file in files where file != "Shared/ClassLookup.swift" {
            let text = try String(contentsOfFile: plugins.appendingPathComponent(file).path, encoding: .utf8)
            for call in ["pins(named:", "session(ofNick:", "identity(ofNick:", "channelAnswers"]
            where text.contains(call) {
                found.append("\(file): \(call)")
            }
        }
        #expect(found == [])
    }
}
