import BotTesting
import Foundation
import HTTPBackends
import OnTheMapService
import Testing

/// The client's contract behaviour (`UdacityClientBehaviour`, which the bot's served `/v1` passes
/// too) against the fake Udacity server.
@Suite("Udacity client behaviour against the fake server")
struct UdacityClientBehaviourTests {
    @Test(arguments: UdacityClientBehaviour.checks)
    func check(_ check: UdacityClientBehaviour.Check) async throws {
        try await withUdacity(locations: UdacityFixtures.pins(base: UdacityClientBehaviour.seedBase)) {
            server, directory in
            try await check.run(Self.target(server: server, client: directory))
        }
    }

    static func account(_ account: FakeUdacityServer.Account) -> UdacityClientBehaviour.Account {
        UdacityClientBehaviour.Account(
            email: account.email, password: account.password, key: account.key, firstName: account.firstName,
            lastName: account.lastName, nickname: account.nickname)
    }

    static func target(server: FakeUdacityServer, client: UdacityStudentDirectory) -> UdacityClientBehaviour.Target {
        let pins = UdacityFixtures.pins(base: UdacityClientBehaviour.seedBase).map { pin in
            StudentLocation(
                objectId: pin.objectId, uniqueKey: pin.uniqueKey, firstName: pin.firstName, lastName: pin.lastName,
                mapString: pin.mapString, mediaURL: pin.mediaURL,
                coordinate: Coordinate(latitude: pin.latitude, longitude: pin.longitude), createdAt: pin.createdAt,
                updatedAt: pin.updatedAt)
        }
        return UdacityClientBehaviour.Target(
            client: client, ada: account(UdacityFixtures.ada), grace: account(UdacityFixtures.grace), pins: pins
        ) { draft in
            await server.addLocation(
                uniqueKey: draft.uniqueKey, firstName: draft.firstName, lastName: draft.lastName,
                mapString: draft.mapString, mediaURL: draft.mediaURL, latitude: draft.coordinate.latitude,
                longitude: draft.coordinate.longitude)
        }
    }
}
