import BotTesting
import Foundation
import HTTPBackends
import OnTheMapService
import Testing

private let testUserAgent = "OnTheMapBot-tests/1.0 (+https://example.org/onthemap; ops@example.org)"

/// Runs `body` with a started fake Nominatim and a geocoder pointed at it.
private func withNominatim<T: Sendable>(
    minimumInterval: Duration = .milliseconds(10),
    _ body: (FakeNominatimServer, NominatimGeocoder) async throws -> T
) async throws -> T {
    let server = FakeNominatimServer()
    let url = try await server.start()
    let geocoder: NominatimGeocoder
    do {
        geocoder = try NominatimGeocoder(
            configuration: .init(
                baseURL: url.absoluteString, userAgent: testUserAgent, minimumInterval: minimumInterval,
                connectTimeout: .seconds(10), requestTimeout: .seconds(15)))
    } catch {
        await server.stop()
        throw error
    }
    do {
        let result = try await body(server, geocoder)
        await geocoder.shutdown()
        await server.stop()
        return result
    } catch {
        await geocoder.shutdown()
        await server.stop()
        throw error
    }
}

@Suite("Nominatim geocoder against a local server")
struct NominatimGeocoderTests {
    @Test func resultsAreMappedToCandidates() async throws {
        try await withNominatim { server, geocoder in
            let seattle = try await geocoder.geocode("Seattle, WA", limit: 5)
            #expect(seattle.count == 1)
            let city = try #require(seattle.first)
            #expect(city.kind == .city)
            #expect(city.displayName == "Seattle, King County, Washington, United States")
            #expect(city.adminArea == "Washington")
            #expect(city.country == "United States")
            #expect(city.countryCode == "US")
            #expect(abs(city.coordinate.latitude - 47.6038321) < 1e-9)
            #expect(abs(city.coordinate.longitude + 122.330062) < 1e-9)
            #expect(city.population == 0)

            let costaRica = try #require(try await geocoder.geocode("costa rica", limit: 1).first)
            #expect(costaRica.kind == .country)
            #expect(costaRica.countryCode == "CR")
            #expect(costaRica.adminArea == nil)

            let state = try #require(try await geocoder.geocode("Washington state", limit: 1).first)
            #expect(state.kind == .region)

            let paris = try await geocoder.geocode("Paris", limit: 5)
            #expect(paris.map(\.countryCode) == ["FR", "US"])
            #expect(paris.map(\.kind) == [.city, .city])  // a city and a town
            let limited = try await geocoder.geocode("Paris", limit: 1)
            #expect(limited.count == 1)

            let address = try #require(
                try await geocoder.geocode("1600 Amphitheatre Parkway", limit: 3).first)
            #expect(address.kind == .address)
            #expect(address.adminArea == "California")

            let request = try #require(await server.requests().first)
            #expect(request.path == "/search")
            #expect(request.query["format"] == "jsonv2")
            #expect(request.query["addressdetails"] == "1")
            #expect(request.query["limit"] == "5")
            #expect(request.query["q"] == "seattle, wa")
        }
    }

    @Test func unknownPlacesGiveNoCandidates() async throws {
        try await withNominatim { server, geocoder in
            let atlantis = try await geocoder.geocode("Atlantis", limit: 5)
            let blank = try await geocoder.geocode("   ", limit: 5)
            #expect(atlantis.isEmpty)
            #expect(blank.isEmpty)
            #expect(await server.requests().count == 1, "a blank query must not be sent")
        }
    }

    @Test func theUserAgentIsSent() async throws {
        try await withNominatim { server, geocoder in
            _ = try await geocoder.geocode("Tokyo", limit: 1)
            let request = try #require(await server.requests().first)
            #expect(request.header("User-Agent") == testUserAgent)
            #expect(request.header("Accept") == "application/json")
        }
    }

    @Test func requestsAreSpacedAtLeastOneSecondApart() async throws {
        try await withNominatim(minimumInterval: .seconds(1)) { server, geocoder in
            async let first = geocoder.geocode("Seattle", limit: 1)
            async let second = geocoder.geocode("Lima", limit: 1)
            let (a, b) = try await (first, second)
            #expect(a.count == 1 && b.count == 1)
            let times = await server.requests().map(\.receivedInstant)
            #expect(times.count == 2)
            let gap = times[1] - times[0]
            #expect(gap >= .milliseconds(900), "gap was \(gap)")
            #expect(gap < .seconds(10), "gap was \(gap)")
        }
    }

    @Test func cachedAnswersMakeNoRequest() async throws {
        try await withNominatim { server, geocoder in
            let first = try await geocoder.geocode("Seattle", limit: 3)
            let second = try await geocoder.geocode("  SEATTLE  ", limit: 3)
            let fewer = try await geocoder.geocode("seattle", limit: 1)
            #expect(first == second)
            #expect(fewer == Array(first.prefix(1)))
            #expect(await server.requests().count == 1)
            // A larger limit than the complete cached answer is served from the cache too.
            _ = try await geocoder.geocode("seattle", limit: 10)
            #expect(await server.requests().count == 1)
        }
    }

    @Test func aNetworkFailureIsNetworkUnreachable() async throws {
        let url = try await refusedURL(path: "")
        let geocoder = try NominatimGeocoder(
            configuration: .init(baseURL: url, userAgent: testUserAgent, requestTimeout: .seconds(3)))
        let error = await serviceError { _ = try await geocoder.geocode("Seattle", limit: 1) }
        await geocoder.shutdown()
        guard case .networkUnreachable = error else {
            Issue.record("expected networkUnreachable, got \(String(describing: error))")
            return
        }
    }

    @Test func httpErrorsAreMapped() async throws {
        try await withNominatim { server, geocoder in
            await server.setFailure(status: 500)
            let failure = await serviceError { _ = try await geocoder.geocode("Seattle", limit: 1) }
            #expect(failure == .backendFailure(status: 500, message: "HTTP status 500"))
            await server.setFailure(status: 429)
            let throttled = await serviceError { _ = try await geocoder.geocode("Lima", limit: 1) }
            #expect(throttled == .throttled(retryAfterSeconds: 60))
            await server.setFailure(status: nil)
            let lima = try await geocoder.geocode("Lima", limit: 1)
            #expect(lima.count == 1, "failures must not be cached")
        }
    }

    @Test func anEmptyUserAgentIsRefused() {
        #expect(throws: ServiceError.self) {
            _ = try NominatimGeocoder(configuration: .init(userAgent: "  "))
        }
        #expect(throws: ServiceError.self) {
            _ = try NominatimGeocoder(configuration: .init(baseURL: "not a url", userAgent: testUserAgent))
        }
    }

    @Test func overlongQueriesAreRejectedWithoutARequest() async throws {
        try await withNominatim { server, geocoder in
            let error = await serviceError {
                _ = try await geocoder.geocode(String(repeating: "a", count: 300), limit: 1)
            }
            guard case .rejectedInput = error else {
                Issue.record("expected rejectedInput, got \(String(describing: error))")
                return
            }
            #expect(await server.requests().isEmpty)
        }
    }
}

@Suite("Request spacing")
struct RequestSpacerTests {
    // Only lower bounds are exact properties of the spacer; upper bounds get generous margins
    // because the test machine may be loaded (this is not a timing benchmark).
    @Test func concurrentCallersAreServedOneIntervalApart() async throws {
        let clock = ContinuousClock()
        let spacer = RequestSpacer(interval: .milliseconds(300), clock: clock)
        let times = try await withThrowingTaskGroup(of: ContinuousClock.Instant.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    try await spacer.waitForTurn()
                    let now = clock.now
                    await spacer.finished()
                    return now
                }
            }
            var collected: [ContinuousClock.Instant] = []
            for try await time in group { collected.append(time) }
            return collected.sorted()
        }
        #expect(times[1] - times[0] >= .milliseconds(300))
        #expect(times[2] - times[1] >= .milliseconds(300))
    }

    @Test func theFirstCallerDoesNotWait() async throws {
        let clock = ContinuousClock()
        let spacer = RequestSpacer(interval: .seconds(30), clock: clock)
        let before = clock.now
        try await spacer.run {}
        #expect(clock.now - before < .seconds(15))
    }

    @Test func aCallerAfterAQuietPeriodDoesNotWait() async throws {
        let clock = ContinuousClock()
        let spacer = RequestSpacer(interval: .seconds(2), clock: clock)
        try await spacer.run {}
        try await clock.sleep(for: .milliseconds(2_200))
        let before = clock.now
        try await spacer.run {}
        #expect(clock.now - before < .milliseconds(1_500))
    }
}
