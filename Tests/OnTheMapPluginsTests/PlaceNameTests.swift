import BotKit
import BotTesting
import ClassKit
import Foundation
import Localization
import OnTheMapPlugins
import OnTheMapService
import Testing

/// Places read in each student's language: the country and its division, from the installed
/// iso-codes (the bot's shipped catalogues carry them); a city, and any place a student typed that
/// does not end in a country, as stored.
@Suite struct PlaceNameTests {
    static let french = Catalogs.bundled.phrasebook(.french)
    static let spanish = Catalogs.bundled.phrasebook(.spanish)
    static let japanese = Catalogs.bundled.phrasebook(.japanese)

    static func classWithTwoPins() async throws -> ClassFixture {
        let fixture = try await PrivacyTests.start()
        try await fixture.addPin(
            email: "jane@class.test", first: "Jane", last: "Doe", place: "Munich, Bavaria, Germany",
            at: SharedGazetteer.coordinate(of: "Munich, Germany"))
        try await fixture.addPin(
            email: "tom@class.test", first: "Tom", last: "Li", place: "Seattle, Washington, United States",
            at: SharedGazetteer.coordinate(of: "Seattle, WA"))
        return fixture
    }

    /// `!where` and `!list` write the pins' countries and divisions in the asker's language; an
    /// English reader sees them as stored.
    @Test func whereAndListNamePlacesInTheAskersLanguage() async throws {
        let fixture = try await Self.classWithTwoPins()
        _ = await fixture.dm("!lang fr", as: "bob")
        let french = await fixture.dm("!where Jane", as: "bob")
        #expect(french.count == 1 && french[0].hasPrefix("Jane Doe — Munich, Bavière, Allemagne — "), "\(french)")
        let english = await fixture.dm("!where Jane", as: "carol")
        #expect(english.count == 1 && english[0].hasPrefix("Jane Doe — Munich, Bavaria, Germany — "), "\(english)")

        _ = await fixture.dm("!lang es", as: "dan")
        let list = await fixture.dm("!list", as: "dan")
        #expect(list.contains { $0.contains("Tom Li — Seattle, Washington, Estados Unidos — ") }, "\(list)")
        // Spanish has no name of its own for Bayern: the division stays, the country is Spanish.
        #expect(list.contains { $0.contains("Jane Doe — Munich, Bavaria, Alemania — ") }, "\(list)")
    }

    /// What a student typed that ends in no known country reads as typed in every language.
    @Test func aTypedPlaceNotEndingInACountryStaysAsTyped() async throws {
        let fixture = try await PrivacyTests.start()
        try await fixture.addPin(
            email: "ann@class.test", first: "Ann", last: "Lee", place: "my couch, Bavaria",
            at: SharedGazetteer.coordinate(of: "Munich, Germany"))
        _ = await fixture.dm("!lang ja", as: "bob")
        let answer = await fixture.dm("!where Ann", as: "bob")
        #expect(answer.count == 1 && answer[0].hasPrefix("Ann Lee — my couch, Bavaria — "), "\(answer)")
    }

    /// `!near` names the start and each neighbour's place in the asker's language; the example
    /// command it offers keeps the name the gazetteer finds.
    @Test func nearNamesPlacesInTheAskersLanguage() async throws {
        let fixture = try await Self.classWithTwoPins()
        _ = await fixture.dm("!lang fr", as: "bob")
        let answer = await fixture.dm("!near Seattle", as: "bob")
        #expect(answer.first?.contains("Seattle, Washington, États-Unis") == true, "\(answer)")
        #expect(
            answer.contains { $0.hasPrefix("Tom Li — ") && $0.contains("— Seattle, Washington, États-Unis — ") },
            "\(answer)")
        #expect(
            answer.contains { $0.hasPrefix("Jane Doe — ") && $0.contains("— Munich, Bavière, Allemagne — ") },
            "\(answer)")
    }

    /// `!time` names a place in the asker's language.
    @Test func timeNamesThePlaceInTheAskersLanguage() async throws {
        let fixture = try await Self.classWithTwoPins()
        _ = await fixture.dm("!lang ja", as: "bob")
        let answer = await fixture.dm("!time Munich", as: "bob")
        #expect(answer.count == 1 && answer[0].contains("Munich, バイエルン, ドイツ"), "\(answer)")
        let pin = await fixture.dm("!time Jane", as: "bob")
        #expect(pin.count == 1 && pin[0].contains("Munich, バイエルン, ドイツ"), "\(pin)")
    }

    /// `!map <place>` repeats the place in the asker's language.
    @Test func mapRepeatsThePlaceInTheAskersLanguage() async throws {
        let fixture = try ClassFixture(settings: ClassSettings(webMapURL: "https://map.class.example/"))
        _ = await fixture.dm("!lang es", as: "bob")
        let answer = await fixture.dm("!map Lyon, France", as: "bob")
        #expect(answer.first?.contains("Lyon, Francia") == true, "\(answer)")
        // The link focuses on the place as typed.
        #expect(answer.first?.contains("focus=Lyon") == true, "\(answer)")
    }

    /// The budget of a place holds after translation: a longer name in the reader's language is cut
    /// to the same number of bytes.
    @Test func theByteBudgetHoldsAfterTranslation() {
        let stored = String(repeating: "Neustadt ", count: 8) + "an der Weinstraße, Rhineland-Palatinate, Germany"
        let english = Formatting.place(stored, phrases: Catalogs.bundled.phrasebook(.english))
        let japanese = Formatting.place(stored, phrases: Self.japanese)
        #expect(english == Formatting.place(stored))
        #expect(english.utf8.count <= 96 && japanese.utf8.count <= 96)
        #expect(japanese.hasSuffix("…"))
        #expect(Formatting.place("Munich, Bavaria, Germany", phrases: Self.japanese) == "Munich, バイエルン, ドイツ")
        // Control characters and extra spaces go before the name is looked up.
        #expect(
            Formatting.place("  Munich,\u{3}  Bavaria, \u{2}Germany ", phrases: Self.french)
                == "Munich, Bavière, Allemagne")
        #expect(Formatting.place(" \u{3} ", phrases: Self.french) == "(no place)")
    }

    /// Every country of the offline gazetteer is known by the name the gazetteer writes, except
    /// those iso-codes lists under no code (Kosovo).
    @Test func everyGazetteerCountryIsKnownByItsName() throws {
        let text = try String(contentsOf: GazetteerGeocoder.bundledFile(), encoding: .utf8)
        var countries: [(code: String, name: String)] = []
        for line in text.split(separator: "\n") where line.hasPrefix("C\t") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            countries.append((String(fields[1]), String(fields[fields.count - 1])))
        }
        #expect(countries.count == 250)
        let names = Catalogs.bundled.placeNames
        let unknown = countries.filter { names.countryCode(named: $0.name) != $0.code }
        #expect(unknown.map(\.code) == ["XK"], "\(unknown)")
    }
}

/// The announcer waits for its first round, which the crowded parallel pass can hold back: its
/// tests run in the announcer's suite.
extension AnnounceTests {
    /// The announcer names a pin saved elsewhere in each channel's language: the English channel
    /// hears the place as stored, the Spanish one its country in Spanish.
    @Test func theAnnouncerNamesPlacesInEachChannelsLanguage() async throws {
        let settings = ClassSettings(
            announceChannels: ["#class", "#clase"], languages: ChannelLanguages(byChannel: ["#clase": .spanish]))
        let fixture = try ClassFixture(settings: settings, replacing: Self.fastAnnouncer)
        try await Self.withAnnouncer(fixture) {
            try await Self.waitUntilStarted(fixture)
            try await fixture.addPin(
                email: "new@class.test", first: "New", last: "Comer", place: "Munich, Bavaria, Germany",
                at: SharedGazetteer.coordinate(of: "Munich, Germany"), link: "https://new.example")
            let english = try await Self.channelLines(fixture, "#class", count: 1)
            let spanish = try await Self.channelLines(fixture, "#clase", count: 1)
            #expect(english == ["New pin: New Comer — Munich, Bavaria, Germany — https://new.example"])
            #expect(
                spanish == [
                    PlaceNameTests.spanish("announce.new", ["name": "New Comer"])
                        + " — Munich, Bavaria, Alemania — https://new.example"
                ])
        }
    }
}
