import Foundation
import Hummingbird

/// An in-memory server that speaks the whole Udacity "On The Map" API (`udacity-api.md`) on
/// 127.0.0.1, with switchable faults, for tests of HTTP clients and of the bot end to end.
///
/// ```swift
/// let server = FakeUdacityServer(accounts: [.init(email: "a@b.c", password: "pw", key: "u1",
///                                                 firstName: "Ada", lastName: "Lovelace")])
/// let baseURL = try await server.start()   // http://127.0.0.1:PORT/v1
/// defer { Task { await server.stop() } }
/// ```
public actor FakeUdacityServer {
    /// An account that can log in.
    public struct Account: Sendable, Hashable {
        public var email: String
        public var password: String
        /// The opaque account key (`uniqueKey` of its pin).
        public var key: String
        public var firstName: String
        public var lastName: String
        public var nickname: String

        public init(
            email: String, password: String, key: String, firstName: String, lastName: String,
            nickname: String? = nil
        ) {
            self.email = email
            self.password = password
            self.key = key
            self.firstName = firstName
            self.lastName = lastName
            self.nickname = nickname ?? firstName
        }
    }

    /// A stored pin.
    public struct Location: Sendable, Hashable {
        public var objectId: String
        public var uniqueKey: String
        public var firstName: String
        public var lastName: String
        public var mapString: String
        public var mediaURL: String
        public var latitude: Double
        public var longitude: Double
        public var createdAt: Date
        public var updatedAt: Date

        public init(
            objectId: String, uniqueKey: String, firstName: String, lastName: String,
            mapString: String, mediaURL: String, latitude: Double, longitude: Double,
            createdAt: Date, updatedAt: Date
        ) {
            self.objectId = objectId
            self.uniqueKey = uniqueKey
            self.firstName = firstName
            self.lastName = lastName
            self.mapString = mapString
            self.mediaURL = mediaURL
            self.latitude = latitude
            self.longitude = longitude
            self.createdAt = createdAt
            self.updatedAt = updatedAt
        }
    }

    /// Ways to misbehave.
    public enum Fault: Sendable, Hashable {
        /// Answer every request with this status and `{"code": status, "error": …}`.
        case serverError(Int)
        /// Answer 200 with a truncated JSON body.
        case malformedJSON
        /// Hold every request (longer than any client timeout) and never answer in time.
        case neverAnswer
        /// Wait this long, then answer normally (a slow server: state changes after the wait).
        case slowAnswer(Duration)
        /// Answer 200 with an HTML page instead of JSON (a proxy or captive portal in the way).
        case htmlPage
        /// Leave out the `)]}'` security prefix on `/session` and `/users` answers.
        case prefixMissing
        /// Nest the user profile under `"user"` (older servers).
        case nestedUserProfile
        /// Add the messy records of ``messyRecordIDsKept`` and ``messyRecordIDsSkipped`` to
        /// every location list (before the stored ones).
        case messyRecords
    }

    /// The parts of the API a fault can be limited to.
    public enum Route: Sendable, Hashable, CaseIterable {
        case session, users, studentLocation
    }

    /// The messy records a lenient client keeps (odd fields, but valid coordinates).
    public static let messyRecordIDsKept: Set<String> = ["messy-strings", "messy-junk"]
    /// The messy records a lenient client skips (no, null, out-of-range or textual coordinates).
    public static let messyRecordIDsSkipped: Set<String> = [
        "messy-nocoords", "messy-null", "messy-range", "messy-text",
    ]

    /// The API root path the server answers under.
    public nonisolated let basePath: String
    private let neverAnswerDelay: Duration
    private let sessionLifetime: TimeInterval

    private var accounts: [Account]
    private var stored: [StoredLocation] = []
    private var sequence = 0
    private var sessions: [String: Session] = [:]
    private var issuedTokens: [String] = []
    private var faultsByRoute: [Route: Set<Fault>] = [:]
    private var log: [RecordedHTTPRequest] = []
    private var lastTimestamp = Date(timeIntervalSince1970: 0)
    private var server: FakeHTTPServerRunner?
    private var startedURL: URL?
    /// The port of the last start: a restarted server comes back where its clients expect it.
    private var lastPort: Int?

    private struct StoredLocation {
        var location: Location
        var sequence: Int
    }

    private struct Session {
        var id: String
        var accountKey: String
        var xsrfToken: String
        var expiration: Date
    }

    /// - Parameters:
    ///   - accounts: who can log in.
    ///   - locations: pins present from the start (dates are truncated to milliseconds).
    ///   - basePath: the API root path, `/v1` like the public server.
    ///   - neverAnswerDelay: how long `.neverAnswer` holds a request before a 504.
    public init(
        accounts: [Account] = [], locations: [Location] = [], basePath: String = "/v1",
        neverAnswerDelay: Duration = .seconds(60), sessionLifetime: TimeInterval = 14 * 86_400
    ) {
        self.accounts = accounts
        self.basePath = basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath
        self.neverAnswerDelay = neverAnswerDelay
        self.sessionLifetime = sessionLifetime
        for var location in locations {
            location.createdAt = FakeTimestamp.truncatedToMilliseconds(location.createdAt)
            location.updatedAt = FakeTimestamp.truncatedToMilliseconds(location.updatedAt)
            sequence += 1
            stored.append(StoredLocation(location: location, sequence: sequence))
        }
    }

    // MARK: Lifecycle

    /// Starts listening on 127.0.0.1 (a free port) and returns the API base URL,
    /// e.g. `http://127.0.0.1:54321/v1`. Starting a started server returns the same URL; starting
    /// a stopped one binds the port it had (clients were refused meanwhile, like a server that was
    /// down and came back).
    public func start() async throws -> URL {
        if let startedURL { return startedURL }
        let server = FakeHTTPServerRunner(label: "FakeUdacityServer") { [weak self] request in
            guard let self else { return Response(status: .serviceUnavailable) }
            return try await self.respond(to: request)
        }
        let port = try await server.start(preferredPort: lastPort ?? 0)
        lastPort = port
        self.server = server
        guard let url = URL(string: "http://127.0.0.1:\(port)\(basePath)") else {
            await server.stop()
            throw FakeHTTPServerError.noBoundPort
        }
        startedURL = url
        return url
    }

    /// Stops the server (held requests are abandoned). Stored data is kept.
    public func stop() async {
        let server = self.server
        self.server = nil
        startedURL = nil
        await server?.stop()
    }

    /// The API base URL while running.
    public var baseURL: URL? { startedURL }

    // MARK: Test controls

    /// Replaces the faults of the given routes (all by default). An empty set clears them.
    public func setFaults(_ faults: Set<Fault>, on routes: Set<Route> = Set(Route.allCases)) {
        for route in routes { faultsByRoute[route] = faults }
    }

    /// Sets one fault alone on the given routes (all by default).
    public func setFault(_ fault: Fault, on routes: Set<Route> = Set(Route.allCases)) {
        setFaults([fault], on: routes)
    }

    public func clearFaults() { faultsByRoute = [:] }

    /// Every request received so far, oldest first.
    public func requests() -> [RecordedHTTPRequest] { log }

    public func clearRequests() { log = [] }

    /// The stored pins, newest update first.
    public func locations() -> [Location] { sortedLocations(order: "-updatedAt").map(\.location) }

    /// Adds a pin as if posted elsewhere; returns it with its objectId and times.
    @discardableResult
    public func addLocation(
        uniqueKey: String, firstName: String, lastName: String, mapString: String, mediaURL: String,
        latitude: Double, longitude: Double
    ) -> Location {
        let now = nextTimestamp()
        let location = Location(
            objectId: newObjectId(), uniqueKey: uniqueKey, firstName: firstName, lastName: lastName,
            mapString: mapString, mediaURL: mediaURL, latitude: latitude, longitude: longitude,
            createdAt: now, updatedAt: now)
        sequence += 1
        stored.append(StoredLocation(location: location, sequence: sequence))
        return location
    }

    public func addAccount(_ account: Account) { accounts.append(account) }

    /// How many sessions are open (logged in and not logged out).
    public var activeSessionCount: Int { sessions.count }

    /// Every XSRF token handed out by `POST /session`, oldest first.
    public func issuedXSRFTokens() -> [String] { issuedTokens }

    // MARK: Serving

    private enum Reply {
        case answer(status: HTTPResponse.Status, body: [UInt8], headers: HTTPFields)
        case hold(Duration)
    }

    /// How long requests to the route of `path` wait before being handled (`.slowAnswer`).
    private func slowness(ofPath path: String) -> Duration? {
        let subpath = path.removingPercentEncoding.map { String($0.dropFirst(basePath.count)) } ?? ""
        let route: Route =
            subpath == "/session" ? .session : subpath.hasPrefix("/users/") ? .users : .studentLocation
        for fault in faultsByRoute[route] ?? [] {
            if case .slowAnswer(let delay) = fault { return delay }
        }
        return nil
    }

    private nonisolated func respond(to request: Request) async throws -> Response {
        var request = request
        let bodyBuffer = try await request.collectBody(upTo: 1 << 20)
        let body = Data(bodyBuffer.readableBytesView)
        if let delay = await slowness(ofPath: request.uri.path) {
            try await Task.sleep(for: delay)
        }
        switch await handle(request, body: body) {
        case .answer(let status, let bytes, let headers):
            return Response.fakeAnswer(bytes, status: status, headers: headers)
        case .hold(let delay):
            try await Task.sleep(for: delay)
            return Response.fakeAnswer(
                Array(#"{"code":504,"error":"Gateway timeout."}"#.utf8), status: .gatewayTimeout)
        }
    }

    private func handle(_ request: Request, body: Data) -> Reply {
        let recorded = RecordedHTTPRequest(request: request, body: nil)
        let isSessionPath = recorded.path == basePath + "/session"
        var entry = recorded
        if !isSessionPath, !body.isEmpty { entry.body = String(decoding: body, as: UTF8.self) }
        log.append(entry)

        guard recorded.path.hasPrefix(basePath + "/") else {
            return error(.notFound, code: 404, "Not found.")
        }
        let subpath = String(recorded.path.dropFirst(basePath.count))
        let route: Route
        if subpath == "/session" {
            route = .session
        } else if subpath.hasPrefix("/users/") {
            route = .users
        } else if subpath == "/StudentLocation" || subpath.hasPrefix("/StudentLocation/") {
            route = .studentLocation
        } else {
            return error(.notFound, code: 404, "Not found.")
        }

        let faults = faultsByRoute[route] ?? []
        if faults.contains(.neverAnswer) { return .hold(neverAnswerDelay) }
        if let status = faults.compactMap({ fault -> Int? in
            if case .serverError(let status) = fault { return status }
            return nil
        }).first {
            return error(HTTPResponse.Status(code: status), code: status, "Simulated server error.")
        }
        if faults.contains(.htmlPage) {
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            return .answer(
                status: .ok,
                body: Array("<!doctype html><html><body><h1>Welcome to the hotel Wi-Fi</h1></body></html>".utf8),
                headers: headers)
        }
        let prefixed = route != .studentLocation && !faults.contains(.prefixMissing)
        if faults.contains(.malformedJSON) {
            return answer(.ok, prefixed: prefixed, #"{"results": [{"objectId": "trunc"#)
        }

        let method = recorded.method
        switch (route, method) {
        case (.session, "POST"):
            return logIn(body: body, prefixed: prefixed)
        case (.session, "DELETE"):
            return logOut(token: recorded.header("x-xsrf-token"), prefixed: prefixed)
        case (.users, "GET"):
            let key = String(subpath.dropFirst("/users/".count))
            return profile(key: key, prefixed: prefixed, nested: faults.contains(.nestedUserProfile))
        case (.studentLocation, "GET") where subpath == "/StudentLocation":
            return list(query: recorded.query, messy: faults.contains(.messyRecords))
        case (.studentLocation, "POST") where subpath == "/StudentLocation":
            return create(body: body)
        case (.studentLocation, "PUT") where subpath.hasPrefix("/StudentLocation/"):
            return update(objectId: String(subpath.dropFirst("/StudentLocation/".count)), body: body)
        default:
            return error(.methodNotAllowed, code: 405, "Method not allowed.")
        }
    }

    private func logIn(body: Data, prefixed: Bool) -> Reply {
        struct LoginBody: Decodable {
            struct Credentials: Decodable {
                var username: String
                var password: String
            }
            var udacity: Credentials
        }
        guard let login = try? JSONDecoder().decode(LoginBody.self, from: body) else {
            return error(.badRequest, code: 400, "Failed to parse JSON body.", statusKey: "status")
        }
        let email = login.udacity.username.lowercased()
        guard
            let account = accounts.first(where: {
                $0.email.lowercased() == email && $0.password == login.udacity.password
            })
        else {
            return answer(
                .forbidden, prefixed: prefixed,
                #"{"status": 403, "error": "Account not found or invalid credentials."}"#)
        }
        let session = Session(
            id: UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased(),
            accountKey: account.key,
            xsrfToken: UUID().uuidString.replacingOccurrences(of: "-", with: ""),
            expiration: Date().addingTimeInterval(sessionLifetime))
        sessions[session.id] = session
        issuedTokens.append(session.xsrfToken)
        var headers = HTTPFields()
        headers[.setCookie] = "XSRF-TOKEN=\(session.xsrfToken); Path=/"
        let json =
            #"{"account": {"registered": true, "key": \#(quotedJSON(account.key))}, "#
            + #""session": {"id": \#(quotedJSON(session.id)), "#
            + #""expiration": "\#(FakeTimestamp.format(session.expiration, fractionDigits: 6))"}}"#
        return answer(.ok, prefixed: prefixed, json, headers: headers)
    }

    private func logOut(token: String?, prefixed: Bool) -> Reply {
        guard let token, let session = sessions.values.first(where: { $0.xsrfToken == token }) else {
            return answer(
                .forbidden, prefixed: prefixed, #"{"status": 403, "error": "Missing or invalid XSRF token."}"#
            )
        }
        sessions[session.id] = nil
        var headers = HTTPFields()
        headers[.setCookie] = "XSRF-TOKEN=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT"
        let json =
            #"{"session": {"id": \#(quotedJSON(session.id)), "#
            + #""expiration": "\#(FakeTimestamp.format(Date(), fractionDigits: 6))"}}"#
        return answer(.ok, prefixed: prefixed, json, headers: headers)
    }

    private func profile(key: String, prefixed: Bool, nested: Bool) -> Reply {
        guard let account = accounts.first(where: { $0.key == key }) else {
            return answer(.notFound, prefixed: prefixed, #"{"status": 404, "error": "User not found."}"#)
        }
        let fields =
            #"{"first_name": \#(quotedJSON(account.firstName)), "#
            + #""last_name": \#(quotedJSON(account.lastName)), "#
            + #""nickname": \#(quotedJSON(account.nickname)), "key": \#(quotedJSON(account.key)), "#
            + #""_registered": true, "guard": {"allowed": true}}"#
        return answer(.ok, prefixed: prefixed, nested ? #"{"user": \#(fields)}"# : fields)
    }

    private func list(query: [String: String], messy: Bool) -> Reply {
        var limit = 100
        if let text = query["limit"] {
            guard let value = Int(text), value >= 0 else {
                return error(.badRequest, code: 102, "Invalid limit.")
            }
            limit = min(value, 1000)
        }
        var skip = 0
        if let text = query["skip"] {
            guard let value = Int(text), value >= 0 else {
                return error(.badRequest, code: 102, "Invalid skip.")
            }
            skip = value
        }
        let order = query["order"]
        guard order == nil || ["-updatedAt", "updatedAt", "-createdAt", "createdAt"].contains(order ?? "")
        else {
            return error(.badRequest, code: 105, "Invalid order.")
        }
        var records: [(uniqueKey: String, json: String)] = []
        if messy { records += Self.messyRecords }
        records += sortedLocations(order: order).map { ($0.location.uniqueKey, Self.json(of: $0.location)) }
        if let uniqueKey = query["uniqueKey"] {
            records = records.filter { $0.uniqueKey == uniqueKey }
        }
        let page = records.dropFirst(skip).prefix(limit)
        return answer(
            .ok, prefixed: false, #"{"results": ["# + page.map(\.json).joined(separator: ", ") + "]}")
    }

    private struct LocationBody: Decodable {
        var uniqueKey: String
        var firstName: String
        var lastName: String
        var mapString: String
        var mediaURL: String
        var latitude: Double
        var longitude: Double
    }

    private func create(body: Data) -> Reply {
        guard let input = try? JSONDecoder().decode(LocationBody.self, from: body) else {
            return error(.badRequest, code: 142, "Failed to parse JSON body.")
        }
        let location = addLocation(
            uniqueKey: input.uniqueKey, firstName: input.firstName, lastName: input.lastName,
            mapString: input.mapString, mediaURL: input.mediaURL, latitude: input.latitude,
            longitude: input.longitude)
        return answer(
            .ok, prefixed: false,
            #"{"createdAt": "\#(FakeTimestamp.format(location.createdAt))", "#
                + #""objectId": \#(quotedJSON(location.objectId))}"#
        )
    }

    private func update(objectId: String, body: Data) -> Reply {
        guard let index = stored.firstIndex(where: { $0.location.objectId == objectId }) else {
            return error(.notFound, code: 101, "Object not found.")
        }
        guard let input = try? JSONDecoder().decode(LocationBody.self, from: body) else {
            return error(.badRequest, code: 142, "Failed to parse JSON body.")
        }
        let now = nextTimestamp()
        stored[index].location.uniqueKey = input.uniqueKey
        stored[index].location.firstName = input.firstName
        stored[index].location.lastName = input.lastName
        stored[index].location.mapString = input.mapString
        stored[index].location.mediaURL = input.mediaURL
        stored[index].location.latitude = input.latitude
        stored[index].location.longitude = input.longitude
        stored[index].location.updatedAt = now
        return answer(.ok, prefixed: false, #"{"updatedAt": "\#(FakeTimestamp.format(now))"}"#)
    }

    // MARK: Building answers

    private func answer(
        _ status: HTTPResponse.Status, prefixed: Bool, _ json: String, headers: HTTPFields = [:]
    ) -> Reply {
        let bytes = (prefixed ? Array(")]}'\n".utf8) : []) + Array(json.utf8)
        return .answer(status: status, body: bytes, headers: headers)
    }

    private func error(
        _ status: HTTPResponse.Status, code: Int, _ message: String, statusKey: String = "code"
    ) -> Reply {
        answer(status, prefixed: false, #"{"\#(statusKey)": \#(code), "error": \#(quotedJSON(message))}"#)
    }

    private func sortedLocations(order: String?) -> [StoredLocation] {
        switch order {
        case "-updatedAt":
            return stored.sorted {
                ($0.location.updatedAt, $0.sequence) > ($1.location.updatedAt, $1.sequence)
            }
        case "updatedAt":
            return stored.sorted {
                ($0.location.updatedAt, $0.sequence) < ($1.location.updatedAt, $1.sequence)
            }
        case "-createdAt":
            return stored.sorted {
                ($0.location.createdAt, $0.sequence) > ($1.location.createdAt, $1.sequence)
            }
        case "createdAt":
            return stored.sorted {
                ($0.location.createdAt, $0.sequence) < ($1.location.createdAt, $1.sequence)
            }
        default:
            return stored
        }
    }

    /// Now, truncated to milliseconds and strictly after the previous timestamp handed out.
    private func nextTimestamp() -> Date {
        var now = FakeTimestamp.truncatedToMilliseconds(Date())
        if now <= lastTimestamp { now = lastTimestamp.addingTimeInterval(0.001) }
        now = FakeTimestamp.truncatedToMilliseconds(now.addingTimeInterval(0.0000001))
        lastTimestamp = now
        return now
    }

    private func newObjectId() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<10).map { _ in alphabet.randomElement() ?? "x" })
    }

    private static func json(of location: Location) -> String {
        #"{"objectId": \#(quotedJSON(location.objectId)), "uniqueKey": \#(quotedJSON(location.uniqueKey)), "#
            + #""firstName": \#(quotedJSON(location.firstName)), "#
            + #""lastName": \#(quotedJSON(location.lastName)), "#
            + #""mapString": \#(quotedJSON(location.mapString)), "#
            + #""mediaURL": \#(quotedJSON(location.mediaURL)), "#
            + #""latitude": \#(location.latitude), "longitude": \#(location.longitude), "#
            + #""createdAt": "\#(FakeTimestamp.format(location.createdAt))", "#
            + #""updatedAt": "\#(FakeTimestamp.format(location.updatedAt))"}"#
    }

    /// Shared data as it really comes: missing fields, links without a scheme, numbers as
    /// strings or as junk, records without coordinates, other date precisions.
    private static let messyRecords: [(uniqueKey: String, json: String)] = [
        (
            "messy-1",
            #"{"objectId": "messy-strings", "uniqueKey": "messy-1", "firstName": "Ana", "#
                + #""mapString": "Lima, Peru", "#
                + #""mediaURL": "example.com/ana", "latitude": "-12.0464", "longitude": " -77.0428", "#
                + #""createdAt": "2015-02-25T01:10:38Z", "updatedAt": "2015-02-26T01:10:38Z"}"#
        ),
        (
            "messy-2",
            #"{"objectId": "messy-nocoords", "uniqueKey": "messy-2", "#
                + #""firstName": "No", "lastName": "Coordinates", "#
                + #""mapString": "Nowhere", "mediaURL": "https://example.org", "#
                + #""createdAt": "2015-02-25T01:10:38.103Z", "updatedAt": "2015-02-25T01:10:38.103Z"}"#
        ),
        (
            "messy-3",
            #"{"objectId": "messy-null", "uniqueKey": "messy-3", "#
                + #""firstName": "Null", "lastName": "Latitude", "#
                + #""latitude": null, "longitude": 2.35}"#
        ),
        (
            "messy-4",
            #"{"objectId": "messy-range", "uniqueKey": "messy-4", "#
                + #""firstName": "Out", "lastName": "Of Range", "#
                + #""latitude": 123.4, "longitude": 10.0}"#
        ),
        (
            "12345",
            #"{"objectId": "messy-junk", "uniqueKey": 12345, "firstName": "", "latitude": 48.8566, "#
                + #""longitude": 2.3522, "mediaURL": "javascript:alert(1)", "#
                + #""updatedAt": "2015-05-10T16:48:30.760460Z", "extra": {"nested": [1, 2, 3]}}"#
        ),
        (
            "messy-6",
            #"{"objectId": "messy-text", "uniqueKey": "messy-6", "firstName": "Bad", "lastName": "Numbers", "#
                + #""latitude": "north", "longitude": "east"}"#
        ),
    ]
}
