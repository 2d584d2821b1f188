import Foundation
import OnTheMapService
import Testing

/// The behaviour a client of the On The Map v1 API (`udacity-api.md`) must show against any server
/// that speaks it: the fake Udacity server and the bot's own served `/v1` both run these checks with
/// the project's client (`UdacityStudentDirectory`), so the client and the served API are held to
/// the same contract.
public enum UdacityClientBehaviour {
    /// An account of the server under test.
    public struct Account: Sendable {
        public var email: String
        public var password: String
        public var key: String
        public var firstName: String
        public var lastName: String
        /// The nickname the server's profile answer gives.
        public var nickname: String

        public init(email: String, password: String, key: String, firstName: String, lastName: String, nickname: String)
        {
            self.email = email
            self.password = password
            self.key = key
            self.firstName = firstName
            self.lastName = lastName
            self.nickname = nickname
        }
    }

    /// The server under test, with the client pointed at it. Its two accounts have no pins; its
    /// five seeded pins (``pins``, oldest first) were updated one minute apart.
    public struct Target: Sendable {
        public var client: any StudentDirectory
        public var ada: Account
        public var grace: Account
        public var pins: [StudentLocation]
        /// Adds a pin as if posted elsewhere.
        public var addPin: @Sendable (PinDraft) async throws -> Void

        public init(
            client: any StudentDirectory, ada: Account, grace: Account, pins: [StudentLocation],
            addPin: @escaping @Sendable (PinDraft) async throws -> Void
        ) {
            self.client = client
            self.ada = ada
            self.grace = grace
            self.pins = pins
            self.addPin = addPin
        }
    }

    /// One named check.
    public struct Check: Sendable, CustomTestStringConvertible {
        public let name: String
        public let run: @Sendable (Target) async throws -> Void
        public var testDescription: String { name }
    }

    /// The times of the seeded pins: pin i (1…5) created at `seedBase`, updated i minutes and
    /// 123 ms later.
    public static let seedBase = Date(timeIntervalSince1970: 1_700_000_000)

    public static let checks: [Check] = [
        Check(name: "a login returns the account and a session", run: logInReturnsTheSession),
        Check(name: "a wrong password or unknown email is invalid credentials", run: wrongCredentials),
        Check(name: "empty credentials are refused", run: emptyCredentials),
        Check(name: "the profile gives the account's names", run: profiles),
        Check(name: "an unknown profile is not found", run: unknownProfile),
        Check(name: "recent pins come newest first, paged", run: recentPins),
        Check(name: "one account's pin is found by its key", run: pinOfAccount),
        Check(name: "saving a pin creates it, then replaces it", run: savePinCreatesThenReplaces),
        Check(name: "updating a missing pin is not found", run: updatingAMissingPin),
        Check(name: "logging out ends the session, and again is no error", run: logOut),
        Check(name: "the health check reads the pins", run: health),
    ]

    static func serviceError(_ operation: () async throws -> Void) async -> ServiceError? {
        do {
            try await operation()
            return nil
        } catch let error as ServiceError {
            return error
        } catch {
            Issue.record("unexpected error type: \(error)")
            return nil
        }
    }

    static func logInReturnsTheSession(_ target: Target) async throws {
        let session = try await target.client.logIn(email: " \(target.ada.email) ", password: target.ada.password)
        #expect(session.accountKey == target.ada.key)
        #expect(!session.sessionId.isEmpty)
        #expect(session.expiresAt > Date().addingTimeInterval(3600))
    }

    static func wrongCredentials(_ target: Target) async throws {
        let wrong = await serviceError {
            _ = try await target.client.logIn(email: target.ada.email, password: "wrong-password")
        }
        #expect(wrong == .invalidCredentials)
        let unknown = await serviceError {
            _ = try await target.client.logIn(email: "nobody@example.org", password: "whatever-pw")
        }
        #expect(unknown == .invalidCredentials)
    }

    static func emptyCredentials(_ target: Target) async throws {
        let noPassword = await serviceError { _ = try await target.client.logIn(email: target.ada.email, password: "") }
        let noEmail = await serviceError { _ = try await target.client.logIn(email: "  ", password: "pw") }
        guard case .rejectedInput = noPassword, case .rejectedInput = noEmail else {
            Issue.record(
                "expected rejectedInput, got \(String(describing: noPassword)), \(String(describing: noEmail))")
            return
        }
    }

    static func profiles(_ target: Target) async throws {
        let session = try await target.client.logIn(email: target.ada.email, password: target.ada.password)
        let own = try await target.client.profile(accountKey: session.accountKey, session: session)
        #expect(
            own
                == StudentProfile(
                    accountKey: target.ada.key, firstName: target.ada.firstName, lastName: target.ada.lastName,
                    nickname: target.ada.nickname))
        let other = try await target.client.profile(accountKey: target.grace.key, session: nil)
        #expect(other.accountKey == target.grace.key)
        #expect(other.firstName == target.grace.firstName)
        #expect(other.lastName == target.grace.lastName)
    }

    static func unknownProfile(_ target: Target) async throws {
        let error = await serviceError { _ = try await target.client.profile(accountKey: "nobody", session: nil) }
        guard case .notFound = error else {
            Issue.record("expected notFound, got \(String(describing: error))")
            return
        }
    }

    static func recentPins(_ target: Target) async throws {
        let all = try await target.client.recentLocations(limit: 100, skip: 0)
        #expect(all.map(\.objectId) == target.pins.reversed().map(\.objectId))
        let newest = try #require(all.first)
        let seeded = try #require(target.pins.last)
        #expect(newest.fullName == seeded.fullName)
        #expect(newest.uniqueKey == seeded.uniqueKey)
        #expect(newest.mapString == seeded.mapString)
        #expect(newest.mediaURL == seeded.mediaURL)
        #expect(newest.coordinate == seeded.coordinate)
        #expect(abs(newest.updatedAt.timeIntervalSince(seedBase.addingTimeInterval(300.123))) < 0.0005)
        #expect(newest.createdAt == seedBase)

        let page = try await target.client.recentLocations(limit: 2, skip: 1)
        #expect(page.map(\.objectId) == [target.pins[3].objectId, target.pins[2].objectId])
    }

    static func pinOfAccount(_ target: Target) async throws {
        let oddKey = "u 20+32&x=1/é"
        try await target.addPin(
            PinDraft(
                uniqueKey: oddKey, firstName: "Odd", lastName: "Key", mapString: "Lima", mediaURL: "https://x.org",
                coordinate: Coordinate(latitude: -12, longitude: -77)))
        let found = try #require(try await target.client.location(ofAccount: oddKey))
        #expect(found.uniqueKey == oddKey)
        #expect(found.firstName == "Odd")
        let third = try await target.client.location(ofAccount: target.pins[2].uniqueKey)
        #expect(third?.objectId == target.pins[2].objectId)
        #expect(try await target.client.location(ofAccount: "no-such-account") == nil)
    }

    static func savePinCreatesThenReplaces(_ target: Target) async throws {
        let client = target.client
        let session = try await client.logIn(email: target.ada.email, password: target.ada.password)
        let draft = PinDraft(
            uniqueKey: session.accountKey, firstName: target.ada.firstName, lastName: target.ada.lastName,
            mapString: "London", mediaURL: "https://example.org/ada",
            coordinate: Coordinate(latitude: 51.5, longitude: -0.12))
        let (created, replacedFirst) = try await client.savePin(asTyped: draft, session: session)
        #expect(!replacedFirst)
        #expect(!created.objectId.isEmpty)
        #expect(created.mapString == "London")
        #expect(created.createdAt == created.updatedAt)

        var moved = draft
        moved.mapString = "Paris"
        moved.coordinate = Coordinate(latitude: 48.85, longitude: 2.35)
        let (updated, replacedSecond) = try await client.savePin(asTyped: moved, session: session)
        #expect(replacedSecond)
        #expect(updated.objectId == created.objectId)
        #expect(updated.mapString == "Paris")
        #expect(updated.updatedAt > created.updatedAt)
        #expect(abs(updated.createdAt.timeIntervalSince(created.createdAt)) < 0.0005)

        let own = try await client.recentLocations(limit: 100, skip: 0).filter { $0.uniqueKey == session.accountKey }
        #expect(own.count == 1)
        #expect(own.first?.mapString == "Paris")
        #expect(own.first?.coordinate == Coordinate(latitude: 48.85, longitude: 2.35))
        #expect(own.first?.fullName == "\(target.ada.firstName) \(target.ada.lastName)")
    }

    static func updatingAMissingPin(_ target: Target) async throws {
        let session = try await target.client.logIn(email: target.ada.email, password: target.ada.password)
        let draft = PinDraft(
            uniqueKey: session.accountKey, firstName: target.ada.firstName, lastName: target.ada.lastName,
            mapString: "London", mediaURL: "https://example.org",
            coordinate: Coordinate(latitude: 51.5, longitude: -0.12))
        let error = await serviceError {
            _ = try await target.client.updateLocation(objectId: "missing", asTyped: draft, session: session)
        }
        guard case .notFound = error else {
            Issue.record("expected notFound, got \(String(describing: error))")
            return
        }
    }

    static func logOut(_ target: Target) async throws {
        let ada = try await target.client.logIn(email: target.ada.email, password: target.ada.password)
        let grace = try await target.client.logIn(email: target.grace.email, password: target.grace.password)
        try await target.client.logOut(ada)
        try await target.client.logOut(grace)
        // Ending a session the server no longer knows is not an error.
        try await target.client.logOut(ada)
    }

    static func health(_ target: Target) async throws {
        try await target.client.checkHealth()
    }
}
