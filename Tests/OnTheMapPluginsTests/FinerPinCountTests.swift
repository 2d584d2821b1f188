import ClassKit
import Foundation
import OnTheMapService
import Testing

/// The count of pins kept finer than their students' level, which the bot logs at start and
/// `!status` shows with the command that re-stores them.
@Suite struct FinerPinCountTests {
    /// A pin stored at a street (as before the class's privacy rules, or imported at `exact`) is
    /// counted; a pin `!post` stored at the class default is not, nor a street pin whose student
    /// chose `exact` with `!privacy` where the class allows it.
    @Test func countsPinsFinerThanTheirStudentsLevel() async throws {
        let fixture = try ClassFixture()
        let seattle = try await SharedGazetteer.coordinate(of: "Seattle")
        let street = Coordinate(latitude: seattle.latitude + 0.0123, longitude: seattle.longitude - 0.0071)
        try await fixture.addPin(
            email: "old@class.test", first: "Old", last: "Pin", place: "512 Pine Street, Seattle", at: street)
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        _ = await fixture.logIn("jane", email: "jane@class.test")
        _ = await fixture.dm("!post Seattle", as: "jane")
        _ = await fixture.dm("!link https://jane.example.org", as: "jane")
        let chooser = try await fixture.addPin(
            email: "exact@class.test", first: "Exact", last: "Choice", place: "1 Main Street, Seattle",
            at: Coordinate(latitude: street.latitude + 0.01, longitude: street.longitude))
        try await fixture.services.privacyChoices.set(.exact, for: chooser.uniqueKey)
        _ = try await fixture.services.classMap.refresh()

        let count = try await fixture.services.finerPinCount()
        #expect(count == FinerPinCount(finer: 1, total: 3))
        let sentence = try #require(count.sentence(default: .city))
        #expect(sentence.hasPrefix("1 of 3 pins are kept finer than their students' level (privacy.default: city)"))
        #expect(sentence.contains("pins coarsen"))
        #expect(FinerPinCount(finer: 0, total: 3).sentence(default: .city) == nil)
    }
}
