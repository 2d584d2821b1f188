import Foundation
import Testing

@testable import OnTheMapService

/// What a pin with a trip shows, and the rules a trip must meet before any directory stores it.
@Suite("Trips")
struct TripTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let home = Coordinate(latitude: 51.51, longitude: -0.13)
    static let lisbon = Coordinate(latitude: 38.72, longitude: -9.14)

    static func pin(trip: Trip?) -> StudentLocation {
        StudentLocation(
            objectId: "p1", uniqueKey: "k1", firstName: "Ada", lastName: "Lovelace", mapString: "London",
            mediaURL: "", coordinate: home, createdAt: now, updatedAt: now, trip: trip)
    }

    /// The trip's place shows until the instant it ends (exclusive), the home place from then on,
    /// and always without a trip.
    @Test func theTripShowsUntilItsEndThenTheHomePin() {
        let trip = Trip(mapString: "Lisbon", coordinate: Self.lisbon, endsAt: Self.now.addingTimeInterval(3600))
        let pin = Self.pin(trip: trip)
        let during = pin.shown(at: Self.now.addingTimeInterval(3599))
        #expect(during == ShownPlace(mapString: "Lisbon", coordinate: Self.lisbon, isTrip: true))
        #expect(pin.activeTrip(at: Self.now) == trip)
        let atTheEnd = pin.shown(at: trip.endsAt)
        #expect(atTheEnd == ShownPlace(mapString: "London", coordinate: Self.home, isTrip: false))
        #expect(pin.activeTrip(at: trip.endsAt) == nil)
        // The lapsed trip is still the pin's: the reader decides what shows.
        #expect(pin.trip == trip)
        #expect(Self.pin(trip: nil).shown(at: Self.now).isTrip == false)
        // Saving the pin again as it is keeps the stored trip (the draft carries none).
        #expect(pin.draft.trip == nil)
    }

    /// Each bad trip gets its own sentence.
    @Test(arguments: [
        ("", lisbon, 3600.0, "The trip's place is empty."),
        ("Lisbon\u{202E}", lisbon, 3600, "The trip's place contains \(DirectoryInput.hiddenCharactersWording)."),
        ("Lisbon\r\nQUIT", lisbon, 3600, "The trip's place contains \(DirectoryInput.hiddenCharactersWording)."),
        (String(repeating: "x", count: 513), lisbon, 3600, "The trip's place is too long."),
        (
            "Lisbon", Coordinate(latitude: 91, longitude: 0), 3600,
            "The trip's coordinate is not a valid latitude/longitude."
        ),
        (
            "Lisbon", Coordinate(latitude: .nan, longitude: 0), 3600,
            "The trip's coordinate is not a valid latitude/longitude."
        ),
        ("Lisbon", lisbon, 0, "The trip's end is not in the future."),
        ("Lisbon", lisbon, -60, "The trip's end is not in the future."),
        ("Lisbon", lisbon, .infinity, "A trip can last at most 366 days."),
        ("Lisbon", lisbon, 367 * 86_400, "A trip can last at most 366 days."),
    ])
    func aBadTripIsRefusedWithASentence(place: String, coordinate: Coordinate, lasting: Double, sentence: String) {
        let trip = Trip(mapString: place, coordinate: coordinate, endsAt: Self.now.addingTimeInterval(lasting))
        #expect(throws: ServiceError.rejectedInput(sentence)) { try DirectoryInput.validateTrip(trip, now: Self.now) }
    }

    /// A good trip passes, up to the longest length; a pin's draft with a bad trip place is refused
    /// by the pin check, and an import names the record whose trip has ended.
    @Test func aGoodTripPassesAndPinsAndImportsCheckTheirTrips() async throws {
        try DirectoryInput.validateTrip(
            Trip(mapString: " Lisbon ", coordinate: Self.lisbon, endsAt: Self.now.addingTimeInterval(366 * 86_400)),
            now: Self.now)
        var draft = Self.pin(trip: nil).draft
        try DirectoryInput.validatePin(draft)
        draft.trip = Trip(mapString: " ", coordinate: Self.lisbon, endsAt: Self.now.addingTimeInterval(60))
        #expect(throws: ServiceError.rejectedInput("The trip's place is empty.")) {
            try DirectoryInput.validatePin(draft)
        }
        draft.trip = Trip(mapString: "Lisbon", coordinate: Self.lisbon, endsAt: Self.now)
        // Kept as typed (the exact level): the trip's end is what is checked.
        let asTyped = PinCoarsener(finder: nil, cityMinimumPopulation: 0)
        let records = [
            PinImportRecord(pin: await asTyped.coarsen(Self.pin(trip: nil).draft, to: .exact)),
            PinImportRecord(pin: await asTyped.coarsen(draft, to: .exact)),
        ]
        #expect(throws: ServiceError.rejectedInput("Record 2: The trip's end is not in the future.")) {
            try DirectoryInput.validateImport(records, now: Self.now)
        }
    }
}
