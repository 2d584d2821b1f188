import Foundation
import Logging
import NIOConcurrencyHelpers

/// Writes one JSON object per line to standard error: `{"time":…,"level":…,"label":…,"message":…,
/// plus metadata}`. For log collectors; the default format stays human-readable.
struct JSONLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    let label: String

    private static let output = NIOLockedValueBox<FileHandle>(FileHandle.standardError)

    init(label: String) {
        self.label = label
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata { fields[key] = "\(value)" }
        for (key, value) in event.metadata ?? [:] { fields[key] = "\(value)" }
        var line = "{"
        line += "\"time\":\(Self.quote(Date().formatted(.iso8601)))"
        line += ",\"level\":\(Self.quote(event.level.rawValue))"
        line += ",\"label\":\(Self.quote(label))"
        line += ",\"message\":\(Self.quote("\(event.message)"))"
        for key in fields.keys.sorted() where !["time", "level", "label", "message"].contains(key) {
            line += ",\(Self.quote(key)):\(Self.quote(fields[key] ?? ""))"
        }
        line += "}\n"
        Self.output.withLockedValue { $0.write(Data(line.utf8)) }
    }

    /// A JSON string literal: quotes, backslashes and every control character escaped.
    static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x2028...0x2029).contains(scalar.value):
                result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
