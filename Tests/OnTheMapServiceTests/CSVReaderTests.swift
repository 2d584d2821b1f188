import Testing

@testable import OnTheMapService

@Suite("Roster CSV reader")
struct CSVReaderTests {
    @Test func quotedFieldsCommasQuotesAndLineBreaks() {
        let records = CSVReader.records("a,b,c\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\n\nlast,,\n")
        #expect(records.map(\.line) == [1, 2, 5])
        #expect(records[0].fields == ["a", "b", "c"])
        #expect(records[1].fields == ["x, y", "say \"hi\"", "two\nlines"])
        #expect(records[2].fields == ["last", "", ""])
        #expect(records.allSatisfy { $0.error == nil })
    }

    @Test func crlfByteOrderMarkAndNoFinalNewline() {
        let records = CSVReader.records("\u{FEFF}email,name\r\nx@y.z,X\r\ny@y.z,Y")
        #expect(records.map(\.fields) == [["email", "name"], ["x@y.z", "X"], ["y@y.z", "Y"]])
        #expect(records.map(\.line) == [1, 2, 3])
    }

    @Test func brokenQuotesAreReportedOnTheirLine() {
        let records = CSVReader.records("h1,h2\n\"open,x\nmore")
        #expect(records.count == 2)
        #expect(records[1].line == 2)
        #expect(records[1].error != nil)
        let trailing = CSVReader.records("\"a\"b,c")
        #expect(trailing.first?.error != nil)
    }

    @Test func emptyInput() {
        #expect(CSVReader.records("").isEmpty)
        #expect(CSVReader.records("\n\n").isEmpty)
    }
}
