import Foundation

/// The JSON form of a class map file: `{"results": [ {StudentLocation}, … ]}`, read leniently as
/// the Udacity API writes it (numbers or numeric text for coordinates, null for a missing field),
/// each record numbered by the line its `{` is on.
enum PinFileJSON {
    static func records(_ text: String, data: Data) throws(PinFile.Unreadable) -> PinFile.RawRecords {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: data)
        } catch DecodingError.keyNotFound {
            throw PinFile.Unreadable(description: "the JSON is not {\"results\": [...]}")
        } catch DecodingError.typeMismatch {
            throw PinFile.Unreadable(description: "the JSON is not {\"results\": [...]}")
        } catch {
            throw PinFile.Unreadable(description: "the file starts with { but is not valid JSON (\(error))")
        }
        let lines = elementLines(Array(data))
        return document.results.enumerated().map { index, element in
            let line = index < lines.count ? lines[index] : 0
            guard case .record(let record) = element else {
                return (line, .failure(PinFile.FieldProblem(reason: "the record is not a JSON object")))
            }
            var fields: PinFile.Fields = [:]
            for (name, value) in record {
                switch value {
                case .text(let text): fields[name] = text
                case .number(let number): fields[name] = Self.text(number)
                case .null: fields[name] = ""
                case .other:
                    return (line, .failure(PinFile.FieldProblem(reason: "\(name) is neither text nor a number")))
                }
            }
            return (line, .success(fields))
        }
    }

    private struct Document: Decodable {
        var results: [Element]
    }

    /// One element of `results`: an object of fields, or anything else (a bad record).
    private enum Element: Decodable {
        case record([String: FieldValue])
        case other

        init(from decoder: any Decoder) throws {
            if let fields = try? decoder.singleValueContainer().decode([String: FieldValue].self) {
                self = .record(fields)
            } else {
                self = .other
            }
        }
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

    /// The 1-based line where each element of the top-level object's `results` array starts.
    static func elementLines(_ bytes: [UInt8]) -> [Int] {
        var lines: [Int] = []
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
        for byte in bytes {
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
                lines.append(line)
                expectingElement = false
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                current = []
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if byte == UInt8(ascii: "["), depth == 1, keyIsResults {
                    inResults = true
                    expectingElement = true
                }
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 1 { inResults = false }
            case UInt8(ascii: ","):
                if inResults && depth == 2 { expectingElement = true }
                if depth == 1 { keyIsResults = false }
            case UInt8(ascii: ":"):
                if depth == 1 { keyIsResults = lastString == results }
            default:
                break
            }
        }
        return lines
    }
}
