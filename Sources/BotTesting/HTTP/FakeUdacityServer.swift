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

    private var records: FakeUdacityRecords
    /// The most pins one `GET /StudentLocation` answers with, whatever `limit` asks.
    private let maximumPageSize: Int
    private var faultsByRoute: [Route: Set<Fault>] = [:]
    private var log: [RecordedHTTPRequest] = []
    private var slowAnswersInFlight = 0
    private var slowAnswerWaiters: [CheckedContinuation<Void, Never>] = []
    private var server: FakeHTTPServerRunner?
    private var startedURL: URL?
    /// The port of the last start: a restarted server comes back where its clients expect it.
    private var lastPort: Int?

    /// - Parameters:
    ///   - accounts: who can log in.
    ///   - locations: pins present from the start (dates are truncated to milliseconds).
    ///   - basePath: the API root path, `/v1` like the public server.
    ///   - neverAnswerDelay: how long `.neverAnswer` holds a request before a 504.
    ///   - maximumPageSize: the most pins one list answer holds (a larger `limit` gets this many).
    public init(
        accounts: [Account] = [], locations: [Location] = [], basePath: String = "/v1",
        neverAnswerDelay: Duration = .seconds(60), sessionLifetime: TimeInterval = 14 * 86_400,
        maximumPageSize: Int = 1_000
    ) {
        self.maximumPageSize = max(1, maximumPageSize)
        self.basePath = basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath
        self.neverAnswerDelay = neverAnswerDelay
        records = FakeUdacityRecords(accounts: accounts, locations: locations, sessionLifetime: sessionLifetime)
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
    public func locations() -> [Location] { records.sortedLocations(order: "-updatedAt").map(\.location) }

    /// Adds a pin as if posted elsewhere; returns it with its objectId and times.
    @discardableResult
    public func addLocation(
        uniqueKey: String, firstName: String, lastName: String, mapString: String, mediaURL: String,
        latitude: Double, longitude: Double
    ) -> Location {
        records.addLocation(
            uniqueKey: uniqueKey, firstName: firstName, lastName: lastName, mapString: mapString,
            mediaURL: mediaURL, latitude: latitude, longitude: longitude)
    }

    public func addAccount(_ account: Account) { records.accounts.append(account) }

    /// How many sessions are open (logged in and not logged out).
    public var activeSessionCount: Int { records.sessions.count }

    /// Every XSRF token handed out by `POST /session`, oldest first.
    public func issuedXSRFTokens() -> [String] { records.issuedTokens }

    /// Waits until every request held by `.slowAnswer` has been handled (or given up by the
    /// server): what it changes is then in the records.
    public func waitUntilSlowAnswersAreHandled() async {
        if slowAnswersInFlight == 0 { return }
        await withCheckedContinuation { slowAnswerWaiters.append($0) }
    }

    private func slowAnswerBegan() { slowAnswersInFlight += 1 }

    private func slowAnswerEnded() {
        slowAnswersInFlight -= 1
        guard slowAnswersInFlight == 0 else { return }
        let waiters = slowAnswerWaiters
        slowAnswerWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    // MARK: Serving

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
        let delay = await slowness(ofPath: request.uri.path)
        if delay != nil { await slowAnswerBegan() }
        let reply: FakeUdacityReply
        do {
            if let delay { try await Task.sleep(for: delay) }
            reply = await handle(request, body: body)
        } catch {
            if delay != nil { await slowAnswerEnded() }
            throw error
        }
        if delay != nil { await slowAnswerEnded() }
        switch reply {
        case .answer(let status, let bytes, let headers):
            return Response.fakeAnswer(bytes, status: status, headers: headers)
        case .hold(let delay):
            try await Task.sleep(for: delay)
            return Response.fakeAnswer(
                Array(#"{"code":504,"error":"Gateway timeout."}"#.utf8), status: .gatewayTimeout)
        }
    }

    private func handle(_ request: Request, body: Data) -> FakeUdacityReply {
        let recorded = RecordedHTTPRequest(request: request, body: nil)
        let isSessionPath = recorded.path == basePath + "/session"
        var entry = recorded
        if !isSessionPath, !body.isEmpty { entry.body = String(decoding: body, as: UTF8.self) }
        log.append(entry)

        guard recorded.path.hasPrefix(basePath + "/") else {
            return .failure(.notFound, code: 404, "Not found.")
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
            return .failure(.notFound, code: 404, "Not found.")
        }

        let faults = faultsByRoute[route] ?? []
        if faults.contains(.neverAnswer) { return .hold(neverAnswerDelay) }
        if let status = faults.compactMap({ fault -> Int? in
            if case .serverError(let status) = fault { return status }
            return nil
        }).first {
            return .failure(HTTPResponse.Status(code: status), code: status, "Simulated server error.")
        }
        if faults.contains(.htmlPage) { return .htmlPage }
        let prefixed = route != .studentLocation && !faults.contains(.prefixMissing)
        if faults.contains(.malformedJSON) {
            return .json(.ok, prefixed: prefixed, #"{"results": [{"objectId": "trunc"#)
        }

        let method = recorded.method
        switch (route, method) {
        case (.session, "POST"):
            return records.logIn(body: body, prefixed: prefixed)
        case (.session, "DELETE"):
            return records.logOut(token: recorded.header("x-xsrf-token"), prefixed: prefixed)
        case (.users, "GET"):
            let key = String(subpath.dropFirst("/users/".count))
            return records.profile(key: key, prefixed: prefixed, nested: faults.contains(.nestedUserProfile))
        case (.studentLocation, "GET") where subpath == "/StudentLocation":
            return records.list(
                query: recorded.query, messy: faults.contains(.messyRecords), maximumPageSize: maximumPageSize)
        case (.studentLocation, "POST") where subpath == "/StudentLocation":
            return records.create(body: body)
        case (.studentLocation, "PUT") where subpath.hasPrefix("/StudentLocation/"):
            return records.update(objectId: String(subpath.dropFirst("/StudentLocation/".count)), body: body)
        default:
            return .failure(.methodNotAllowed, code: 405, "Method not allowed.")
        }
    }
}
