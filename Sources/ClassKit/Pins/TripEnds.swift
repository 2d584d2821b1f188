import Foundation
import Localization
import OnTheMapService

/// Why the end of a trip could not be told.
public enum TripEndRefusal: Error, Sendable {
    /// The trip place's time zone is not known, so neither is when its last day ends there.
    case noTimeZone
    /// The date, as ``TripEndDateParser`` refused it (each case has a sentence).
    case date(TripEndDateError)
}

/// A `Needs` that tells when a trip ends (`!post … until`, the served API's `until`).
public protocol EndsTrips: Sendable {
    /// The time zones of pins and places.
    var timeZones: PinTimeZones { get }
    /// The class clock.
    var now: @Sendable () -> Date { get }
}

extension EndsTrips {
    /// When a trip ends if it lasts until the day `until` names, read only from the trip as it is
    /// stored (`coordinate` and `name`, already at the student's level): in that place's zone
    /// ("24 Dec" ends at midnight in Lisbon), and for a country with several zones at the last
    /// midnight among them. So the end tells no more than the place shown: the moment a
    /// country-level student's home pin returns does not give away the real place's UTC offset.
    /// `language`'s words for dates are read besides English ones.
    public func tripEnd(
        until: String, shownAt coordinate: Coordinate, named name: String, language: Language = .english
    ) async throws(TripEndRefusal) -> TripEnd {
        let zones = (await timeZones.finder?.timeZones(ofPinAt: coordinate, named: name) ?? [])
            .compactMap(TimeZone.init(identifier:))
        guard !zones.isEmpty else { throw .noTimeZone }
        var latest: TripEnd?
        for zone in zones {
            let end: TripEnd
            do throws(TripEndDateError) {
                end = try TripEndDateParser.parse(until, now: now(), in: zone, language: language)
            } catch {
                throw .date(error)
            }
            if latest.map({ end.endsAt > $0.endsAt }) ?? true { latest = end }
        }
        guard let latest else { throw .noTimeZone }
        return latest
    }
}
