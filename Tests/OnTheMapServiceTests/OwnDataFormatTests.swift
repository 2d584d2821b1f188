import Foundation
import Testing

@testable import OnTheMapService

/// A student's own pin as GeoJSON (RFC 7946) and trips as iCalendar (RFC 5545): the shapes,
/// coordinates as kept, escaping, folding and line ends that other programs read.
@Suite struct OwnDataFormatTests {
    static let lisbon = Coordinate(latitude: 38.71667, longitude: -9.13333)

    static func pin(trip: Trip? = nil) -> StudentLocation {
        StudentLocation(
            objectId: "pin-1", uniqueKey: "u-jane", firstName: "Jane", lastName: "Doe", mapString: "Seattle, WA",
            mediaURL: "https://example.org/jane", coordinate: Coordinate(latitude: 47.60621, longitude: -122.33207),
            createdAt: Date(timeIntervalSince1970: 1_790_000_000),
            updatedAt: Date(timeIntervalSince1970: 1_796_000_000),
            trip: trip, precision: .city)
    }

    static func json(_ document: OwnPinsGeoJSON) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: document.encoded()) as? [String: Any])
    }

    // MARK: - GeoJSON

    @Test func theHomePinIsAPointFeatureWithItsCoordinatesAsKept() throws {
        let pin = Self.pin()
        let document = try Self.json(OwnPinsGeoJSON(pin: pin, homePrecision: .city))
        #expect(document["type"] as? String == "FeatureCollection")
        let features = try #require(document["features"] as? [[String: Any]])
        #expect(features.count == 1)
        let home = features[0]
        #expect(home["type"] as? String == "Feature")
        #expect(home["id"] as? String == "pin-1")
        let geometry = try #require(home["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Point")
        // Longitude first, the very numbers the directory keeps.
        #expect(geometry["coordinates"] as? [Double] == [-122.33207, 47.60621])
        let properties = try #require(home["properties"] as? [String: Any])
        #expect(properties["kind"] as? String == "home")
        #expect(properties["mapString"] as? String == "Seattle, WA")
        #expect(properties["mediaURL"] as? String == "https://example.org/jane")
        #expect(properties["precision"] as? String == "city")
        // RFC 3339 in UTC.
        #expect(properties["createdAt"] as? String == "2026-09-21T14:13:20Z")
        #expect(properties["updatedAt"] as? String == "2026-11-30T00:53:20Z")
        // Nothing of the student's name or account: the file is their place, not their identity.
        let text = String(decoding: try OwnPinsGeoJSON(pin: pin).encoded(), as: UTF8.self)
        #expect(!text.contains("u-jane") && !text.contains("Jane"))
    }

    @Test func aKeptTripIsASecondFeature() throws {
        let trip = Trip(
            mapString: "Lisbon, Portugal", coordinate: Self.lisbon, endsAt: Date(timeIntervalSince1970: 1_798_156_800))
        let document = try Self.json(
            OwnPinsGeoJSON(pin: Self.pin(trip: trip), homePrecision: .city, tripPrecision: .city))
        let features = try #require(document["features"] as? [[String: Any]])
        #expect(features.count == 2)
        let second = features[1]
        #expect(second["id"] as? String == "pin-1-trip")
        let geometry = try #require(second["geometry"] as? [String: Any])
        #expect(geometry["coordinates"] as? [Double] == [-9.13333, 38.71667])
        let properties = try #require(second["properties"] as? [String: Any])
        #expect(properties["kind"] as? String == "trip")
        #expect(properties["mapString"] as? String == "Lisbon, Portugal")
        #expect(properties["endsAt"] as? String == "2026-12-25T00:00:00Z")
        #expect(properties["precision"] as? String == "city")
    }

    @Test func noPinIsAnEmptyCollectionAndAnUnknownLevelIsNull() throws {
        let empty = try Self.json(OwnPinsGeoJSON(pin: nil))
        #expect(empty["type"] as? String == "FeatureCollection")
        #expect((empty["features"] as? [Any])?.isEmpty == true)
        let unknown = try Self.json(OwnPinsGeoJSON(pin: Self.pin()))
        let properties = try #require(
            ((unknown["features"] as? [[String: Any]])?.first)?["properties"] as? [String: Any])
        #expect(properties["precision"] is NSNull)
    }

    // MARK: - iCalendar

    /// The physical lines of `text`, which must all end in CRLF.
    static func physicalLines(_ text: String) -> [String] {
        #expect(text.hasSuffix("\r\n"))
        let lines = text.components(separatedBy: "\r\n").dropLast()
        for line in lines { #expect(!line.contains("\n") && !line.contains("\r"), "a bare line end in \(line)") }
        return Array(lines)
    }

    /// The content lines of `text`, unfolded.
    static func contentLines(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n").dropLast()
    }

    static let stamp = Date(timeIntervalSince1970: 1_796_000_000)

    @Test func aStudentWithoutATripGetsAValidEmptyCalendar() {
        let text = OwnTripsCalendar(events: [], name: "On The Map: my trips", stamp: Self.stamp).text()
        #expect(
            Self.physicalLines(text) == [
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//On The Map for IRC//Trips//EN", "CALSCALE:GREGORIAN",
                "METHOD:PUBLISH", "X-WR-CALNAME:On The Map: my trips", "END:VCALENDAR",
            ])
    }

    @Test func aTripIsAnAllDayEventFromTheDayItWasSetToItsExclusiveEnd() throws {
        // Ends at midnight in Lisbon starting 25 December 2026 (UTC+0 in winter): the 24th is its last day.
        let trip = Trip(
            mapString: "Lisbon, Portugal", coordinate: Self.lisbon, endsAt: Date(timeIntervalSince1970: 1_798_156_800))
        let event = OwnTripsCalendar.Event(
            pinId: "pin-1", trip: trip, setAt: Date(timeIntervalSince1970: 1_797_724_800 + 3600),
            zone: TimeZone(identifier: "Europe/Lisbon"), summary: "Trip: Lisbon, Portugal")
        let lines = Self.contentLines(OwnTripsCalendar(events: [event], name: "Trips", stamp: Self.stamp).text())
        let body = try #require(lines.firstIndex(of: "BEGIN:VEVENT")).advanced(by: 1)
        let end = try #require(lines.firstIndex(of: "END:VEVENT"))
        let properties = Array(lines[body..<end])
        #expect(properties.contains("DTSTAMP:20261130T005320Z"))
        #expect(properties.contains("DTSTART;VALUE=DATE:20261220"))
        #expect(properties.contains("DTEND;VALUE=DATE:20261225"))
        #expect(properties.contains("SUMMARY:Trip: Lisbon\\, Portugal"))
        #expect(properties.contains("LOCATION:Lisbon\\, Portugal"))
        #expect(properties.contains("GEO:38.71667;-9.13333"))
        let uid = try #require(properties.first { $0.hasPrefix("UID:") })
        #expect(uid.hasSuffix("@onthemap"))
        #expect(lines.last == "END:VCALENDAR")
    }

    @Test func theDaysAreThoseOfTheTripsZone() {
        // Midnight starting 25 December in Tokyo is 15:00 UTC on the 24th.
        let tokyo = Trip(
            mapString: "Tokyo, Japan", coordinate: Coordinate(latitude: 35.6895, longitude: 139.69171),
            endsAt: Date(timeIntervalSince1970: 1_798_156_800 - 9 * 3600))
        let event = OwnTripsCalendar.Event(
            pinId: "p", trip: tokyo, setAt: Date(timeIntervalSince1970: 1_797_724_800 - 9 * 3600 + 60),
            zone: TimeZone(identifier: "Asia/Tokyo"), summary: "Trip")
        #expect(OwnTripsCalendar.days(of: event) == ("20261220", "20261225"))
        // Without a zone the nearest UTC midnight is the end: right for every offset within 12 hours.
        var unknown = event
        unknown.zone = nil
        #expect(OwnTripsCalendar.days(of: unknown).end == "20261225")
        // A trip set on its last day (or after a change of the pin past its end) still lasts a day.
        var late = event
        late.setAt = tokyo.endsAt.addingTimeInterval(86_400)
        #expect(OwnTripsCalendar.days(of: late) == ("20261224", "20261225"))
    }

    @Test func theUIDIsStableForATripAndDiffersForAnother() {
        let trip = Trip(
            mapString: "Lisbon", coordinate: Self.lisbon, endsAt: Date(timeIntervalSince1970: 1_798_156_800))
        let event = OwnTripsCalendar.Event(pinId: "pin-1", trip: trip, setAt: Self.stamp, zone: nil, summary: "Trip")
        var later = event
        later.setAt = Self.stamp.addingTimeInterval(3600)
        #expect(OwnTripsCalendar.uid(of: event) == OwnTripsCalendar.uid(of: later))
        var other = event
        other.trip.endsAt = trip.endsAt.addingTimeInterval(86_400)
        #expect(OwnTripsCalendar.uid(of: event) != OwnTripsCalendar.uid(of: other))
        var otherPin = event
        otherPin.pinId = "pin-2"
        #expect(OwnTripsCalendar.uid(of: event) != OwnTripsCalendar.uid(of: otherPin))
    }

    @Test func textValuesAreEscaped() {
        #expect(OwnTripsCalendar.escape(#"a\b;c,d"#) == #"a\\b\;c\,d"#)
        #expect(OwnTripsCalendar.escape("one\r\ntwo\nthree\rfour") == #"one\ntwo\nthree\nfour"#)
        #expect(OwnTripsCalendar.escape("tab\there\u{7}bell\u{0}") == "tab herebell")
        #expect(OwnTripsCalendar.escape("São Paulo: ok") == "São Paulo: ok")
    }

    @Test func longLinesFoldAt75OctetsOnUTF8Boundaries() throws {
        let place = String(repeating: "東京都", count: 20) + ", Ñuñoa; \"quoted\", and more text past the limit"
        let trip = Trip(mapString: place, coordinate: Self.lisbon, endsAt: Date(timeIntervalSince1970: 1_798_156_800))
        let event = OwnTripsCalendar.Event(
            pinId: "pin-1", trip: trip, setAt: Self.stamp, zone: nil, summary: "Trip: " + place)
        let text = OwnTripsCalendar(events: [event], name: "Trips", stamp: Self.stamp).text()
        let physical = Self.physicalLines(text)
        #expect(physical.count > 12)
        for line in physical {
            #expect(line.utf8.count <= 75, "\(line.utf8.count) octets: \(line)")
        }
        // Each physical line is whole UTF-8 on its own: no sequence was cut.
        for chunk in text.utf8.split(separator: UInt8(ascii: "\n")) {
            #expect(String(validating: chunk, as: UTF8.self) != nil)
        }
        #expect(Self.contentLines(text).contains("LOCATION:" + OwnTripsCalendar.escape(place)))
        // Exactly 75 octets stay one line; 76 fold after the 75th.
        let seventyFive = String(repeating: "x", count: 75)
        #expect(OwnTripsCalendar.fold(seventyFive) == seventyFive)
        #expect(OwnTripsCalendar.fold(seventyFive + "y") == seventyFive + "\r\n y")
    }

    @Test func geoIsPlainDecimal() {
        #expect(OwnTripsCalendar.decimal(0.00001) == "0.00001")
        #expect(OwnTripsCalendar.decimal(-9.13333) == "-9.13333")
        #expect(OwnTripsCalendar.decimal(100) == "100.0")
    }
}
