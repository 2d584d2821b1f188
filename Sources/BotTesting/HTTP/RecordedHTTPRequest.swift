import Foundation
import Hummingbird

/// One request a fake HTTP server received, as tests see it. Secrets are never kept: the
/// `Authorization` and `Cookie` headers are redacted and `/session` bodies are dropped.
public struct RecordedHTTPRequest: Sendable, Hashable {
    public var method: String
    /// The path as received, percent-decoded, without the query ("/v1/StudentLocation").
    public var path: String
    /// The decoded query parameters (the last value wins when a name repeats).
    public var query: [String: String]
    /// Header values by lower-cased name (repeated headers joined with ", ").
    public var headers: [String: String]
    /// The body as text, when it was kept (never for `/session`).
    public var body: String?
    public var receivedAt: Date
    /// A monotonic time of receipt, for measuring spacing between requests.
    public var receivedInstant: ContinuousClock.Instant

    /// The value of a header (any case), or nil.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    static let redactedHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    init(request: Request, body: String?) {
        method = request.method.rawValue
        let rawPath = request.uri.path
        path = rawPath.removingPercentEncoding ?? rawPath
        query = Self.parseQuery(request.uri.query)
        var collected: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName.lowercased()
            let value = Self.redactedHeaders.contains(name) ? "<redacted>" : field.value
            if let existing = collected[name] {
                collected[name] = existing + ", " + value
            } else {
                collected[name] = value
            }
        }
        headers = collected
        self.body = body
        receivedAt = Date()
        receivedInstant = ContinuousClock.now
    }

    /// `a=1&b=x%20y` → ["a": "1", "b": "x y"] (`+` is kept as a plus sign).
    static func parseQuery(_ query: String?) -> [String: String] {
        guard let query, !query.isEmpty else { return [:] }
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            result[name] = value
        }
        return result
    }
}

/// ISO-8601 UTC timestamps as the On The Map API writes them.
enum FakeTimestamp {
    /// `2015-02-25T01:10:38.103Z` (fractionDigits 3) or `2015-05-10T16:48:30.760460Z` (6).
    static func format(_ date: Date, fractionDigits: Int = 3) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        var scale: Int64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        let units = Int64((date.timeIntervalSince1970 * Double(scale)).rounded())
        var seconds = units / scale
        if units < 0, units % scale != 0 { seconds -= 1 }
        let fraction = Int(units - seconds * scale)
        let whole = Date(timeIntervalSince1970: Double(seconds))
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: whole)
        func pad(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text = "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2))T"
        text += "\(pad(parts.hour, 2)):\(pad(parts.minute, 2)):\(pad(parts.second, 2))"
        if fractionDigits > 0 { text += "." + pad(fraction, fractionDigits) }
        return text + "Z"
    }

    /// A date truncated to whole milliseconds (what a client reads back from the API).
    static func truncatedToMilliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }
}

/// JSON text of a string value.
func quotedJSON(_ text: String) -> String {
    let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
    return String(decoding: data, as: UTF8.self)
}
