import Foundation
@testable import Localization
import Testing

/// Place names in the reader's language, from the iso-codes files installed on this machine.
@Suite struct PlaceNamesTests {
    static let installed = PlaceNames(
        jsonFolder: PlaceNames.systemJSONFolder, localeFolder: PlaceNames.systemLocaleFolder)

    /// Every file of the installed iso-codes was read.
    @Test func theInstalledFilesAreAllRead() {
        #expect(Self.installed.problems == [])
        let counts = Self.installed.counts
        #expect(counts.countries == 249)
        #expect(counts.divisions > 3000)
        for language in Language.supported where language != .english {
            #expect(counts.translations[language, default: 0] > 200, "\(language)")
        }
    }

    /// The country at the end and the division before it are in the reader's language; the city
    /// stays as stored. The gazetteer's English division names are found through the `en`
    /// catalogue ("Bavaria" is ISO's "Bayern").
    @Test func aGazetteerNameReadsInEachLanguage() {
        let names = Self.installed
        #expect(names.translate("Munich, Bavaria, Germany", into: .french) == "Munich, Bavière, Allemagne")
        #expect(names.translate("Munich, Bavaria, Germany", into: .german) == "Munich, Bayern, Deutschland")
        #expect(names.translate("Munich, Bavaria, Germany", into: .japanese) == "Munich, バイエルン, ドイツ")
        // Spanish has no name for Bayern: the division stays as stored, the country does not.
        #expect(names.translate("Munich, Bavaria, Germany", into: .spanish) == "Munich, Bavaria, Alemania")
        #expect(
            names.translate("Seattle, Washington, United States", into: .spanish)
                == "Seattle, Washington, Estados Unidos")
        #expect(names.translate("Seattle, Washington, United States", into: .japanese) == "Seattle, ワシントン, 米国")
        #expect(
            names.translate("Seattle, Washington, United States", into: .brazilianPortuguese)
                == "Seattle, Washington, Estados Unidos")
        // A region or a country alone.
        #expect(names.translate("Bavaria, Germany", into: .french) == "Bavière, Allemagne")
        #expect(names.translate("Japan", into: .japanese) == "日本")
    }

    /// English readers get the stored text, whatever it is.
    /// A class that reads English only never reads the iso-codes files: the names are asked for the
    /// first time a place is named in another language.
    @Test func placeNamesAreReadOnlyForAnotherLanguage() throws {
        let asked = Counter()
        let catalogs = try Catalogs(
            folder: Catalogs.bundledFolder(),
            placeNamesOnFirstUse: {
                asked.add()
                return .installed
            })
        #expect(catalogs.phrasebook(.english).place("Munich, Bavaria, Germany") == "Munich, Bavaria, Germany")
        #expect(asked.value == 0)
        #expect(catalogs.phrasebook(.french).place("Munich, Bavaria, Germany") == "Munich, Bavière, Allemagne")
        #expect(asked.value == 1)
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    @Test func englishIsUnchanged() {
        for text in ["Munich, Bavaria, Germany", "munich, bayern, germany", "Tokyo, Japan", "my couch"] {
            #expect(Self.installed.translate(text, into: .english) == text)
        }
    }

    /// A name whose last part is no known country stays exactly as typed, even when an earlier part
    /// is a country or a division.
    @Test func aNameNotEndingInACountryIsUnchanged() {
        for text in [
            "Munich, Bavaria, Atlantis", "Germany, somewhere", "my couch", "", "Bavaria", "Paris, France!",
            "Seattle, Washington", "Munich,Bavaria,Germany",
        ] {
            for language in Language.supported {
                #expect(Self.installed.translate(text, into: language) == text, "\(text) in \(language)")
            }
        }
    }

    /// A name a student typed is matched without case, accents or hyphens; only the division of the
    /// named country is translated ("Georgia" before "United States" is no country).
    @Test func typedNamesAreMatchedLoosely() {
        let names = Self.installed
        #expect(names.translate("munich, BAYERN, germany", into: .french) == "munich, Bavière, Allemagne")
        #expect(names.translate("Paris, Ile de France, France", into: .japanese) == "Paris, イルドフランス, フランス")
        #expect(names.translate("Atlanta, Georgia, United States", into: .french) == "Atlanta, Géorgie, États-Unis")
        // A division of another country is not translated.
        #expect(names.translate("Lyon, Bavaria, France", into: .french) == "Lyon, Bavaria, France")
    }

    /// The gazetteer's country names that ISO writes otherwise are known too, and ISO's inverted
    /// names read in order.
    @Test func theGazetteersCountryNamesAreKnown() {
        let names = Self.installed
        // iso-codes has no English name for Moskva: the division stays as stored.
        #expect(names.translate("Moscow, Moscow, Russia", into: .french) == "Moscow, Moscow, Fédération de Russie")
        #expect(
            names.translate("Amsterdam, North Holland, The Netherlands", into: .spanish).hasSuffix(", Países Bajos"))
        #expect(names.translate("Saint-Denis, Reunion", into: .french) == "Saint-Denis, Île de la Réunion")
        #expect(names.translate("Abidjan, Ivory Coast", into: .spanish) == "Abidjan, Costa de Marfíl")
        #expect(names.translate("Seoul, South Korea", into: .spanish) == "Seoul, República de Corea")
        // A country whose name has a comma.
        #expect(
            names.translate("Kralendijk, Bonaire, Saint Eustatius and Saba", into: .japanese)
                == "Kralendijk, ボネール、シントユースタティウス及びサバ")
    }

    /// ISO's inverted names are put in order when they end in a linking word, else passed over.
    @Test func invertedNamesReadInOrder() {
        #expect(PlaceNames.inOrder("Russie, Fédération de") == "Fédération de Russie")
        #expect(PlaceNames.inOrder("Iran, République islamique d'") == "République islamique d'Iran")
        #expect(PlaceNames.inOrder("Coreia, República da") == "República da Coreia")
        #expect(PlaceNames.inOrder("Korea, Republik") == nil)
        #expect(PlaceNames.inOrder("Bonaire, Saint-Eustache et Saba") == nil)
        #expect(PlaceNames.inOrder("Allemagne") == "Allemagne")
    }

    /// Without the files nothing is translated, and each missing file is named; nothing stops.
    @Test func missingFilesLeaveNamesAsStored() {
        let nowhere = URL(fileURLWithPath: "/nowhere/iso-codes")
        let none = PlaceNames(jsonFolder: nowhere, localeFolder: nowhere)
        #expect(none.problems.count == 2)
        #expect(none.problems.allSatisfy { $0.hasPrefix("/nowhere/iso-codes/iso_3166-") })
        #expect(none.translate("Munich, Bavaria, Germany", into: .french) == "Munich, Bavaria, Germany")

        // The lists but no catalogues: every catalogue is named, no name changes.
        let noCatalogues = PlaceNames(jsonFolder: PlaceNames.systemJSONFolder, localeFolder: nowhere)
        #expect(noCatalogues.problems.count == 11)
        #expect(noCatalogues.problems.contains { $0.hasPrefix("/nowhere/iso-codes/pt_BR/LC_MESSAGES/iso_3166-1.mo") })
        #expect(noCatalogues.translate("Munich, Bavaria, Germany", into: .french) == "Munich, Bavaria, Germany")
    }

    /// A broken catalogue is named and left out; the other languages still read theirs.
    @Test func aBrokenCatalogueIsLeftOut() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("locale-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        for language in ["en", "es", "fr", "de", "pt_BR", "ja"] {
            let messages = folder.appendingPathComponent("\(language)/LC_MESSAGES")
            try FileManager.default.createDirectory(at: messages, withIntermediateDirectories: true)
            for domain in ["iso_3166-1", "iso_3166-2"] where language != "en" || domain == "iso_3166-2" {
                let target = messages.appendingPathComponent("\(domain).mo")
                if language == "fr" && domain == "iso_3166-1" {
                    try Data("this is text, not a gettext catalogue".utf8).write(to: target)
                } else {
                    try FileManager.default.createSymbolicLink(
                        at: target,
                        withDestinationURL: PlaceNames.systemLocaleFolder.appendingPathComponent(
                            "\(language)/LC_MESSAGES/\(domain).mo"))
                }
            }
        }
        let names = PlaceNames(jsonFolder: PlaceNames.systemJSONFolder, localeFolder: folder)
        #expect(
            names.problems == [
                "\(folder.path)/fr/LC_MESSAGES/iso_3166-1.mo is not a gettext catalogue (no magic number 0x950412de)"
            ])
        // French keeps its divisions; its countries stay as stored.
        #expect(names.translate("Munich, Bavaria, Germany", into: .french) == "Munich, Bavière, Germany")
        #expect(names.translate("Munich, Bavaria, Germany", into: .german) == "Munich, Bayern, Deutschland")
    }

    /// The phrasebook writes places with its catalogues' names, in its language.
    @Test func thePhrasebookWritesPlacesInItsLanguage() throws {
        let catalogs = try Catalogs(folder: Catalogs.bundledFolder(), placeNames: Self.installed)
        #expect(catalogs.phrasebook(.french).place("Munich, Bavaria, Germany") == "Munich, Bavière, Allemagne")
        #expect(catalogs.phrasebook(.english).place("Munich, Bavaria, Germany") == "Munich, Bavaria, Germany")
        let plain = try Catalogs(folder: Catalogs.bundledFolder())
        #expect(plain.phrasebook(.french).place("Munich, Bavaria, Germany") == "Munich, Bavaria, Germany")
    }
}
