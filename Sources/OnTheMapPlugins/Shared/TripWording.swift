import ClassKit
import Foundation
import OnTheMapService
import Localization

/// How a trip is said: "Jane Doe is in Lisbon until 24 Dec" (`!where`, the announcer, `!post … until`).
enum TripWording {
    /// The last day of `trip` in its place's zone (the day before the one its end starts), as the
    /// gazetteer finds the zone near the trip's point; in UTC when no single zone is known.
    static func lastDay(of trip: Trip, zones: PinTimeZones) async -> LocalDay {
        trip.lastDay(in: await zones.finder?.timeZone(near: trip.coordinate).timeZone)
    }

    /// "Jane Doe is in Lisbon until 24 Dec".
    static func away(_ pin: StudentLocation, trip: Trip, lastDay: LocalDay, phrases: Phrasebook) -> String {
        phrases(
            "trip.away",
            [
                "name": Formatting.name(pin), "place": Formatting.place(trip.mapString, phrases: phrases),
                "day": phrases.shortDate(day: lastDay.day, month: lastDay.month),
            ])
    }

    /// "Jane Doe is in Lisbon until 24 Dec" while the pin's trip lasts at `now`, else nil.
    static func away(
        _ pin: StudentLocation, now: Date, zones: PinTimeZones, phrases: Phrasebook
    ) async -> String? {
        guard let trip = pin.activeTrip(at: now) else { return nil }
        return away(pin, trip: trip, lastDay: await lastDay(of: trip, zones: zones), phrases: phrases)
    }
}
