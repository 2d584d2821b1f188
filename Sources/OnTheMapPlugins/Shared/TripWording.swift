import ClassKit
import Foundation
import OnTheMapService

/// How a trip is said: "Jane Doe is in Lisbon until 24 Dec" (`!where`, the announcer, `!post … until`).
enum TripWording {
    /// The last day of `trip` in its place's zone (the day before the one its end starts), as the
    /// gazetteer finds the zone near the trip's point; in UTC when no single zone is known.
    static func lastDay(of trip: Trip, services: ClassServices) async -> LocalDay {
        trip.lastDay(in: await services.timeZones.finder?.timeZone(near: trip.coordinate).timeZone)
    }

    /// "Jane Doe is in Lisbon until 24 Dec".
    static func away(_ pin: StudentLocation, trip: Trip, lastDay: LocalDay) -> String {
        "\(Formatting.name(pin)) is in \(Formatting.place(trip.mapString)) until \(lastDay.shortText)"
    }

    /// "Jane Doe is in Lisbon until 24 Dec" while the pin's trip lasts at `now`, else nil.
    static func away(_ pin: StudentLocation, now: Date, services: ClassServices) async -> String? {
        guard let trip = pin.activeTrip(at: now) else { return nil }
        return away(pin, trip: trip, lastDay: await lastDay(of: trip, services: services))
    }
}
