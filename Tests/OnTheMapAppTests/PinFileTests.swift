import Foundation
import Testing

@testable import OnTheMapApp

/// Reading a class map file: the Udacity JSON and CSV give the same records, every bad record is
/// named by the line it starts on, and an account's newer record replaces its older one.
@Suite struct PinFileTests {
    @Test func jsonRecordsAreNumberedByTheirLineAndCheckedLikePost() throws {
        let json = """
            {"results": [
              {"objectId": "a1", "uniqueKey": "1001", "firstName": "Ada", "lastName": "Lovelace",
               "mapString": "London, UK", "mediaURL": "https://ada.example", "latitude": 51.5, "longitude": -0.12,
               "createdAt": "2015-02-25T01:10:38.103Z", "updatedAt": "2015-02-25T01:10:38.103Z"},
              {"uniqueKey": 1002, "firstName": "Bob", "lastName": "", "mapString": "Paris",
               "mediaURL": "javascript:alert(1)", "latitude": 48.8, "longitude": 2.3},
              {"uniqueKey": "1003", "firstName": "Eve\\u0007", "lastName": "X", "mapString": "Rome",
               "mediaURL": "https://eve.example", "latitude": "41.9", "longitude": "12.5"},
              {"uniqueKey": "1004", "firstName": "Al", "lastName": "Y", "mapString": "Far",
               "mediaURL": "https://al.example", "latitude": 91, "longitude": 0},
              [1, 2],
              {"uniqueKey": "1001", "firstName": "Ada", "lastName": "Lovelace", "mapString": "Oxford, UK",
               "mediaURL": "https://ada.example/new", "latitude": "51.75", "longitude": "-1.25",
               "updatedAt": "2016-01-01T00:00:00.000Z"},
              {"uniqueKey": "1005", "firstName": "Cy", "lastName": null, "mapString": "Oslo",
               "mediaURL": "http://cy.example", "latitude": 59.9, "longitude": 10.7}
            ]}
            """
        let contents = try PinFile.read(Data(json.utf8))
        #expect(contents.problems.map(\.line) == [5, 7, 9, 11])
        #expect(contents.problems[0].reason == "mediaURL is a javascript: link; only http and https links are accepted")
        #expect(
            contents.problems[1].reason
                == "firstName contains hidden characters (control, text-direction or zero-width characters)")
        #expect(contents.problems[2].reason.hasPrefix("91.0, 0.0 is not a latitude"))
        #expect(contents.problems[3].reason == "the record is not a JSON object")
        #expect(contents.records.map(\.line) == [12, 15])
        #expect(contents.records[0].record.draft.mapString == "Oxford, UK")
        #expect(contents.records[0].record.draft.coordinate.latitude == 51.75)
        #expect(contents.records[1].record.draft.lastName == "")
        #expect(contents.superseded.map(\.line) == [2] && contents.superseded.map(\.keptLine) == [12])
    }

    @Test func zeroWidthAndFormatCharactersAreRefusedLikeOnEveryOtherWayIn() throws {
        let csv = """
            uniqueKey,firstName,lastName,mapString,mediaURL,latitude,longitude
            k1,Ada,Lovelace,"Paris\u{202E}gnp.exe\u{200B}\u{2066}",https://ada.example,48.8,2.3
            k2,Ra\u{200B}dia,Perlman,Boston,https://radia.example,42.3,-71.0
            k3,Ali,Rezaei,"\u{0645}\u{06CC}\u{200C}\u{0631}\u{0648}\u{062F}",https://ali.example,35.7,51.4
            """
        let contents = try PinFile.read(Data(csv.utf8))
        #expect(
            contents.problems.map(\.description) == [
                "line 2: mapString contains hidden characters (control, text-direction or zero-width characters)",
                "line 3: firstName contains hidden characters (control, text-direction or zero-width characters)",
            ])
        // A zero-width non-joiner is part of Persian spelling: kept.
        #expect(contents.records.map(\.record.draft.uniqueKey) == ["k3"])
    }

    @Test func csvHasTheSameColumnsAndNamesItsBadLines() throws {
        let csv = """
            uniqueKey,firstName,lastName,mapString,mediaURL,latitude,longitude
            k1,Ada,Lovelace,"London, UK",https://ada.example,51.5,-0.12
            k2,Bob,Roe,Paris,ada.example,48.8,2.3
            k3,Cy,Doe,"Oslo
            Norway",https://cy.example,59.9,10.7
            k4,Di,Poe,Rome,https://di.example,north,12.5
            k5,Ed
            """
        let contents = try PinFile.read(Data(csv.utf8))
        #expect(contents.records.map(\.line) == [2])
        #expect(contents.records[0].record.draft.mapString == "London, UK")
        #expect(
            contents.problems.map(\.description) == [
                "line 3: mediaURL does not start with http:// or https://",
                "line 4: mapString contains hidden characters (control, text-direction or zero-width characters)",
                "line 6: latitude and longitude must be numbers",
                "line 7: 2 fields where the header has 7",
            ])
    }

    /// Fields lose the spaces and tabs at their ends (no-break and other space separators too),
    /// nothing inside; dates are read with and without milliseconds and written with them.
    @Test func fieldsAreTrimmedAndDatesReadInBothISOForms() throws {
        #expect("\t Ada Lovelace \u{00A0}\u{2003}".trimmingSpaces == "Ada Lovelace")
        #expect("Ada".trimmingSpaces == "Ada")
        #expect(" \t ".trimmingSpaces == "")
        #expect("".trimmingSpaces == "")
        #expect("\nAda\n".trimmingSpaces == "\nAda\n", "line ends are not spaces: the checks refuse them")
        let date = try #require(PinFile.parseDate("2026-09-01T10:00:00.250Z"))
        #expect(date == Date(timeIntervalSince1970: 1_788_256_800.25))
        #expect(PinFile.parseDate("2026-09-01T10:00:00Z") == Date(timeIntervalSince1970: 1_788_256_800))
        #expect(PinFile.parseDate("1 September 2026") == nil)
        #expect(PinFile.formatDate(date) == "2026-09-01T10:00:00.250Z")
        // Every millisecond is written with its own three digits and read back exactly (an export
        // then an import keeps each date as it was).
        for millisecond in 0..<1000 {
            let stored = Date(timeIntervalSince1970: Double(1_788_256_800_000 + millisecond) / 1000)
            let text = PinFile.formatDate(stored)
            #expect(text.hasSuffix(String(format: ".%03dZ", millisecond)), "\(text)")
            #expect(PinFile.parseDate(text) == stored, "\(text)")
        }
    }

    @Test func aFileOfNeitherFormatIsRefusedWhole() {
        #expect(throws: PinFile.Unreadable.self) { try PinFile.read(Data("{\"pins\": []}".utf8)) }
        #expect(throws: PinFile.Unreadable.self) { try PinFile.read(Data("{\"results\": [".utf8)) }
        #expect(throws: PinFile.Unreadable.self) { try PinFile.read(Data("email,first_name\nx,y\n".utf8)) }
        #expect(throws: PinFile.Unreadable.self) { try PinFile.read(Data([0xFF, 0xFE, 0x00])) }
    }
}
