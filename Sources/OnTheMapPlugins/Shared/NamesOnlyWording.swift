import ClassKit
import Foundation
import OnTheMapService
import Localization

/// What a channel open to anyone hears of a student's pin while the class is for the class
/// (`privacy.open_channel: names`, see ``LookupAudience/withholdsPlaces()``): the name, never
/// the place or the link.
enum NamesOnlyWording {
    /// Whether announcements in `channel` name students only: anyone may join it while the class
    /// is for the class and `privacy.open_channel` is `names`.
    static func withholdsPlaces(in channel: String, _ services: some ReadsClassSettings, isOpen: (String) async -> Bool)
        async -> Bool
    {
        guard services.settings.privacy.withholdsPlacesInOpenChannels else { return false }
        return await isOpen(channel)
    }

    /// "Ada Lovelace is on the map — ask me privately, or see the class map"; a moved pin: "Ada
    /// Lovelace moved their pin — …".
    static func announcement(_ pin: StudentLocation, moved: Bool, phrases: Phrasebook) -> String {
        phrases(moved ? "announce.namesOnly.moved" : "announce.namesOnly.new", ["name": Formatting.name(pin)])
    }

    /// A trip: "Ada Lovelace is away until 24 Dec — ask me privately, or see the class map".
    static func away(_ pin: StudentLocation, lastDay: LocalDay, phrases: Phrasebook) -> String {
        phrases(
            "announce.namesOnly.away",
            ["name": Formatting.name(pin), "day": phrases.shortDate(day: lastDay.day, month: lastDay.month)])
    }

    /// ``away(_:lastDay:phrases:)`` while the pin's trip lasts at `now`, else nil.
    static func away(
        _ pin: StudentLocation, now: Date, zones: PinTimeZones, phrases: Phrasebook
    ) async -> String? {
        guard let trip = pin.activeTrip(at: now) else { return nil }
        return away(pin, lastDay: await TripWording.lastDay(of: trip, zones: zones), phrases: phrases)
    }
}
