import Foundation

/// The one API every backend implements: the Udacity-compatible HTTP API, the local SQLite
/// directory and the PostgreSQL directory. A plugin cannot tell them apart.
public protocol StudentDirectory: Sendable {
    /// A short name for logs and health ("sqlite", "postgres", "udacity").
    var backendName: String { get }
    /// Where new accounts are made, when the backend has such a page.
    var signUpURL: String? { get }

    /// Logs in with email and password. Throws `.invalidCredentials`, `.networkUnreachable`,
    /// `.rejectedInput` (empty email or password, checked before any request) or a failure.
    func logIn(email: String, password: String) async throws -> DirectorySession
    /// Ends the session on the backend. Ending an unknown session is not an error.
    func logOut(_ session: DirectorySession) async throws
    /// The profile (name) of an account.
    func profile(accountKey: String, session: DirectorySession?) async throws -> StudentProfile
    /// The most recent pins, newest update first (`limit` defaults to 100 at call sites).
    func recentLocations(limit: Int, skip: Int) async throws -> [StudentLocation]
    /// What changed after `revision` (0: every pin), at most `limit` changes; nil when the backend
    /// keeps no change feed (the Udacity API: read it with ``recentLocations(limit:skip:)``).
    func locationChanges(after revision: Int64, limit: Int) async throws -> PinChangePage?
    /// The pin of one account, or nil when it has none.
    func location(ofAccount accountKey: String) async throws -> StudentLocation?
    /// Creates a pin, with the level it is kept at; the result carries the new objectId and times.
    func createLocation(_ pin: KeptPin, session: DirectorySession?) async throws -> StudentLocation
    /// Updates an existing pin by objectId.
    func updateLocation(objectId: String, with pin: KeptPin, session: DirectorySession?) async throws
        -> StudentLocation
    /// Checks the backend can be reached (for health). Throws a `ServiceError` otherwise.
    func checkHealth() async throws
}

extension StudentDirectory {
    /// Creates the pin of `pin.uniqueKey`, or updates it when the account already has one.
    /// Returns the saved pin and whether an existing one was replaced.
    public func savePin(_ pin: KeptPin, session: DirectorySession?) async throws -> (StudentLocation, replaced: Bool) {
        if let existing = try await location(ofAccount: pin.uniqueKey) {
            let saved = try await updateLocation(objectId: existing.objectId, with: pin, session: session)
            return (saved, true)
        }
        return (try await createLocation(pin, session: session), false)
    }
}

/// The extra operations of a directory that keeps its own accounts (SQLite, PostgreSQL):
/// what the operator's `accounts` commands and `!register` use.
public protocol AccountDirectory: StudentDirectory {
    /// Adds an account; throws `.rejectedInput` when the email is taken or a field is invalid.
    func addAccount(email: String, password: String, firstName: String, lastName: String) async throws -> LocalAccount
    func listAccounts() async throws -> [LocalAccount]
    /// Removes an account (and its sessions and pin); throws `.notFound` when there is none.
    func removeAccount(email: String) async throws
    /// Ends every session of the account `accountKey` (IRC logins, the map's browsers, the API's
    /// clients); returns how many there were.
    func endSessions(accountKey: String) async throws -> Int
    /// Sets a new password and ends the account's sessions (its pin stays); throws `.notFound`
    /// when there is no such account, `.rejectedInput` when the password is not acceptable.
    func changePassword(email: String, newPassword: String) async throws
    /// Takes the pin with this objectId off the map for a trusted caller (the operator's tools, an
    /// owner), leaving a tombstone in the change feed so that every reader forgets it (PostgreSQL
    /// also notifies listeners at once). Returns the removed pin, or nil when there was none.
    func removeLocation(objectId: String) async throws -> StudentLocation?
    /// Takes the pin of account `uniqueKey` off the map, like ``removeLocation(objectId:)``. With a
    /// session, it must be live (`.sessionExpired`) and the account's own (`.rejectedInput`).
    /// Returns the removed pin, or nil when the account had none.
    func removeLocation(ofAccount uniqueKey: String, session: DirectorySession?) async throws -> StudentLocation?
    /// Saves `records` in one transaction: each creates its account's pin (a new objectId) or
    /// updates the one the account has. Every record is checked first (`.rejectedInput` naming the
    /// record's position, from 1); when one fails, nothing is saved.
    func importLocations(_ records: [PinImportRecord]) async throws -> PinImportOutcome
    /// The live session with this id (what an HTTP client presents), or nil when it is unknown or
    /// expired. Sessions are stored as digests: this is the only way from an id to its account.
    func session(id sessionId: String) async throws -> DirectorySession?
    /// Takes over the live session whose id has this digest (see `AccountPolicy.resumeSession`): a
    /// session kept across a restart comes back with a new id; nil when it is no longer live.
    func resumeSession(digest: String, accountKey: String) async throws -> DirectorySession?
    /// Everything stored about one account (its row, pin and session times), or nil when there is
    /// no such account.
    func accountRecord(_ lookup: AccountLookup) async throws -> AccountRecord?
    /// Erases one account in one transaction: its pin (leaving a tombstone that holds the objectId
    /// alone, and notifying listeners), its sessions and its row; earlier tombstones of its pins
    /// lose the account key. Returns what was erased, or nil when there was no such account.
    func eraseAccount(accountKey: String) async throws -> AccountRecord?
    /// Takes off the map every pin last updated before `date` (the accounts stay), through the same
    /// path as ``removeLocation(objectId:)``: tombstones, and listeners notified. Returns the removed pins.
    func removeLocations(updatedBefore date: Date) async throws -> [StudentLocation]
    /// Makes what was erased, or made coarser, leave the storage's files where the directory can
    /// do it itself; `pins` are the objectIds of the pins changed. SQLite checkpoints its
    /// write-ahead log and truncates it (deleted and overwritten content is already zeroed by
    /// `secure_delete`). PostgreSQL deletes the earlier versions of `pins` from its change feed
    /// (`pin_versions`, where a coarsened pin's finer place would wait an hour) and vacuums the
    /// tables that held student data: their dead rows' space is marked free, though the bytes
    /// stay in the data files until overwritten and in the server's write-ahead log until it is
    /// recycled.
    func flushErasures(pins: [String]) async throws
    /// Starts a session for the account `accountKey` without a password (see
    /// `AccountPolicy.openSession`): only for a caller that has proved who the student is, such as
    /// a sign-in link. Nil when there is no such account.
    func openSession(accountKey: String) async throws -> DirectorySession?
    /// Links a class account to a services account on one network (see
    /// `AccountPolicy.linkServicesAccount`): `.rejectedInput` names the link in the way.
    @discardableResult
    func linkServicesAccount(accountKey: String, network: String, servicesAccount: String, foldedAccount: String)
        async throws -> ServicesAccountLink
    /// Removes the class account's link on `network`; returns it, or nil when there was none.
    func unlinkServicesAccount(accountKey: String, network: String) async throws -> ServicesAccountLink?
    /// The link of the services account folded as `foldedAccount` on `network`, or nil.
    func servicesLink(network: String, foldedAccount: String) async throws -> ServicesAccountLink?
    /// Every link of the class account `accountKey`.
    func servicesLinks(accountKey: String) async throws -> [ServicesAccountLink]
}

/// A directory that can tell its listeners at once when any instance saves a pin
/// (PostgreSQL LISTEN/NOTIFY). Others are polled.
public protocol PinChangeNotifying: Sendable {
    /// An endless stream of the objectIds of pins saved anywhere (an empty one after a lost
    /// connection: some may have been missed); ends when the directory closes.
    func pinChanges() async throws -> AsyncStream<String>
}
