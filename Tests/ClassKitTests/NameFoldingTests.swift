@testable import ClassKit
import Foundation
import OnTheMapService
import Testing

/// `!where` folds each pin's names once, when it is stored; plain ASCII takes a fast path that must
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
        let store = PinStore([pin])
        for query in ["jose", "ALVAREZ", "José Álvarez", "alv"] {
            let found = NameMatcher(query: query).matchingSlots(in: store).map { store.pin(at: $0).uniqueKey }
            #expect(found == ["k1"], "\(query)")
        }
        #expect(NameMatcher(query: "al").matchingSlots(in: store).isEmpty)
    }
}

/// `!where`'s rule said with plain strings: each pin's names folded, compared whole, then by
/// prefix for a query of 3 letters or more. The store's byte-level matching must agree with it.
struct FoldedNameReference {
    let first: String
    let last: String
    let full: String

    init(_ pin: StudentLocation) {
        first = NameMatcher.fold(pin.firstName)
        last = NameMatcher.fold(pin.lastName)
        full = NameMatcher.fold("\(pin.firstName) \(pin.lastName)")
    }

    static func matches(_ query: String, in pins: [StudentLocation]) -> [StudentLocation] {
        let folded = NameMatcher.fold(query)
        guard !folded.isEmpty else { return [] }
        let named = pins.map { (pin: $0, name: FoldedNameReference($0)) }
        let exact = named.filter { folded == $0.name.first || folded == $0.name.last || folded == $0.name.full }
        if !exact.isEmpty || folded.count < 3 { return exact.map(\.pin) }
        return named.filter { $0.name.full.hasPrefix(folded) || $0.name.last.hasPrefix(folded) }.map(\.pin)
    }
}
