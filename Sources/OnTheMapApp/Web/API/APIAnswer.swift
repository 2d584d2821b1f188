import Foundation
import Hummingbird
import Localization
import NIOCore

/// The answers of the v1 API, in the shapes of the On The Map contract: session and user answers
/// behind the `)]}'` security prefix with `{"status", "error"}` errors; location answers plain,
/// with `{"code", "error"}` errors. Nothing is cached, and nothing is sniffed as another type.
enum APIAnswer {
    static let securityPrefix = Array(")]}'\n".utf8)

    /// A JSON answer; `prefixed` puts the security prefix first.
    static func json(
        _ object: [String: Any], status: HTTPResponse.Status = .ok, prefixed: Bool = false,
        headers extra: HTTPFields = [:]
    ) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        var headers = extra
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        let bytes = (prefixed ? securityPrefix : []) + Array(data)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A session or user error: prefixed `{"status": <status>, "error": message}`.
    /// `language`: the message's language (the request's `Accept-Language`), sent as
    /// `Content-Language`; the status and the shape stay the same in every language.
    static func statusError(
        _ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:], language: Language? = nil
    ) -> Response {
        var headers = headers
        if let language { headers.append(contentsOf: WebLanguages.languageHeaders(language, varyOnCookie: false)) }
        return json(["status": status.code, "error": message], status: status, prefixed: true, headers: headers)
    }

    /// A location (or geocode) error: `{"code": code, "error": message}`, `code` the HTTP status
    /// unless the contract has a more precise one; `language` as for ``statusError(_:_:headers:language:)``.
    static func codeError(
        _ status: HTTPResponse.Status, _ message: String, code: Int? = nil, language: Language? = nil
    ) -> Response {
        json(
            ["code": code ?? status.code, "error": message], status: status,
            headers: language.map { WebLanguages.languageHeaders($0, varyOnCookie: false) } ?? [:])
    }

    /// ISO-8601 UTC with milliseconds: `2015-02-25T01:10:38.103Z` (pin times).
    static func milliseconds(_ date: Date) -> String { timestamp(date, fractionDigits: 3) }

    /// ISO-8601 UTC with microseconds: `2015-05-10T16:48:30.760460Z` (session expirations).
    static func microseconds(_ date: Date) -> String { timestamp(date, fractionDigits: 6) }

    private static func timestamp(_ date: Date, fractionDigits: Int) -> String {
        let scale = fractionDigits == 3 ? 1_000.0 : 1_000_000.0
        let units = (date.timeIntervalSince1970 * scale).rounded(.down)
        let seconds = (units / scale).rounded(.down)
        let fraction = Int(units - seconds * scale)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: seconds))
        func pad(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2))T"
            + "\(pad(parts.hour, 2)):\(pad(parts.minute, 2)):\(pad(parts.second, 2))."
            + "\(pad(fraction, fractionDigits))Z"
    }
}
