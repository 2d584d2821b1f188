import Foundation
import OnTheMapService

/// Pins and trips for tests of the directories and of what reads them, kept as typed: at the
/// exact level, as a class with `privacy.default: exact` keeps them. Made by a `PinCoarsener`
/// without place data, like any `KeptPin`; the product's own paths go through the class's privacy
/// gate instead. The directory methods below carry the label `asTyped:`, so they are never taken
/// for the protocols' own requirements.
public enum KeptAsTyped {
    private static let coarsener = PinCoarsener(finder: nil, cityMinimumPopulation: 0)

    public static func pin(_ draft: PinDraft) async -> KeptPin {
        await coarsener.coarsen(draft, to: .exact)
    }

    public static func trip(_ trip: Trip) async -> KeptTrip {
        await coarsener.coarsen(trip, to: .exact)
    }

    /// An import record of `draft` kept as typed.
    public static func record(_ draft: PinDraft, createdAt: Date? = nil, updatedAt: Date? = nil) async
        -> PinImportRecord
    {
        PinImportRecord(pin: await pin(draft), createdAt: createdAt, updatedAt: updatedAt)
    }
}

extension StudentDirectory {
    /// Creates the pin of `draft` kept as typed (see ``KeptAsTyped``).
    public func createLocation(asTyped draft: PinDraft, session: DirectorySession?) async throws -> StudentLocation {
        try await createLocation(await KeptAsTyped.pin(draft), session: session)
    }

    /// Updates a pin with `draft` kept as typed (see ``KeptAsTyped``).
    public func updateLocation(objectId: String, asTyped draft: PinDraft, session: DirectorySession?) async throws
        -> StudentLocation
    {
        try await updateLocation(objectId: objectId, with: await KeptAsTyped.pin(draft), session: session)
    }

    /// Saves the pin of `draft` kept as typed (see ``KeptAsTyped``).
    public func savePin(asTyped draft: PinDraft, session: DirectorySession?) async throws -> (
        StudentLocation, replaced: Bool
    ) {
        try await savePin(await KeptAsTyped.pin(draft), session: session)
    }
}

extension TripDirectory {
    /// Sets `trip` kept as typed (see ``KeptAsTyped``).
    public func setTrip(asTyped trip: Trip, ofAccount uniqueKey: String, session: DirectorySession?) async throws
        -> StudentLocation
    {
        try await setTrip(await KeptAsTyped.trip(trip), ofAccount: uniqueKey, session: session)
    }
}
