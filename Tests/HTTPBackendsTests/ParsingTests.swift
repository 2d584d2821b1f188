import Foundation
import NIOConcurrencyHelpers
import OnTheMapService
import Testing

@testable import HTTPBackends

@Suite("Parsing of API details")
struct ParsingTests {
    @Test(arguments: [
        ("2015-02-25T01:10:38.103Z", 1_424_826_638.103),
        ("2015-05-10T16:48:30.760460Z", 1_431_276_510.760460),
        ("2015-02-25T01:10:38Z", 1_424_826_638),
        ("2015-02-25T03:10:38.5+02:00", 1_424_826_638.5),
        ("1969-12-31T23:59:59Z", -1),
        ("2024-02-29T12:00:00Z", 1_709_208_000),
    ])
    func timestampsAreReadWithAnyPrecision(text: String, seconds: Double) throws {
        let date = try #require(ISO8601Timestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001)
    }

    @Test(arguments: [
        "", "2015-02-25", "2015-13-01T00:00:00Z", "2015-02-25T01:10:38.Z", "yesterday",
        "2015-02-25T01:10:38Zjunk",
    ])
    func invalidTimestampsAreRefused(text: String) {
        #expect(ISO8601Timestamp.parse(text) == nil)
    }

    @Test func timestampsRoundTripWithMilliseconds() throws {
        let date = Date(timeIntervalSince1970: 1_424_826_638.103)
        let text = ISO8601Timestamp.format(date)
        #expect(text == "2015-02-25T01:10:38.103Z")
        #expect(
            abs((ISO8601Timestamp.parse(text)?.timeIntervalSince1970 ?? 0) - date.timeIntervalSince1970)
                < 0.000_001)
    }

    @Test func theSecurityPrefixIsStrippedOnlyWhenPresent() {
        let json = Data(#"{"a": 1}"#.utf8)
        #expect(SecurityPrefix.strip(Data(")]}'\n".utf8) + json) == json)
        #expect(SecurityPrefix.strip(json) == json)
        #expect(SecurityPrefix.strip(Data(")]}'\r\n".utf8) + json) == json)
        let short = Data(#"[1,2,3,4,5]"#.utf8)
        #expect(SecurityPrefix.strip(short) == short, "five bytes must not be dropped blindly")
    }

    @Test func errorMessagesComeFromJSONBodies() {
        #expect(errorMessage(in: Data(#"{"code": 142, "error": "bad field"}"#.utf8)) == "bad field")
        #expect(errorMessage(in: Data(")]}'\n{\"status\": 403, \"error\": \"nope\"}".utf8)) == "nope")
        #expect(errorMessage(in: Data("<html>oops</html>".utf8)) == nil)
        #expect(errorMessage(in: Data()) == nil)
    }

    @Test func queryValuesArePercentEncoded() {
        #expect(
            URLComponentEncoding.query([("uniqueKey", "a b+c&d=é/")]) == "uniqueKey=a%20b%2Bc%26d%3D%C3%A9%2F"
        )
        #expect(URLComponentEncoding.encode("u2032-x_y.z~") == "u2032-x_y.z~")
    }

    @Test func locationRecordsAreReadLeniently() throws {
        func parse(_ text: String) -> StudentLocation? {
            JSONValue.parse(Data(text.utf8)).flatMap(StudentLocationRecord.parse)
        }
        let record = try #require(parse(#"{"objectId": "a", "latitude": "10.5", "longitude": 20}"#))
        #expect(record.coordinate == Coordinate(latitude: 10.5, longitude: 20))
        #expect(record.firstName == "" && record.mediaURL == "" && record.uniqueKey == "")
        #expect(parse(#"{"objectId": "a", "latitude": 10}"#) == nil)
        #expect(parse(#"{"latitude": 10, "longitude": 20}"#) == nil)
        #expect(parse(#"{"objectId": "a", "latitude": 91, "longitude": 20}"#) == nil)
        #expect(parse(#"{"objectId": "a", "latitude": true, "longitude": 20}"#) == nil)
        #expect(parse(#"[1, 2]"#) == nil)
    }

    @Test func nominatimKindsFollowTheAddressType() {
        #expect(
            NominatimGeocoder.kind(addressType: "country", type: "administrative", category: "boundary")
                == .country)
        #expect(
            NominatimGeocoder.kind(addressType: "state", type: "administrative", category: "boundary")
                == .region)
        #expect(NominatimGeocoder.kind(addressType: "village", type: "village", category: "place") == .city)
        #expect(
            NominatimGeocoder.kind(addressType: "road", type: "residential", category: "highway") == .address)
        #expect(NominatimGeocoder.kind(addressType: nil, type: "town", category: "place") == .city)
    }
}

@Suite("Geocoder answer cache")
struct PlaceCacheTests {
    private func candidate(_ name: String) -> PlaceCandidate {
        PlaceCandidate(
            displayName: name, adminArea: nil, country: nil, countryCode: nil,
            coordinate: Coordinate(latitude: 1, longitude: 2), kind: .city, population: 0)
    }

    @Test func queriesAreNormalized() {
        #expect(PlaceCache.normalize("  Seattle,\t  WA \n") == "seattle, wa")
    }

    @Test func theLeastRecentlyUsedEntryIsEvicted() async {
        let cache = PlaceCache(capacity: 2, timeToLive: .seconds(60))
        await cache.store([candidate("A")], for: "a", limit: 5)
        await cache.store([candidate("B")], for: "b", limit: 5)
        #expect(await cache.candidates(for: "a", limit: 5) != nil)  // "a" is now the most recent
        await cache.store([candidate("C")], for: "c", limit: 5)
        #expect(await cache.count == 2)
        #expect(await cache.candidates(for: "b", limit: 5) == nil)
        #expect(await cache.candidates(for: "a", limit: 5)?.first?.displayName == "A")
        #expect(await cache.candidates(for: "c", limit: 5)?.first?.displayName == "C")
    }

    @Test func entriesExpire() async throws {
        let start = ContinuousClock.now
        let elapsed = NIOLockedValueBox(Duration.zero)
        let cache = PlaceCache(capacity: 10, timeToLive: .milliseconds(50)) { start + elapsed.withLockedValue { $0 } }
        await cache.store([candidate("A")], for: "a", limit: 1)
        elapsed.withLockedValue { $0 = .milliseconds(49) }
        #expect(await cache.candidates(for: "a", limit: 1) != nil)
        elapsed.withLockedValue { $0 = .milliseconds(50) }
        #expect(await cache.candidates(for: "a", limit: 1) == nil)
    }

    @Test func aFullAnswerFetchedWithASmallLimitDoesNotServeALargerOne() async {
        let cache = PlaceCache(capacity: 10, timeToLive: .seconds(60))
        await cache.store([candidate("A")], for: "paris", limit: 1)
        #expect(await cache.candidates(for: "paris", limit: 5) == nil)
        await cache.store([candidate("A"), candidate("B")], for: "paris", limit: 5)
        #expect(await cache.candidates(for: "paris", limit: 10)?.count == 2)
    }
}
