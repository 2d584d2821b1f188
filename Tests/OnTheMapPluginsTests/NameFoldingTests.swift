import Foundation
import OnTheMapService
import Testing

@testable import OnTheMapPlugins

/// `!where` folds names once per class-map download; plain ASCII takes a fast path that must
/// agree with the Unicode folding.
@Suite struct NameFoldingTests {
    static func unicodeFold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .split(whereSeparator: { $0.isWhitespace || $0 == "." }).joined(separator: " ")
    }

    @Test(arguments: ["Ada Lovelace", "  GRACE   hopper ", "J.R.R. Tolkien", "o'Brien-Smith", "x", "", "A.  B"])
    func asciiFastPathAgreesWithUnicodeFolding(_ name: String) {
        #expect(NameMatcher.fold(name) == Self.unicodeFold(name))
    }

    @Test func accentsAndWidthAreFolded() {
        #expect(NameMatcher.fold("José ÁLVAREZ") == "jose alvarez")
        #expect(NameMatcher.fold("Ｚｏë") == "zoe")
    }

    @Test func foldedNamesMatchLikeTheQuery() {
        let pin = StudentLocation(
            objectId: "1", uniqueKey: "k1", firstName: "José", lastName: "Álvarez", mapString: "Madrid",
            mediaURL: "https://jose.example", coordinate: Coordinate(latitude: 40.4, longitude: -3.7),
            createdAt: Date(), updatedAt: Date())
        let named = [(pin: pin, name: NameMatcher.FoldedName(pin))]
        for query in ["jose", "ALVAREZ", "José Álvarez", "alv"] {
            #expect(NameMatcher(query: query).matches(in: named).map(\.uniqueKey) == ["k1"], "\(query)")
        }
        #expect(NameMatcher(query: "al").matches(in: named).isEmpty)
    }
}
