import Foundation

/// A directory that keeps trips beside pins: a second place a pin shows until its trip ends
/// (SQLite, PostgreSQL). The Udacity-compatible API keeps one pin per student and has none: a
/// stack finds this capability once, when it is assembled, and says so (`!status`, `check-config`).
public protocol TripDirectory: Sendable {
    /// Sets the trip of the pin of account `uniqueKey`, replacing any trip it has, and returns the
    /// pin as saved. Saved like a pin (a new change-feed revision, listeners notified, the update
    /// time now), so every reader of ``StudentDirectory/locationChanges(after:limit:)`` gets the
    /// trip. With a session, it must be live (`.sessionExpired`) and the account's own
    /// (`.rejectedInput`). Throws `.rejectedInput` for an invalid trip (see
    /// `DirectoryInput.validateTrip(_:now:)`) and `.notFound` when the account has no pin.
    func setTrip(_ trip: KeptTrip, ofAccount uniqueKey: String, session: DirectorySession?) async throws
        -> StudentLocation
    /// Ends the trip of the pin of account `uniqueKey` (one that has lapsed too: its data leaves the
    /// pin) and returns it; nil when the account has no pin or its pin no trip (nothing changes).
    /// Saved like a pin (a new revision, listeners notified) but keeping the pin's update time, so
    /// no copy of the trip is kept as a replaced version. Session rules as for ``setTrip(_:ofAccount:session:)``.
    func endTrip(ofAccount uniqueKey: String, session: DirectorySession?) async throws -> Trip?
}
