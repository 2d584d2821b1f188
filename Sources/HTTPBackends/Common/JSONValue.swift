import Foundation

/// Any JSON value, decoded without a fixed schema so that messy shared data can be read leniently.
enum JSONValue: Sendable, Hashable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Parses a JSON document; nil when the bytes are not JSON.
    static func parse(_ data: Data) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: data)
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The value as text: strings as they are, numbers without a needless ".0"; nil otherwise.
    var text: String? {
        switch self {
        case .string(let value):
            return value
        case .number(let value):
            if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
            return String(value)
        case .bool(let value):
            return String(value)
        default:
            return nil
        }
    }

    /// The value as a finite number: numbers, and strings that hold one.
    var number: Double? {
        switch self {
        case .number(let value):
            return value.isFinite ? value : nil
        case .string(let value):
            guard let parsed = Double(value.trimmingCharacters(in: .whitespaces)), parsed.isFinite else {
                return nil
            }
            return parsed
        default:
            return nil
        }
    }
}
