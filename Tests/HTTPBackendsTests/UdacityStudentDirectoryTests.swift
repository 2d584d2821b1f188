import BotTesting
import Foundation
import HTTPBackends
import OnTheMapService
import Testing

@Suite("Udacity API client against a local server")
struct UdacityStudentDirectoryTests {
    @Test func logInReturnsTheSessionAndSendsJSONHeaders() async throws {
        try await withUdacity { server, directory in
            let session = try await directory.logIn(email: " ada@example.org ", password: "correct horse")
            #expect(session.accountKey == "u2032")
            #expect(!session.sessionId.isEmpty)
            #expect(session.expiresAt > Date().addingTimeInterval(13 * 86_400))
            #expect(await server.activeSessionCount == 1)

            let requests = await server.requests()
            let login = try #require(requests.first)
            #expect(login.method == "POST")
            #expect(login.path == "/v1/session")
            #expect(login.header("Accept") == "application/json")
            #expect(login.header("Content-Type") == "application/json")
            #expect(login.body == nil, "the fake must never keep a login body")
        }
    }

    /// The Udacity API keeps one pin per student: the directory is no `TripDirectory` (a stack
    /// finds no trips in it), and saving a pin that carries a trip is refused with the sentence that
    /// says it has none, before any request.
    @Test func tripsAreRefusedBeforeAnyRequest() async throws {
        try await withUdacity { server, directory in
            #expect(!((directory as Any) is any TripDirectory))
            let session = try await directory.logIn(email: "ada@example.org", password: "correct horse")
            let sent = await server.requests().count
            let trip = Trip(
                mapString: "Lisbon", coordinate: Coordinate(latitude: 38.72, longitude: -9.14),
                endsAt: Date().addingTimeInterval(86_400))
            let pin = PinDraft(
                uniqueKey: session.accountKey, firstName: "Ada", lastName: "Lovelace", mapString: "London",
                mediaURL: "https://example.org", coordinate: Coordinate(latitude: 51.5, longitude: -0.13), trip: trip)
            let creating = await serviceError { _ = try await directory.createLocation(asTyped: pin, session: session) }
            let updating = await serviceError {
                _ = try await directory.updateLocation(objectId: "p1", asTyped: pin, session: session)
            }
            for refusal in [creating, updating] {
                #expect(refusal == ServiceError.tripsUnavailable)
            }
            guard case .unsupported(let sentence) = ServiceError.tripsUnavailable else {
                Issue.record("trips unavailable is not .unsupported")
                return
            }
            #expect(
                sentence
                    == "This class directory (the Udacity-compatible API) keeps one pin per student: it has no trips.")
            #expect(await server.requests().count == sent)
        }
    }

    @Test func wrongPasswordOrUnknownEmailIsInvalidCredentials() async throws {
        try await withUdacity { _, directory in
            let wrongPassword = await serviceError {
                _ = try await directory.logIn(email: "ada@example.org", password: "wrong")
            }
            #expect(wrongPassword == .invalidCredentials)
            let unknown = await serviceError {
                _ = try await directory.logIn(email: "nobody@example.org", password: "x")
            }
            #expect(unknown == .invalidCredentials)
        }
    }

    @Test func emptyCredentialsAreRejectedBeforeAnyRequest() async throws {
        try await withUdacity { server, directory in
            let noPassword = await serviceError {
                _ = try await directory.logIn(email: "ada@example.org", password: "")
            }
            let noEmail = await serviceError { _ = try await directory.logIn(email: "   ", password: "pw") }
            guard case .rejectedInput = noPassword, case .rejectedInput = noEmail else {
                Issue.record(
                    "expected rejectedInput, got \(String(describing: noPassword)), \(String(describing: noEmail))"
                )
                return
            }
            #expect(await server.requests().isEmpty)
        }
    }

    @Test func status400IsRejectedInputWithTheServersMessage() async throws {
        try await withUdacity { server, directory in
            await server.setFault(.serverError(400))
            let error = await serviceError {
                _ = try await directory.logIn(email: "ada@example.org", password: "pw")
            }
            #expect(error == .rejectedInput("Simulated server error."))
        }
    }

    @Test func serverErrorsAreBackendFailuresWithStatusAndMessage() async throws {
        try await withUdacity(locations: UdacityFixtures.pins()) { server, directory in
            await server.setFault(.serverError(503))
            let listError = await serviceError {
                _ = try await directory.recentLocations(limit: 100, skip: 0)
            }
            #expect(listError == .backendFailure(status: 503, message: "Simulated server error."))
            let loginError = await serviceError {
                _ = try await directory.logIn(email: "ada@example.org", password: "correct horse")
            }
            #expect(loginError == .backendFailure(status: 503, message: "Simulated server error."))
            let healthError = await serviceError { try await directory.checkHealth() }
            #expect(healthError == .backendFailure(status: 503, message: "Simulated server error."))
        }
    }

    @Test func malformedJSONIsMalformedResponse() async throws {
        try await withUdacity(locations: UdacityFixtures.pins()) { server, directory in
            await server.setFault(.malformedJSON)
            let loginError = await serviceError {
                _ = try await directory.logIn(email: "ada@example.org", password: "correct horse")
            }
            let listError = await serviceError { _ = try await directory.recentLocations(limit: 10, skip: 0) }
            guard case .malformedResponse = loginError, case .malformedResponse = listError else {
                Issue.record(
                    "expected malformedResponse, got \(String(describing: loginError)), \(String(describing: listError))"
                )
                return
            }
        }
    }

    @Test func aServerThatNeverAnswersIsNetworkUnreachableWithinTheTimeout() async throws {
        try await withUdacity(requestTimeout: .milliseconds(500)) { server, directory in
            await server.setFault(.neverAnswer)
            let clock = ContinuousClock()
            let started = clock.now
            let error = await serviceError {
                _ = try await directory.logIn(email: "ada@example.org", password: "correct horse")
            }
            let elapsed = clock.now - started
            guard case .networkUnreachable(let reason) = error else {
                Issue.record("expected networkUnreachable, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("no answer"))
            #expect(elapsed >= .milliseconds(450))
            #expect(elapsed < .seconds(10), "the timeout must cut the wait short")
        }
    }

    @Test func aRefusedConnectionIsNetworkUnreachable() async throws {
        let url = try await refusedURL(path: "/v1")
        let directory = try UdacityStudentDirectory(
            configuration: .init(baseURL: url, connectTimeout: .seconds(10), requestTimeout: .seconds(15)))
        let clock = ContinuousClock()
        let started = clock.now
        let error = await serviceError {
            _ = try await directory.logIn(email: "ada@example.org", password: "correct horse")
        }
        let healthError = await serviceError { try await directory.checkHealth() }
        let elapsed = clock.now - started
        await directory.shutdown()
        guard case .networkUnreachable(let reason) = error, case .networkUnreachable = healthError else {
            Issue.record("expected networkUnreachable, got \(String(describing: error))")
            return
        }
        #expect(reason == "connection refused")
        #expect(elapsed < .seconds(10))
    }

    @Test func anUnresolvableHostIsNetworkUnreachable() async throws {
        let directory = try UdacityStudentDirectory(
            configuration: .init(
                baseURL: "http://no-such-host.invalid/v1", connectTimeout: .seconds(10),
                requestTimeout: .seconds(15)))
        let error = await serviceError { _ = try await directory.recentLocations(limit: 1, skip: 0) }
        await directory.shutdown()
        guard case .networkUnreachable = error else {
            Issue.record("expected networkUnreachable, got \(String(describing: error))")
            return
        }
    }

    @Test func aTLSFailureIsNetworkUnreachable() async throws {
        // TLS spoken to a plain HTTP server fails in the handshake.
        try await withUdacity { server, _ in
            let plain = try #require(await server.baseURL)
            let url = plain.absoluteString.replacingOccurrences(of: "http://", with: "https://")
            let directory = try UdacityStudentDirectory(
                configuration: .init(baseURL: url, connectTimeout: .seconds(10), requestTimeout: .seconds(15)))
            let error = await serviceError { try await directory.checkHealth() }
            await directory.shutdown()
            guard case .networkUnreachable(let reason) = error else {
                Issue.record("expected networkUnreachable, got \(String(describing: error))")
                return
            }
            #expect(reason == "TLS failure")
        }
    }

    @Test(arguments: [false, true])
    func sessionAndProfileAnswersAreReadWithOrWithoutThePrefix(prefixMissing: Bool) async throws {
        try await withUdacity { server, directory in
            if prefixMissing {
                await server.setFault(.prefixMissing, on: [.session, .users])
            }
            let session = try await directory.logIn(email: "ada@example.org", password: "correct horse")
            let profile = try await directory.profile(accountKey: session.accountKey, session: session)
            #expect(
                profile
                    == StudentProfile(
                        accountKey: "u2032", firstName: "Ada", lastName: "Lovelace", nickname: "ada"))
        }
    }

    @Test(arguments: [false, true])
    func profilesAreReadFlatOrNested(nested: Bool) async throws {
        try await withUdacity { server, directory in
            if nested { await server.setFault(.nestedUserProfile, on: [.users]) }
            let profile = try await directory.profile(accountKey: "3903878747", session: nil)
            #expect(profile.accountKey == "3903878747")
            #expect(profile.firstName == "Grace")
            #expect(profile.lastName == "Hopper")
            #expect(await server.requests().last?.path == "/v1/users/3903878747")
        }
    }

    @Test func anUnknownProfileIsNotFound() async throws {
        try await withUdacity { _, directory in
            let error = await serviceError {
                _ = try await directory.profile(accountKey: "nobody", session: nil)
            }
            guard case .notFound = error else {
                Issue.record("expected notFound, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func recentLocationsAreNewestFirstWithLimitAndSkip() async throws {
        try await withUdacity(locations: UdacityFixtures.pins()) { server, directory in
            let all = try await directory.recentLocations(limit: 100, skip: 0)
            #expect(all.map(\.objectId) == ["pin-5", "pin-4", "pin-3", "pin-2", "pin-1"])
            let newest = try #require(all.first)
            #expect(newest.fullName == "First5 Last5")
            #expect(newest.coordinate == Coordinate(latitude: 5, longitude: -5))
            let expectedUpdate = Date(timeIntervalSince1970: 1_700_000_000 + 300.123)
            #expect(abs(newest.updatedAt.timeIntervalSince(expectedUpdate)) < 0.0005)
            #expect(newest.createdAt == Date(timeIntervalSince1970: 1_700_000_000))

            let page = try await directory.recentLocations(limit: 2, skip: 1)
            #expect(page.map(\.objectId) == ["pin-4", "pin-3"])
            let query = try #require(await server.requests().last?.query)
            #expect(query == ["limit": "2", "order": "-updatedAt", "skip": "1"])
        }
    }

    @Test func locationOfAccountUsesAnEncodedUniqueKeyQuery() async throws {
        let oddKey = "u 20+32&x=1/é"
        try await withUdacity(locations: UdacityFixtures.pins()) { server, directory in
            await server.addLocation(
                uniqueKey: oddKey, firstName: "Odd", lastName: "Key", mapString: "Lima",
                mediaURL: "https://x.org",
                latitude: -12, longitude: -77)
            let found = try #require(try await directory.location(ofAccount: oddKey))
            #expect(found.uniqueKey == oddKey)
            #expect(found.firstName == "Odd")
            let request = try #require(await server.requests().last)
            #expect(request.query["uniqueKey"] == oddKey)

            let third = try await directory.location(ofAccount: "key-3")
            let none = try await directory.location(ofAccount: "no-such-account")
            #expect(third?.objectId == "pin-3")
            #expect(none == nil)
        }
    }

    /// What saving a pin twice puts on the wire: a POST, then a PUT of the same objectId, as JSON,
    /// and one stored pin at the second place. (What the client returns for each save is
    /// `UdacityClientBehaviour`'s "saving a pin creates it, then replaces it", run against this server
    /// in `UdacityClientBehaviourTests`.)
    @Test func savePinPostsThenPutsTheSameObject() async throws {
        try await withUdacity { server, directory in
            let session = try await directory.logIn(email: "ada@example.org", password: "correct horse")
            let draft = PinDraft(
                uniqueKey: session.accountKey, firstName: "Ada", lastName: "Lovelace", mapString: "London",
                mediaURL: "https://example.org/ada", coordinate: Coordinate(latitude: 51.5, longitude: -0.12))
            let (created, _) = try await directory.savePin(asTyped: draft, session: session)
            var moved = draft
            moved.mapString = "Paris"
            moved.coordinate = Coordinate(latitude: 48.85, longitude: 2.35)
            _ = try await directory.savePin(asTyped: moved, session: session)

            let stored = await server.locations()
            #expect(stored.count == 1)
            #expect(stored.first?.mapString == "Paris")
            #expect(stored.first?.latitude == 48.85)

            let methods = await server.requests().map { "\($0.method) \($0.path)" }
            #expect(methods.contains("POST /v1/StudentLocation"))
            #expect(methods.contains("PUT /v1/StudentLocation/\(created.objectId)"))
            let post = try #require(
                await server.requests().first { $0.method == "POST" && $0.path.hasSuffix("StudentLocation") })
            #expect(post.header("content-type") == "application/json")
            #expect(post.body?.contains("\"mediaURL\"") == true)
        }
    }

    @Test func updatingAMissingPinIsNotFound() async throws {
        try await withUdacity { _, directory in
            let draft = PinDraft(
                uniqueKey: "u2032", firstName: "Ada", lastName: "Lovelace", mapString: "London",
                mediaURL: "https://example.org", coordinate: Coordinate(latitude: 51.5, longitude: -0.12))
            let error = await serviceError {
                _ = try await directory.updateLocation(objectId: "missing", asTyped: draft, session: nil)
            }
            guard case .notFound = error else {
                Issue.record("expected notFound, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func logOutSendsTheXSRFTokenOfTheSession() async throws {
        try await withUdacity { server, directory in
            let ada = try await directory.logIn(email: "ada@example.org", password: "correct horse")
            let grace = try await directory.logIn(email: "grace@example.org", password: "cobol!")
            let tokens = await server.issuedXSRFTokens()
            #expect(tokens.count == 2)
            #expect(await server.activeSessionCount == 2)

            try await directory.logOut(ada)
            let delete = try #require(await server.requests().last)
            #expect(delete.method == "DELETE")
            #expect(delete.path == "/v1/session")
            #expect(delete.header("X-XSRF-TOKEN") == tokens[0])
            #expect(await server.activeSessionCount == 1)

            try await directory.logOut(grace)
            #expect(await server.requests().last?.header("x-xsrf-token") == tokens[1])
            #expect(await server.activeSessionCount == 0)

            // Ending a session the server no longer knows is not an error.
            try await directory.logOut(ada)
        }
    }

    @Test func messyRecordsAreParsedLeniently() async throws {
        try await withUdacity(locations: UdacityFixtures.pins()) { server, directory in
            await server.setFault(.messyRecords, on: [.studentLocation])
            let locations = try await directory.recentLocations(limit: 100, skip: 0)
            let ids = Set(locations.map(\.objectId))
            #expect(ids == FakeUdacityServer.messyRecordIDsKept.union((1...5).map { "pin-\($0)" }))
            #expect(ids.isDisjoint(with: FakeUdacityServer.messyRecordIDsSkipped))

            let ana = try #require(locations.first { $0.objectId == "messy-strings" })
            #expect(ana.firstName == "Ana")
            #expect(ana.lastName == "")
            #expect(ana.mediaURL == "example.com/ana")
            #expect(ana.coordinate == Coordinate(latitude: -12.0464, longitude: -77.0428))
            #expect(ana.createdAt == Date(timeIntervalSince1970: 1_424_826_638))

            let junk = try #require(locations.first { $0.objectId == "messy-junk" })
            #expect(junk.uniqueKey == "12345")
            #expect(junk.fullName == "(no name)")
            #expect(junk.mediaURL == "javascript:alert(1)")
            #expect(abs(junk.updatedAt.timeIntervalSince1970 - 1_431_276_510.760460) < 0.00001)
            #expect(junk.createdAt == junk.updatedAt)
        }
    }

    @Test func checkHealthAsksForOneLocation() async throws {
        try await withUdacity(locations: UdacityFixtures.pins()) { server, directory in
            try await directory.checkHealth()
            let request = try #require(await server.requests().last)
            #expect(request.path == "/v1/StudentLocation")
            #expect(request.query["limit"] == "1")
        }
    }

    @Test func configurationIsChecked() async throws {
        #expect(throws: ServiceError.self) {
            _ = try UdacityStudentDirectory(configuration: .init(baseURL: "ftp://example.org"))
        }
        let directory = try UdacityStudentDirectory(
            configuration: .init(baseURL: "http://127.0.0.1:9/v1/", signUpURL: "https://example.org/join"))
        #expect(directory.baseURL == "http://127.0.0.1:9/v1")
        #expect(directory.signUpURL == "https://example.org/join")
        #expect(directory.backendName == "udacity")
        let defaults = UdacityStudentDirectory.Configuration()
        #expect(defaults.signUpURL == "https://auth.udacity.com/sign-up")
        #expect(defaults.baseURL == "https://onthemap-api.udacity.com/v1")
        await directory.shutdown()
    }
}
