import Foundation
import Testing

@testable import Localization

/// Languages are found from what people type and what browsers send, count by CLDR's plural rules,
/// and write numbers and dates their own way.
@Suite struct LanguageFormattingTests {
    /// Tags are read in any case and with `_`; a bare language finds its one regional catalogue;
    /// anything else (an unknown language, a malformed tag) is nothing.
    @Test func tagsAreReadAsPeopleTypeThem() {
        #expect(Language(tag: "es") == .spanish)
        #expect(Language(tag: "PT_br") == .brazilianPortuguese)
        #expect(Language(tag: "pt") == .brazilianPortuguese)
        #expect(Language(tag: "JA") == .japanese)
        #expect(Language(tag: "xx") == nil)
        #expect(Language(tag: "") == nil)
        #expect(Language(tag: "es;DROP") == nil)
        #expect(Language(tag: "e\u{0}s") == nil)
        #expect(Language(tag: String(repeating: "a", count: 200)) == nil)
    }

    /// A browser's `Accept-Language` picks the best weighted language the bot has; a regional
    /// variant falls back to its language; `q=0` refuses one.
    @Test func acceptLanguageIsReadByWeight() {
        #expect(Language(acceptLanguage: "fr-CA,fr;q=0.9,en;q=0.8") == .french)
        #expect(Language(acceptLanguage: "nl-NL, de;q=0.7, en;q=0.9") == .english)
        #expect(Language(acceptLanguage: "es-MX") == .spanish)
        #expect(Language(acceptLanguage: "pt-PT;q=0.5, ja;q=0.4") == .brazilianPortuguese)
        #expect(Language(acceptLanguage: "de;q=0, fr;q=0.1") == .french)
        #expect(Language(acceptLanguage: "nl, sv") == nil)
        #expect(Language(acceptLanguage: "*") == nil)
    }

    /// One, many and other by CLDR, not "1 or not 1": French and Portuguese count 0 as one,
    /// Spanish, French and Portuguese say "de" after whole millions (many), Japanese has one form.
    @Test func pluralCategoriesFollowCLDR() {
        #expect(PluralRule(language: .english).category(of: 0) == .other)
        #expect(PluralRule(language: .english).category(of: 1) == .one)
        #expect(PluralRule(language: .french).category(of: 0) == .one)
        #expect(PluralRule(language: .french).category(of: 1) == .one)
        #expect(PluralRule(language: .french).category(of: 2) == .other)
        #expect(PluralRule(language: .french).category(of: 1_000_000) == .many)
        #expect(PluralRule(language: .spanish).category(of: 0) == .other)
        #expect(PluralRule(language: .spanish).category(of: 2_000_000) == .many)
        #expect(PluralRule(language: .spanish).category(of: 2_000_001) == .other)
        #expect(PluralRule(language: .brazilianPortuguese).category(of: 0) == .one)
        #expect(PluralRule(language: .german).category(of: 1_000_000) == .other)
        #expect(PluralRule(language: .japanese).category(of: 1) == .other)
    }

    /// Numbers have each language's separators.
    @Test func numbersHaveTheLanguagesSeparators() {
        let catalogs = Catalogs(source: MessageCatalog(language: .english, messages: [:]), translations: [:])
        func written(_ language: Language, _ value: Double) -> String {
            catalogs.phrasebook(language).number(value, fractionDigits: 1)
        }
        #expect(written(.english, 1234.5) == "1,234.5")
        #expect(written(.french, 1234.5) == "1\u{202F}234,5")
        #expect(written(.german, 1234.5) == "1.234,5")
        #expect(written(.brazilianPortuguese, 1234.5) == "1.234,5")
        #expect(written(.japanese, 1234.5) == "1,234.5")
        #expect(catalogs.phrasebook(.spanish).number(12_345) == "12.345")
    }

    /// Dates and times are written the language's way, on the 24-hour clock.
    @Test func datesAndTimesAreTheLanguagesOwn() {
        let catalogs = Catalogs(source: MessageCatalog(language: .english, messages: [:]), translations: [:])
        #expect(catalogs.phrasebook(.english).shortDate(day: 24, month: 12) == "24 Dec")
        #expect(catalogs.phrasebook(.french).shortDate(day: 24, month: 12) == "24 déc.")
        #expect(catalogs.phrasebook(.japanese).shortDate(day: 24, month: 12) == "12月24日")
        #expect(catalogs.phrasebook(.german).time(hour: 21, minute: 5) == "21:05")
        #expect(catalogs.phrasebook(.english).time(hour: 8, minute: 5) == "08:05")
        #expect(catalogs.phrasebook(.spanish).weekday(3) == "martes")
        #expect(catalogs.phrasebook(.german).weekday(3) == "Dienstag")
    }

    /// A counted message takes the form the number calls for, with the number written the
    /// language's way; a placeholder without a value stays visible; an unknown key is itself.
    @Test func messagesAreFilledAndCounted() throws {
        let source = try MessageCatalog(
            language: .english,
            json: Data(
                #"{"n": {"comment": "c", "plural": "count", "one": "{count} pin in {place}", "other": "{count} pins in {place}"}}"#
                    .utf8), source: nil)
        let french = try MessageCatalog(
            language: .french,
            json: Data(
                #"{"n": {"one": "{count} épingle à {place}", "many": "{count} d’épingles à {place}", "other": "{count} épingles à {place}"}}"#
                    .utf8),
            source: source)
        let catalogs = Catalogs(source: source, translations: [.french: french])
        #expect(catalogs.phrasebook(.english)("n", ["count": 1, "place": "Lyon"]) == "1 pin in Lyon")
        #expect(catalogs.phrasebook(.english)("n", ["count": 1200, "place": "Lyon"]) == "1,200 pins in Lyon")
        #expect(catalogs.phrasebook(.french)("n", ["count": 0, "place": "Lyon"]) == "0 épingle à Lyon")
        #expect(
            catalogs.phrasebook(.french)("n", ["count": 1_000_000, "place": "Lyon"])
                == "1\u{202F}000\u{202F}000 d’épingles à Lyon")
        #expect(catalogs.phrasebook(.french)("n", ["count": 3]) == "3 épingles à {place}")
        #expect(catalogs.phrasebook(.german)("missing.key") == "missing.key")
    }
}
