import ClassKit
import Foundation
import IRCProtocol
import NIOConcurrencyHelpers
import OnTheMapService

/// A class map file for `onthemap-bot pins import` and `export`: the Udacity `StudentLocation`
/// JSON as the API returns it (`{"results": [ … ]}`), or CSV with a header naming the same columns
/// (`uniqueKey,firstName,lastName,mapString,mediaURL,latitude,longitude`, and optionally
/// `objectId,createdAt,updatedAt`). Every record is checked with the rules of `!post`: text
/// without control or text-direction characters within the directory's length limits, only
/// http(s) links, a valid coordinate. Records are numbered by the line of the file they start on.
enum PinFile {
    /// A record that cannot be imported.
    struct Problem: Sendable, Equatable, CustomStringConvertible {
        var line: Int
        var reason: String
        var description: String { "line \(line): \(reason)" }
    }

    /// One good record: the pin as the file gives it (before it is kept at its student's level)
    /// and its times.
    struct Record: Sendable, Hashable {
        var draft: PinDraft
        var createdAt: Date?
        var updatedAt: Date?
    }

    /// What a file holds: its good records (one per account) and its bad ones.
    struct Contents: Sendable {
        var records: [(line: Int, record: Record)] = []
        var problems: [Problem] = []
        /// Records left out because a later or newer record of the same account replaces them:
        /// (line left out, line kept).
        var superseded: [(line: Int, keptLine: Int)] = []
    }

    /// A file that cannot be read as either format.
    struct Unreadable: Error, CustomStringConvertible {
        var description: String
    }

    /// Why one record cannot be imported.
    struct FieldProblem: Error {
        var reason: String
    }

    /// The columns of a file: the required ones first, then the optional ones.
    enum Column: String, CaseIterable, CodingKey {
        case uniqueKey, firstName, lastName, mapString, mediaURL, latitude, longitude
        case objectId, createdAt, updatedAt

        /// How many there are.
        static let count = allCases.count

        /// Whether a JSON file usually gives it as a number.
        var isCoordinate: Bool { self == .latitude || self == .longitude }

        /// Its place among the columns, counted from 0.
        var position: Int {
            switch self {
            case .uniqueKey: 0
            case .firstName: 1
            case .lastName: 2
            case .mapString: 3
            case .mediaURL: 4
            case .latitude: 5
            case .longitude: 6
            case .objectId: 7
            case .createdAt: 8
            case .updatedAt: 9
            }
        }
    }

    /// A record's fields as text (numbers as they were written, a JSON null as nothing), by
    /// column; a field the record lacks is nil.
    struct Fields: Sendable, Equatable {
        private var values = [String?](repeating: nil, count: Column.count)

        init() {}

        init(_ named: [String: String]) {
            for (name, value) in named {
                if let column = Column(rawValue: name) { self[column] = value }
            }
        }

        subscript(column: Column) -> String? {
            get { values[column.position] }
            set { values[column.position] = newValue }
        }
    }

    /// The records of a file, by the line each starts on, before they are checked.
    typealias RawRecords = [(line: Int, fields: Result<Fields, FieldProblem>)]

    static let requiredColumns = Column.allCases.prefix(7).map(\.rawValue)
    static let optionalColumns = Column.allCases.dropFirst(7).map(\.rawValue)

    /// Reads `data`: JSON when it starts with `{`, else CSV.
    static func read(_ data: Data) throws(Unreadable) -> Contents {
        guard let text = String(data: data, encoding: .utf8) else {
            throw Unreadable(description: "the file is not UTF-8 text")
        }
        let start = text.unicodeScalars.first { !$0.properties.isWhitespace && $0 != "\u{FEFF}" }
        let raw = start == "{" ? try PinFileJSON.records(text, data: data) : try csvRecords(text)
        var contents = Contents()
        var kept: [String: Int] = [:]  // uniqueKey → index in contents.records
        for ((line, _), checked) in zip(raw, checkedSideBySide(raw)) {
            let record: Record
            switch checked {
            case .failure(let problem):
                contents.problems.append(Problem(line: line, reason: problem.reason))
                continue
            case .success(let parsed): record = parsed
            }
            let key = record.draft.uniqueKey
            guard let index = kept[key] else {
                kept[key] = contents.records.count
                contents.records.append((line, record))
                continue
            }
            let earlier = contents.records[index]
            // The newer update wins; on a tie, the later line.
            if (earlier.record.updatedAt ?? .distantPast) > (record.updatedAt ?? .distantPast) {
                contents.superseded.append((line, earlier.line))
            } else {
                contents.superseded.append((earlier.line, line))
                contents.records[index] = (line, record)
            }
        }
        return contents
    }

    /// Each record of `raw` checked (``parse(_:)``), in order: a large file's halves side by side,
    /// on two threads (the checks of one record need nothing of another).
    static func checkedSideBySide(_ raw: RawRecords) -> [Result<Record, FieldProblem>] {
        let parts = raw.count >= 2_000 ? 2 : 1
        let checked = NIOLockedValueBox([[Result<Record, FieldProblem>]](repeating: [], count: parts))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let range = raw.count * part / parts..<raw.count * (part + 1) / parts
            let results = raw[range].map { $0.fields.flatMap(parse) }
            checked.withLockedValue { $0[part] = results }
        }
        return checked.withLockedValue { $0.flatMap { $0 } }
    }

    static func parse(_ fields: Fields) -> Result<Record, FieldProblem> {
        Result { () throws(FieldProblem) in try record(fields) }
    }

    private static func text(_ fields: Fields, _ column: Column, required: Bool = true, limit: Int)
        throws(FieldProblem) -> String
    {
        let name = column.rawValue
        let value = (fields[column] ?? "").trimmingSpaces
        if required && value.isEmpty { throw FieldProblem(reason: "\(name) is missing or empty") }
        if value.utf8.count > limit { throw FieldProblem(reason: "\(name) is longer than \(limit) bytes") }
        if DirectoryInput.containsHiddenCharacters(value) {
            throw FieldProblem(reason: "\(name) contains \(DirectoryInput.hiddenCharactersWording)")
        }
        return value
    }

    private static func record(_ fields: Fields) throws(FieldProblem) -> Record {
        let uniqueKey = try text(fields, .uniqueKey, limit: 200)
        let first = try text(fields, .firstName, required: false, limit: DirectoryInput.maximumNameBytes)
        let last = try text(fields, .lastName, required: false, limit: DirectoryInput.maximumNameBytes)
        if first.isEmpty && last.isEmpty { throw FieldProblem(reason: "firstName and lastName are both empty") }
        let place = try text(fields, .mapString, limit: DirectoryInput.maximumMapStringBytes)
        let link: String
        switch LinkRules.validate(fields[.mediaURL] ?? "") {
        case .success(let valid): link = valid
        case .failure(let problem): throw FieldProblem(reason: "mediaURL " + linkProblem(problem))
        }
        guard let latitude = Double((fields[.latitude] ?? "").trimmingSpaces),
            let longitude = Double((fields[.longitude] ?? "").trimmingSpaces)
        else { throw FieldProblem(reason: "latitude and longitude must be numbers") }
        let coordinate = Coordinate(latitude: latitude, longitude: longitude)
        guard coordinate.isValid else {
            throw FieldProblem(reason: "\(latitude), \(longitude) is not a latitude (-90…90) and longitude (-180…180)")
        }
        return Record(
            draft: PinDraft(
                uniqueKey: uniqueKey, firstName: first, lastName: last, mapString: place, mediaURL: link,
                coordinate: coordinate),
            createdAt: try date(fields, .createdAt), updatedAt: try date(fields, .updatedAt))
    }

    /// The time in `column`; nil when the record gives none.
    private static func date(_ fields: Fields, _ column: Column) throws(FieldProblem) -> Date? {
        let value = (fields[column] ?? "").trimmingSpaces
        if value.isEmpty { return nil }
        guard let date = parseDate(value) else {
            throw FieldProblem(reason: "\(column.rawValue) is not an ISO-8601 time like 2015-02-25T01:10:38.103Z")
        }
        return date
    }

    private static func linkProblem(_ problem: LinkRules.Problem) -> String {
        switch problem {
        case .empty: return "is missing or empty"
        case .tooLong: return "is longer than \(LinkRules.maximumBytes) bytes"
        case .missingScheme: return "does not start with http:// or https://"
        case .unsupportedScheme(let scheme): return "is a \(scheme): link; only http and https links are accepted"
        case .missingHost: return "has no host name"
        case .credentials: return "has a user name or password in it"
        case .hiddenCharacters: return "has control or text-direction characters in it (or codes like %0A)"
        case .unreadableCharacters: return "has characters that are not valid UTF-8"
        case .malformed: return "is not a valid web link"
        }
    }

    /// ISO 8601 with milliseconds (`2026-09-01T10:00:00.000Z`, as Parse wrote them), and without.
    /// Format styles are values made once (a formatter made for each date was most of an import).
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let withoutFraction = Date.ISO8601FormatStyle()

    /// The date `text` says, to the millisecond (the format style's binary fraction of `.123` may
    /// fall a hair below it, which a store that keeps milliseconds would cut to `.122`). The form
    /// Parse and `pins export` write, `2026-09-01T10:00:00.000Z` (or without the fraction), is read
    /// by ``utcMilliseconds(_:)``; any other form by the format styles.
    static func parseDate(_ text: String) -> Date? {
        if let milliseconds = utcMilliseconds(text) { return Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
        return parseDateWithFormatStyles(text)
    }

    /// `parseDate(_:)` by the format styles alone.
    static func parseDateWithFormatStyles(_ text: String) -> Date? {
        guard let date = (try? withFraction.parse(text)) ?? (try? withoutFraction.parse(text)) else { return nil }
        return Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// The milliseconds since 1970 of a UTC time written exactly `YYYY-MM-DDThh:mm:ss.sssZ` or
    /// `YYYY-MM-DDThh:mm:ssZ`, a year from 1970 to 9999 and every field in its range (no leap
    /// second); nil for any other text, which the format styles read or refuse. Two a record, the
    /// format styles were a tenth of a large import.
    static func utcMilliseconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20 || bytes.count == 24, bytes[bytes.count - 1] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = Int(bytes[index]) - 0x30
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        let separators: [(Int, Character)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1.asciiValue }),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1970...9999).contains(year), (1...12).contains(month), (0...23).contains(hour),
            (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        var millisecond = 0
        if bytes.count == 24 {
            guard bytes[19] == UInt8(ascii: "."), let fraction = number(20..<23) else { return nil }
            millisecond = fraction
        }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...monthDays[month - 1]).contains(day) else { return nil }
        // Days from 1970-01-01: the whole years, with a leap day for each leap year passed, then
        // the whole months of this year.
        let yearsBefore = year - 1
        func leapDays(through year: Int) -> Int { year / 4 - year / 100 + year / 400 }
        let days =
            (year - 1970) * 365 + leapDays(through: yearsBefore) - leapDays(through: 1969)
            + monthDays[..<(month - 1)].reduce(0, +) + day - 1
        let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second
        return Int64(seconds) * 1000 + Int64(millisecond)
    }

    /// `date` to the nearest millisecond, written with exactly three digits (the seconds by the
    /// format style, the milliseconds counted here: the style's own fraction may cut `.123` to `.122`).
    static func formatDate(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let (wholeSeconds, millisecond) = fraction < 0 ? (seconds - 1, fraction + 1000) : (seconds, fraction)
        let text = withoutFraction.format(Date(timeIntervalSince1970: Double(wholeSeconds)))
        let digits = String(millisecond)
        return text.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    private static func csvRecords(_ text: String) throws(Unreadable) -> RawRecords {
        let records = CSVReader.records(text)
        guard let header = records.first, header.error == nil else {
            throw Unreadable(description: "the file is neither {\"results\": [...]} JSON nor CSV with a header line")
        }
        let names = header.fields.map(\.trimmingSpaces)
        let missing = requiredColumns.filter { !names.contains($0) }
        guard missing.isEmpty else {
            throw Unreadable(
                description: "the CSV header (line \(header.line)) lacks \(missing.joined(separator: ", ")); it needs "
                    + requiredColumns.joined(separator: ","))
        }
        let unknown = names.filter { !requiredColumns.contains($0) && !optionalColumns.contains($0) }
        guard unknown.isEmpty, Set(names).count == names.count else {
            throw Unreadable(
                description: "the CSV header (line \(header.line)) has unknown or repeated columns: "
                    + (unknown.isEmpty ? names.joined(separator: ",") : unknown.joined(separator: ", ")))
        }
        return records.dropFirst().map { record in
            if let error = record.error { return (record.line, .failure(FieldProblem(reason: error))) }
            guard record.fields.count == names.count else {
                let count = "\(record.fields.count) fields where the header has \(names.count)"
                return (record.line, .failure(FieldProblem(reason: count)))
            }
            return (record.line, .success(Fields(Dictionary(uniqueKeysWithValues: zip(names, record.fields)))))
        }
    }
}

extension String {
    /// Without the spaces and tabs at either end (what `trimmingCharacters(in: .whitespaces)` takes
    /// off: tab and the space separators), in Swift: Foundation's goes through `NSString` on Linux
    /// and was a quarter of a 100,000-pin import.
    var trimmingSpaces: String {
        // Most fields begin and end with a visible ASCII character: nothing to look up.
        if let first = utf8.first, let last = utf8.last, first > 0x20, first < 0x7F, last > 0x20, last < 0x7F {
            return self
        }
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        if first == scalars.startIndex && last == scalars.index(before: scalars.endIndex) { return self }
        return String(scalars[first...last])
    }
}
