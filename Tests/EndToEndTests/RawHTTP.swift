import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// One answer of the served API, as bytes and headers (nothing interpreted for the test).
struct RawAnswer: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    static let prefix = Array(")]}'\n".utf8)

    /// Whether the body starts with the `)]}'` security prefix.
    var isPrefixed: Bool { body.starts(with: Self.prefix) }

    /// The body as JSON (after the prefix when there is one).
    var json: [String: Any] {
        let data = Data(isPrefixed ? Array(body.dropFirst(Self.prefix.count)) : body)
        return ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any]) ?? [:]
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The `Set-Cookie` headers by cookie name.
    var setCookies: [String: String] {
        var cookies: [String: String] = [:]
        for value in header("set-cookie") {
            let name = value.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            cookies[name] = value
        }
        return cookies
    }

    /// The value a `Set-Cookie` gave `name`.
    func cookieValue(_ name: String) -> String? {
        guard let header = setCookies[name] else { return nil }
        let pair = header.split(separator: ";", maxSplits: 1).first ?? ""
        return pair.split(separator: "=", maxSplits: 1).dropFirst().first.map(String.init)
    }
}

/// Sends raw requests to a served API (no cookie jar: each test sends the cookies it means to).
struct RawHTTP: Sendable {
    let baseURL: String
    var client: HTTPClient = .shared

    func send(
        _ method: HTTPMethod, _ path: String, body: String? = nil, headers: [(String, String)] = [],
        json: Bool = true
    ) async throws -> RawAnswer {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        request.headers.add(name: "Accept", value: "application/json")
        if let body {
            if json { request.headers.add(name: "Content-Type", value: "application/json") }
            request.body = .bytes(ByteBuffer(string: body))
        }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(20))
        let buffer = try await response.body.collect(upTo: 1 << 22)
        return RawAnswer(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: Array(buffer.readableBytesView))
    }

    /// Logs in with the contract's body; returns the answer.
    func logIn(_ email: String, _ password: String) async throws -> RawAnswer {
        let body = try JSONSerialization.data(withJSONObject: ["udacity": ["username": email, "password": password]])
        return try await send(.POST, "/session", body: String(decoding: body, as: UTF8.self))
    }

    /// A pin body as the apps send it.
    static func pinBody(
        uniqueKey: String, firstName: String = "Ada", lastName: String = "Lovelace", mapString: String = "London",
        mediaURL: String = "https://example.org/ada", latitude: Double = 51.5, longitude: Double = -0.12,
        until: String? = nil
    ) -> String {
        var object: [String: Any] = [
            "uniqueKey": uniqueKey, "firstName": firstName, "lastName": lastName, "mapString": mapString,
            "mediaURL": mediaURL, "latitude": latitude, "longitude": longitude,
        ]
        if let until { object["until"] = until }
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
