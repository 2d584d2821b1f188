import Foundation
import NIOConcurrencyHelpers

/// The JSON form of a class map file: `{"results": [ {StudentLocation}, … ]}`, read leniently as
/// the Udacity API writes it (numbers or numeric text for any field, null for a missing one),
/// each record numbered by the line its `{` is on.
///
/// The records are decoded as typed values of the known columns, each read as the type it
/// usually has first (a coordinate as a number, the rest as text), so a file as the API writes it
/// is read without a failed try. A field of another kind (true, false, an object, an array), which
/// is refused even under a name that is not a column, cannot be seen that way: the scan that
/// numbers the records marks the records holding one, and those few are decoded again alone, field
/// by field, to name it. A large file is decoded in two halves side by side.
enum PinFileJSON {
    static func records(_ text: String, data: Data) throws(PinFile.Unreadable) -> PinFile.RawRecords {
        let bytes = Array(data)
        let layout = scan(bytes)
        let typed = try decoded(data, bytes: bytes, layout: layout)
        let elements = layout.elements
        guard elements.count == typed.count else {
            // The scan and the decoder disagree (not expected of valid JSON): every record is read
            // field by field, numbered as far as the scan goes.
            return (try? JSONDecoder().decode(Document<FieldByField>.self, from: data))
                .map { fallback in
                    fallback.results.enumerated().map { index, element in
                        (index < elements.count ? elements[index].line : 0, element.fields)
                    }
                } ?? []
        }
        return zip(elements, typed).map { element, typed in
            guard typed.object else {
                return (element.line, .failure(PinFile.FieldProblem(reason: "the record is not a JSON object")))
            }
            guard let fields = typed.fields, !element.hasOtherValue else {
                return (element.line, fieldByField(bytes[element.start..<element.end]))
            }
            return (element.line, .success(fields))
        }
    }

    /// The fewest records a file has for its halves to be decoded side by side.
    static let halvesFrom = 2_000

    /// The elements of `results` as typed records. A large file is decoded in two halves side by
    /// side (each half a JSON array of its elements, as the scan found them), while the whole file
    /// is checked on its own to be `{"results": [...]}` JSON, which is what refuses a bad one
    /// either way; a smaller file, or one whose halves do not decode as the scan expects, whole.
    private static func decoded(_ data: Data, bytes: [UInt8], layout: Layout) throws(PinFile.Unreadable)
        -> [TypedRecord]
    {
        if layout.elements.count >= halvesFrom, layout.resultsArrays == 1, let halves = halves(bytes, layout) {
            let found = NIOLockedValueBox<(check: Result<Int, any Error>?, halves: [[TypedRecord]?])>(
                (nil, [nil, nil]))
            DispatchQueue.concurrentPerform(iterations: 3) { task in
                if task == 2 {
                    let check = Result { try JSONDecoder().decode(Document<Skipped>.self, from: data).results.count }
                    found.withLockedValue { $0.check = check }
                } else {
                    let half = try? JSONDecoder().decode([TypedRecord].self, from: halves[task])
                    found.withLockedValue { $0.halves[task] = half }
                }
            }
            let (check, decodedHalves) = found.withLockedValue { $0 }
            switch check {
            case .failure(let error): throw unreadable(error)
            case .success(let count):
                if let first = decodedHalves[0], let second = decodedHalves[1],
                    count == layout.elements.count, first.count + second.count == count
                {
                    return first + second
                }
            case nil: break
            }
        }
        do {
            return try JSONDecoder().decode(Document<TypedRecord>.self, from: data).results
        } catch {
            throw unreadable(error)
        }
    }

    /// Why a file that starts with `{` cannot be read.
    private static func unreadable(_ error: any Error) -> PinFile.Unreadable {
        switch error as? DecodingError {
        case .keyNotFound, .typeMismatch: PinFile.Unreadable(description: "the JSON is not {\"results\": [...]}")
        default: PinFile.Unreadable(description: "the file starts with { but is not valid JSON (\(error))")
        }
    }

    /// The elements of `results` in two JSON arrays, the first half and the second; nil when the
    /// bytes between the halves are not the one comma (and spaces) the scan expects.
    private static func halves(_ bytes: [UInt8], _ layout: Layout) -> [Data]? {
        let elements = layout.elements
        let middle = elements.count / 2
        var firstEnd = elements[middle].start
        while firstEnd > elements[middle - 1].start, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[firstEnd - 1]) {
            firstEnd -= 1
        }
        guard firstEnd > elements[middle - 1].start, bytes[firstEnd - 1] == UInt8(ascii: ","),
            layout.resultsEnd > elements[middle].start
        else { return nil }
        func array(_ range: Range<Int>) -> Data {
            var data = Data(capacity: range.count + 2)
            data.append(UInt8(ascii: "["))
            data.append(contentsOf: bytes[range])
            data.append(UInt8(ascii: "]"))
            return data
        }
        return [
            array(elements[0].start..<firstEnd - 1), array(elements[middle].start..<layout.resultsEnd),
        ]
    }

    /// An element of `results` passed over: decoding a document of them checks the file is
    /// `{"results": [...]}` JSON and counts its elements.
    private struct Skipped: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    private struct Document<Element: Decodable>: Decodable {
        var results: [Element]
    }

    /// One element of `results` read as the columns of a record: `object` false when it is not an
    /// object. Text where a number is usual, and a number where text is, are taken too; a field
    /// that is neither (true, a number too large for a Double) leaves `fields` nil with `object`
    /// true, and the record is read again field by field.
    private struct TypedRecord: Decodable {
        var fields: PinFile.Fields?
        var object = false

        init(from decoder: any Decoder) throws {
            guard let container = try? decoder.container(keyedBy: PinFile.Column.self) else { return }
            object = true
            var fields = PinFile.Fields()
            do {
                for column in PinFile.Column.allCases {
                    fields[column] = try Self.value(column, in: container)
                }
            } catch {
                return
            }
            self.fields = fields
        }

        /// The field as text; nil when the record lacks it or it is null; throws when it is neither
        /// text nor a number a Double holds.
        private static func value(_ column: PinFile.Column, in container: KeyedDecodingContainer<PinFile.Column>)
            throws -> String?
        {
            if column.isCoordinate, let number = try? container.decodeIfPresent(Double.self, forKey: column) {
                return text(number)
            }
            if let text = try? container.decodeIfPresent(String.self, forKey: column) { return text }
            return try container.decodeIfPresent(Double.self, forKey: column).map(text)
        }
    }

    /// One element of `results` read field by field, whatever their names: an object's fields as
    /// text, or why it cannot be a record.
    private struct FieldByField: Decodable {
        var fields: Result<PinFile.Fields, PinFile.FieldProblem>

        init(from decoder: any Decoder) throws {
            guard let record = try? decoder.singleValueContainer().decode([String: FieldValue].self) else {
                fields = .failure(PinFile.FieldProblem(reason: "the record is not a JSON object"))
                return
            }
            var named: [String: String] = [:]
            for (name, value) in record {
                switch value {
                case .text(let text): named[name] = text
                case .number(let number): named[name] = PinFileJSON.text(number)
                case .null: named[name] = ""
                case .other:
                    fields = .failure(PinFile.FieldProblem(reason: "\(name) is neither text nor a number"))
                    return
                }
            }
            fields = .success(PinFile.Fields(named))
        }
    }

    /// The record in `bytes` (one element of `results`, as the scan found it) read field by field.
    private static func fieldByField(_ bytes: ArraySlice<UInt8>) -> Result<PinFile.Fields, PinFile.FieldProblem> {
        guard let element = try? JSONDecoder().decode(FieldByField.self, from: Data(bytes)) else {
            return .failure(PinFile.FieldProblem(reason: "the record is not a JSON object"))
        }
        return element.fields
    }

    private enum FieldValue: Decodable {
        case text(String)
        case number(Double)
        case null
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let text = try? container.decode(String.self) {
                self = .text(text)
            } else if (try? container.decode(Bool.self)) != nil {
                self = .other
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else {
                self = .other
            }
        }
    }

    /// A number as text: whole numbers without a fraction (an account key of digits).
    private static func text(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return String(number)
    }

    /// Where an element of `results` is in the file.
    struct Element: Equatable {
        /// The 1-based line it starts on.
        var line: Int
        /// Its first byte, and the byte after its last (its start for a value that is neither an
        /// object nor an array).
        var start: Int
        var end: Int
        /// Whether it holds, inside it, true, false, an object or an array.
        var hasOtherValue: Bool
    }

    /// The elements of the top-level object's `results` array as a scan of the file finds them.
    struct Layout {
        /// In order.
        var elements: [Element] = []
        /// How many `results` arrays the top-level object has (one in a good file).
        var resultsArrays = 0
        /// Where the (last) `results` array's closing `]` is.
        var resultsEnd = 0
    }

    /// Where the elements of the top-level object's `results` array are.
    static func scan(_ bytes: [UInt8]) -> Layout {
        var layout = Layout()
        var elements: [Element] = []
        var line = 1
        var depth = 0
        var inString = false
        var escaped = false
        var current: [UInt8] = []
        var lastString: [UInt8] = []
        var keyIsResults = false
        var inResults = false
        var expectingElement = false
        let results = Array("results".utf8)
        for (offset, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: "\n") { line += 1 }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 1 { lastString = current }
                } else if depth == 1 {
                    current.append(byte)
                }
                continue
            }
            let isSpace = byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
            if inResults, depth == 2, expectingElement, !isSpace, byte != UInt8(ascii: "]") {
                elements.append(Element(line: line, start: offset, end: offset, hasOtherValue: false))
                expectingElement = false
            }
            if inResults, depth >= 3, !elements.isEmpty,
                byte == UInt8(ascii: "t") || byte == UInt8(ascii: "f") || byte == UInt8(ascii: "{")
                    || byte == UInt8(ascii: "[")
            {
                elements[elements.count - 1].hasOtherValue = true
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                current = []
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if byte == UInt8(ascii: "["), depth == 1, keyIsResults {
                    inResults = true
                    expectingElement = true
                    layout.resultsArrays += 1
                }
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 1, inResults {
                    inResults = false
                    layout.resultsEnd = offset
                }
                if inResults, depth == 2, !elements.isEmpty { elements[elements.count - 1].end = offset + 1 }
            case UInt8(ascii: ","):
                if inResults && depth == 2 { expectingElement = true }
                if depth == 1 { keyIsResults = false }
            case UInt8(ascii: ":"):
                if depth == 1 { keyIsResults = lastString == results }
            default:
                break
            }
        }
        layout.elements = elements
        return layout
    }
}
