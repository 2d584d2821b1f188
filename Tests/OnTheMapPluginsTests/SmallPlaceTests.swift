import BotKit
import BotTesting
import ClassKit
import Foundation
import OnTheMapPlugins
import OnTheMapService
import Testing

/// `privacy.city_min_population` through the real router and a SQLite class: a village is stored
/// as the nearest town of at least that many people in its region (or as the region), and `!post`
/// and `!privacy` say which place the class sees.
@Suite struct SmallPlaceTests {
    /// Braga's own point and name, as the bundled gazetteer has them.
    static let braga = "Braga, Portugal"

    static func city(_ query: String) throws -> PlaceCandidate {
        try #require(SharedGazetteer.geocoder.lookup(query, limit: 10).first { $0.kind == .city })
    }

    /// `!post <village>` at the class's default level stores the nearest town of its region large
    /// enough, not the village: its name and point in the directory, in the answer and in
    /// `!where`; `!privacy city` then names that town as what others see.
    @Test func postingAVillageStoresTheNearestLargeTownOfItsRegion() async throws {
        let fixture = try await PrivacyLevelTests.loggedInJane()
        let braga = try Self.city("Braga, Portugal")
        let answer = await fixture.dm("!post Merelim | https://jane.example", as: "jane")
        // The student and the class channel see the town.
        #expect(
            answer == [
                "You are on the map: Jane Doe — \(Self.braga) (\(Formatting.coordinate(braga.coordinate))) — https://jane.example",
                "New pin: Jane Doe — \(Self.braga) — https://jane.example",
            ])
        let pin = try #require(try await PrivacyLevelTests.janesPin(fixture))
        #expect(pin.mapString == Self.braga && pin.coordinate == braga.coordinate)
        #expect(await fixture.dm("!where Jane Doe", as: "jane").first?.contains("Merelim") == false)

        #expect(
            await fixture.dm("!privacy city", as: "jane") == [
                "OK: your pin is kept at city level (the town): others see \(Self.braga)."
            ])
        let mine = await fixture.dm("!privacy", as: "jane")
        #expect(
            mine.first
                == "Your pin shows \(Self.braga) (city level (the town)); pins you post are kept at city level (the town); a place of fewer than 15,000 people shows as the nearest town of at least that size in its region."
        )
    }

    /// A village kept exactly is widened when its student chooses city level, and the answer says
    /// why the town shown is not theirs; in a region without a town that large it goes to the
    /// region, at region level, and the answer says so.
    @Test func choosingCityLevelWidensAVillageAndSaysWhy() async throws {
        let fixture = try await PrivacyLevelTests.loggedInJane()
        _ = await fixture.dm("!privacy exact", as: "jane")
        _ = await fixture.dm("!post Merelim | https://jane.example", as: "jane")
        #expect(try await PrivacyLevelTests.janesPin(fixture)?.mapString == "Merelim")
        #expect(
            await fixture.dm("!privacy city", as: "jane") == [
                "OK: your pin is now kept at city level (the town): others see \(Self.braga) (the nearest town of at least 15,000 people in your region); the finer place is no longer stored."
            ])
        #expect(
            try await PrivacyLevelTests.janesPin(fixture)?.coordinate == (try Self.city("Braga, Portugal").coordinate))

        _ = await fixture.dm("!privacy exact", as: "jane")
        _ = await fixture.dm("!post Erstfeld | https://jane.example", as: "jane")
        #expect(
            await fixture.dm("!privacy city", as: "jane") == [
                "OK: your pin is now kept at region level (state or province): others see Uri, Switzerland (your region has no town of at least 15,000 people); the finer place is no longer stored."
            ])
        #expect(try await PrivacyLevelTests.janesPin(fixture)?.mapString == "Uri, Switzerland")
    }

    /// A pin kept at a village before the minimum was set is widened by the student's
    /// `!privacy city`, though it is already at city level.
    @Test func aVillagePinFromBeforeIsWidenedByPrivacyCity() async throws {
        let fixture = try await PrivacyLevelTests.loggedInJane()
        let merelim = try Self.city("Merelim")
        try await fixture.addPin(
            email: "ana@class.test", first: "Ana", last: "Silva", place: merelim.displayName, at: merelim.coordinate)
        #expect(await fixture.logIn("ana", email: "ana@class.test").first?.hasPrefix("Welcome") == true)
        let answer = await fixture.dm("!privacy city", as: "ana")
        #expect(
            answer == [
                "OK: your pin is now kept at city level (the town): others see \(Self.braga) (the nearest town of at least 15,000 people in your region); the finer place is no longer stored."
            ])
        let pins = try await fixture.sqlite.recentLocations(limit: 10, skip: 0)
        #expect(pins.first { $0.firstName == "Ana" }?.mapString == Self.braga)
    }

    /// A trip to a village is kept at the town too, and its sentence names the town.
    @Test func aTripToAVillageIsWidened() async throws {
        let fixture = try await PrivacyLevelTests.loggedInJane()
        _ = await fixture.dm("!post Seattle, WA | https://jane.example", as: "jane")
        let (_, iso) = TripTests.lisbonDay(2, from: fixture.now)
        let answer = await fixture.dm("!post Merelim until \(iso)", as: "jane")
        #expect(answer.first?.hasPrefix("You are in \(Self.braga) until ") == true, "\(answer)")
        let trip = try #require(try await PrivacyLevelTests.janesPin(fixture)?.trip)
        let braga = try Self.city("Braga, Portugal")
        #expect(trip.mapString == Self.braga && trip.coordinate == braga.coordinate)
    }

    /// With `privacy.city_min_population: 0` a village is kept as the nearest populated place,
    /// and `!privacy` tells no rule for small places; a config reload that sets it applies to the
    /// next post at once.
    @Test func aMinimumOfZeroKeepsTheVillage() async throws {
        let fixture = try await PrivacyLevelTests.loggedInJane(PrivacyPolicy(cityMinimumPopulation: 0))
        let merelim = try Self.city("Merelim")
        _ = await fixture.dm("!post Merelim | https://jane.example", as: "jane")
        let pin = try #require(try await PrivacyLevelTests.janesPin(fixture))
        #expect(pin.mapString == merelim.displayName && pin.coordinate == merelim.coordinate)
        #expect(await fixture.dm("!privacy", as: "stranger").first?.contains("fewer than") == false)

        fixture.services.update(
            settings: ClassSettings(announceChannels: ["#class"], privacy: PrivacyPolicy(cityMinimumPopulation: 5_000)))
        _ = await fixture.dm("!post Erstfeld | https://jane.example", as: "jane")
        #expect(try await PrivacyLevelTests.janesPin(fixture)?.mapString == "Altdorf, Uri, Switzerland")
    }
}
