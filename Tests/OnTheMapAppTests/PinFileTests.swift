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

    /// A class file of `count` records, one a line after the first, with a few bad ones (a
    /// field of another kind under a name that is not a column, an object, an array and a null
    /// in columns, and an element that is not an object after record 60) at `bad` and an account
    /// key that is a number at record 250; and the lines and reasons of the bad records.
    static func classFile(count: Int, bad: [Int]) -> (json: String, problems: [PinFile.Problem]) {
        var lines = ["{\"results\": ["]
        var problems: [PinFile.Problem] = []
        let kinds = [
            ("verified", ", \"verified\": true"), ("ACL", ", \"ACL\": {\"*\": {\"read\": true}}"),
            ("firstName", ""), ("latitude", ""),
        ]
        for index in 0..<count {
            var record =
                "{\"uniqueKey\": \"k\(index)\", \"firstName\": \"F\(index)\", \"lastName\": \"L\", "
                + "\"mapString\": \"Oslo\", \"mediaURL\": \"https://x.example/\(index)\", "
                + "\"latitude\": 59.9, \"longitude\": \"10.7\""
            if let position = bad.firstIndex(of: index) {
                let (name, extra) = kinds[position % kinds.count]
                switch name {
                case "firstName":
                    record = record.replacingOccurrences(of: "\"F\(index)\"", with: "[\"F\"]")
                case "latitude":
                    record = record.replacingOccurrences(of: "59.9", with: "null")
                default:
                    record += extra
                }
                let reason =
                    name == "latitude"
                    ? "latitude and longitude must be numbers" : "\(name) is neither text nor a number"
                problems.append(PinFile.Problem(line: lines.count + 1, reason: reason))
            }
            if index == 250 { record = record.replacingOccurrences(of: "\"k250\"", with: "250") }
            lines.append(record + "}" + (index < count - 1 ? "," : ""))
            if index == 60 {
                lines.append("  \"not a record\" ,")
                problems.append(PinFile.Problem(line: lines.count, reason: "the record is not a JSON object"))
            }
        }
        lines.append("]}")
        return (lines.joined(separator: "\n"), problems.sorted { $0.line < $1.line })
    }

    /// A field that is neither text nor a number is refused under any name, a column's or not,
    /// among records read as typed columns; numbers and text are taken in any column, null is no
    /// value, and each refusal names the line its record starts on: in a small file, and in a
    /// large one read in two halves side by side, bad records on either side of the middle.
    @Test(arguments: [(300, [17, 101, 150, 200]), (4_001, [17, 101, 1_999, 2_000, 2_001, 2_002, 3_999, 4_000])])
    func fieldsOfOtherKindsAreRefusedByNameOnTheirLine(count: Int, bad: [Int]) throws {
        if count > 1_000 { #expect(count >= PinFileJSON.halvesFrom, "the large file is read in halves") }
        let (json, problems) = Self.classFile(count: count, bad: bad)
        let contents = try PinFile.read(Data(json.utf8))
        #expect(contents.problems == problems)
        #expect(contents.records.count == count - bad.count)
        #expect(
            contents.records.map(\.line)
                == Array(2...(count + 2)).filter { line in !problems.contains { $0.line == line } })
        let numbered = try #require(contents.records.first { $0.record.draft.uniqueKey == "250" })
        #expect(numbered.line == 253)
        #expect(numbered.record.draft.coordinate.latitude == 59.9 && numbered.record.draft.coordinate.longitude == 10.7)
    }

    /// A large file that is not `{"results": [...]}` JSON is refused whole, wherever its fault is,
    /// as a small one is.
    @Test func aLargeBrokenFileIsRefusedWhole() {
        let (json, _) = Self.classFile(count: 4_001, bad: [])
        let broken = [
            json + " x", json.replacingOccurrences(of: "\"k3000\",", with: "\"k3000\""),
            json.replacingOccurrences(of: "\"k10\",", with: "\"k10\" \"k\","),
            json.replacingOccurrences(of: "{\"results\": [", with: "{\"results\": {"),
            json.replacingOccurrences(of: "{\"results\": [", with: "{\"pins\": ["),
        ]
        for file in broken {
            #expect(throws: PinFile.Unreadable.self) { try PinFile.read(Data(file.utf8)) }
        }
    }

    /// The columns are numbered in the order they are listed (a record's fields are kept by it).
    @Test func columnsAreNumberedInTheirOrder() {
        #expect(PinFile.Column.allCases.map(\.position) == Array(0..<PinFile.Column.allCases.count))
        #expect(
            PinFile.requiredColumns.count == 7 && PinFile.optionalColumns == ["objectId", "createdAt", "updatedAt"])
    }

    /// Times written exactly as Parse and `pins export` write them are read without the format
    /// styles, to the same millisecond; every other form is left to them.
    @Test func theUsualTimeFormIsReadAsTheFormatStylesReadIt() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let milliseconds = Int64.random(in: 0..<7_258_118_400_000, using: &generator)  // 1970 to 2200
            let text = PinFile.formatDate(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            #expect(PinFile.utcMilliseconds(text) == milliseconds, "\(text)")
            #expect(PinFile.parseDate(text) == PinFile.parseDateWithFormatStyles(text), "\(text)")
            let whole = String(text.dropLast(5)) + "Z"
            #expect(PinFile.parseDate(whole) == PinFile.parseDateWithFormatStyles(whole), "\(whole)")
        }
        for text in [
            "2024-02-29T23:59:59.999Z", "2000-02-29T00:00:00Z", "1970-01-01T00:00:00.000Z", "9999-12-31T23:59:59Z",
            "2100-03-01T00:00:00.001Z",
        ] {
            #expect(PinFile.utcMilliseconds(text) != nil, "\(text)")
            #expect(PinFile.parseDate(text) == PinFile.parseDateWithFormatStyles(text), "\(text)")
        }
        for text in [
            "2023-02-29T10:00:00Z", "2026-13-01T10:00:00Z", "2026-09-01T24:00:00Z", "2026-09-01T10:00:60Z",
            "2026-09-01 10:00:00Z", "2026-09-01T10:00:00.25Z", "2026-09-01T10:00:00+02:00", "1969-12-31T23:59:59Z",
            "2026-09-01t10:00:00z", "+2026-09-01T10:00:00Z", "2026-09-01T10:00:00.1234Z",
        ] {
            #expect(PinFile.utcMilliseconds(text) == nil, "\(text)")
            #expect(PinFile.parseDate(text) == PinFile.parseDateWithFormatStyles(text), "\(text)")
        }
    }
}
