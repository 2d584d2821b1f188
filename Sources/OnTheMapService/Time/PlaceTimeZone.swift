import Foundation

/// The time zone of a place or a pin, as the offline gazetteer knows it.
public enum PlaceTimeZone: Sendable, Hashable, Codable {
    /// One IANA zone ("Europe/London").
    case zone(String)
    /// A country whose towns keep different times (the United States, Spain): no single zone.
    case several
    /// No zone known: an uninhabited territory, or no gazetteer to ask.
    case unknown

    /// The zone's IANA name, when there is exactly one.
    public var identifier: String? {
        if case .zone(let identifier) = self { return identifier }
        return nil
    }

    /// The zone with the system's time zone data (/usr/share/zoneinfo), when there is exactly one
    /// and the system knows its name.
    public var timeZone: TimeZone? {
        identifier.flatMap(TimeZone.init(identifier:))
    }
}

/// Finds time zones offline (the gazetteer): what `!time`, `!awake` and `!overlap` ask.
public protocol TimeZoneFinder: Sendable {
    /// The zone of a pin: that of the gazetteer place it is kept at (its own point and full name,
    /// as `PinCoarsener` leaves it: a country with several zones gives `.several`), else that of
    /// the populated place nearest to its point (a pin from the API or an import).
    func timeZone(ofPinAt coordinate: Coordinate, named name: String) async -> PlaceTimeZone

    /// The zone of the populated place nearest to `coordinate`; `.unknown` for an invalid point.
    func timeZone(near coordinate: Coordinate) async -> PlaceTimeZone

    /// Every zone a pin at `coordinate` named `name` may be in, as the pin tells: the one of
    /// ``timeZone(ofPinAt:named:)``, or for a country with several, the IANA names of all those
    /// its towns keep. Empty when none is known.
    func timeZones(ofPinAt coordinate: Coordinate, named name: String) async -> [String]
}

/// The rule for the time zone of a stored pin. A pin kept at a gazetteer place (`.city`, `.region`,
/// `.country`: the precision `PinCoarsener.precision(of:)` reports) has that place's zone: a city's
/// own, a region's most populous city's, a country's single zone or `.several`. Any other pin (an
/// exact one, or coordinates sent by the API or an import) has the zone of the nearest populated
/// place. Without a finder every pin's zone is `.unknown`.
public struct PinTimeZones: Sendable {
    public let finder: (any TimeZoneFinder)?

    public init(finder: (any TimeZoneFinder)?) {
        self.finder = finder
    }

    /// The zone of a pin at `coordinate` whose place text is `name`.
    public func timeZone(ofPinAt coordinate: Coordinate, named name: String) async -> PlaceTimeZone {
        await finder?.timeZone(ofPinAt: coordinate, named: name) ?? .unknown
    }

    /// The zone of a stored pin.
    public func timeZone(of pin: StudentLocation) async -> PlaceTimeZone {
        await timeZone(ofPinAt: pin.coordinate, named: pin.mapString)
    }
}
