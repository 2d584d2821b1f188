import Foundation
import Testing

@testable import OnTheMapService

@Suite("Place vocabulary and matching rules")
struct PlaceVocabularyTests {
    let vocabulary = PlaceVocabulary.standard

    @Test("Every line of both tables is read, and no alias name is given twice")
    func tablesAreWellFormed() {
        #expect(vocabulary.problems.isEmpty, "\(vocabulary.problems)")
        #expect(vocabulary.aliases.count >= 25)
        #expect(vocabulary.nonPlacePhrases.count >= 100)
        for alias in vocabulary.aliases {
            #expect(alias.place.coordinate.isValid)
            #expect(!alias.centre.isEmpty && !alias.definition.isEmpty)
        }
    }

    @Test("A bad line is named, not read")
    func badLinesAreReported() {
        let broken = PlaceVocabulary(
            nonPlaceTable: "online\tonline\nsomething\tx\nnowhere", aliasTable: "bay area\tBay\tCA\tUS\t95\t0\t\tX\tY")
        #expect(broken.problems.count == 3, "\(broken.problems)")
        #expect(broken.nonPlace("online") == .online)
        #expect(broken.aliases.isEmpty)
    }

    @Test("An alias hides at most a small town the gazetteer knows by that name (under 50,000 people)")
    func aliasesHideNoCity() throws {
        let gazetteer = try SharedGazetteer.geocoder()
        for alias in vocabulary.aliases {
            for name in alias.names {
                for place in gazetteer.lookup(name, limit: 3) where place.match == .exact {
                    #expect(place.population < 50_000, "\"\(name)\" is also \(place.displayName)")
                }
            }
        }
    }

    @Test("A word listed as not a place is at most the name of a small town (under 50,000 people)")
    func nonPlacesHideNoCity() throws {
        let gazetteer = try SharedGazetteer.geocoder()
        for phrase in vocabulary.nonPlacePhrases.keys {
            for place in gazetteer.lookup(phrase, limit: 3) where place.match == .exact {
                #expect(place.population < 50_000, "\"\(phrase)\" is \(place.displayName), \(place.population) people")
            }
        }
    }

    @Test(
        "Non-places are recognised after the words students put before them",
        arguments: [
            ("I'm at home", NonPlace.online), ("working from home", .online), ("from the moon", .offworld),
            ("Currently remote", .online), ("N/A", .nowhere), ("n.a.", .nowhere), ("  ONLINE ", .online),
            ("???", .noName), ("🏠", .noName), ("javascript:alert(1)", .link), ("JavaScript:void(0)", .link),
            ("www.jane.dev", .link), ("jane.github.io", .link), ("https://x", .link), ("jane@class.test", .email),
            ("mailto:jane@class.test", .link),
        ])
    func nonPlaces(_ typed: String, _ kind: NonPlace) {
        #expect(vocabulary.nonPlace(typed) == kind, "\(typed)")
    }

    @Test(
        "Places are not taken for non-places",
        arguments: [
            "The Hague", "Homer, Alaska", "Nice", "St. Louis", "Washington, DC", "Hell, Norway", "Remote Island X",
            "10115", "Mars Hill, North Carolina", "Lagos",
        ])
    func placesPass(_ typed: String) {
        #expect(vocabulary.nonPlace(typed) == nil, "\(typed)")
    }

    @Test("An alias takes only its own qualifiers")
    func aliasQualifiers() {
        #expect(
            vocabulary.alias("Bay Area, CA")?.place.displayName == "San Francisco Bay Area, California, United States")
        #expect(vocabulary.alias("bay area usa")?.place.countryCode == "US")
        #expect(vocabulary.alias("Bay Area, Germany") == nil)
        #expect(
            vocabulary.alias("Ruhrgebiet, Deutschland")?.place.displayName == "Ruhr, North Rhine-Westphalia, Germany")
        #expect(vocabulary.alias("Greater London, UK")?.centre == "London")
        #expect(vocabulary.alias("London") == nil)
    }

    @Test("The gazetteer marks completions, near spellings and skipped words as approximate")
    func matchKinds() throws {
        let gazetteer = try SharedGazetteer.geocoder()
        func best(_ query: String) -> PlaceCandidate? { gazetteer.lookup(query, limit: 1).first }
        #expect(best("Seattle")?.match == .exact)
        #expect(best("Seattle, Downtown")?.match == .exact)
        #expect(best("1600 Amphitheatre Pkwy, Mountain View, CA")?.match == .exact)
        #expect(best("Seatle")?.match == .approximate)
        #expect(best("San Fran")?.match == .approximate)
        #expect(best("Smallville, Ohio")?.match == .approximate)
        #expect(best("Smallville Ohio")?.match == .approximate)
        // After a street name, "Street" is not the town of Street.
        #expect(best("221B Baker Street")?.displayName.hasPrefix("Street") != true)
    }

    @Test(
        "Near spellings never cross a scheme, punctuation or a script",
        arguments: [
            "javascript:alert(1)", "javascript:alert", "alert(1)", "Seatle!", "Seatle?", "<Seatle>", "Seatle/DROP",
            "seatle@example", "Pаris", "Seattlе", "Москвa", "Sеatle",
        ])
    func noCrossingMatches(_ query: String) throws {
        let answers = try SharedGazetteer.geocoder().lookup(query, limit: 5)
        #expect(answers.allSatisfy { $0.match == .exact }, "\(query) → \(answers.map(\.displayName))")
    }

    @Test("A near spelling is found within one script")
    func nearSpellingsWithinAScript() throws {
        let gazetteer = try SharedGazetteer.geocoder()
        let moscow = try #require(gazetteer.lookup("Москв", limit: 1).first)
        #expect(moscow.displayName == "Moscow, Russia")
        #expect(moscow.match == .approximate)
        #expect(GazetteerScript.approximableScript(of: "Saint-Étienne") == 1)
        #expect(GazetteerScript.approximableScript(of: "St. John's") == 1)
        #expect(GazetteerScript.approximableScript(of: "Pаris") == nil)
        #expect(GazetteerScript.approximableScript(of: "javascript:x") == nil)
        #expect(GazetteerScript.approximableScript(of: "東京") == 7)
    }
}
