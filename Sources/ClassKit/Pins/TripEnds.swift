import Foundation
import OnTheMapService

/// Why the end of a trip could not be told.
public enum TripEndRefusal: Error, Sendable {
    /// The trip place's time zone is not known, so neither is when its last day ends there.
    case noTimeZone
    /// The date, as ``TripEndDateParser`` refused it (each case has a sentence).
    case date(TripEndDateError)
}

extension ClassServices {
    /// When a trip to a place at `coordinate` ends if it lasts until the day `until` names, read in
    /// the place's own zone ("24 Dec" ends at midnight in Lisbon): `knownZone` when the geocoder
    /// gave one, else the gazetteer's zone near the point.
    public func tripEnd(until: String, at coordinate: Coordinate, knownZone: TimeZone? = nil)
        async throws(TripEndRefusal) -> TripEnd
    {
        var zone = knownZone
        if zone == nil { zone = await timeZones.finder?.timeZone(near: coordinate).timeZone }
        guard let zone else { throw .noTimeZone }
        do {
            return try TripEndDateParser.parse(until, now: now(), in: zone)
        } catch {
            throw .date(error)
        }
    }
}
