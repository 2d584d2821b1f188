/// A pin made no more precise than its student's level, and that level: the only form in which a
/// directory takes a pin (``StudentDirectory/createLocation(_:session:)``,
/// ``StudentDirectory/updateLocation(objectId:with:session:)``, ``AccountDirectory/importLocations(_:)``).
/// Only ``PinCoarsener`` makes one, so a way of saving a pin that skips coarsening does not
/// compile. Its trip, when it carries one, is kept at the same level.
public struct KeptPin: Sendable, Hashable {
    /// The pin as it is stored: its place text and point are those of ``precision``.
    public let draft: PinDraft
    /// The level the pin is kept at, stored with it.
    public let precision: PinPrecision

    init(draft: PinDraft, precision: PinPrecision) {
        self.draft = draft
        self.precision = precision
    }

    /// The account the pin belongs to.
    public var uniqueKey: String { draft.uniqueKey }
}

/// A trip made no more precise than its student's level: the only form in which a directory takes
/// a trip (``TripDirectory/setTrip(_:ofAccount:session:)``). Only ``PinCoarsener`` makes one.
public struct KeptTrip: Sendable, Hashable {
    public let trip: Trip

    init(trip: Trip) {
        self.trip = trip
    }
}
