import AsyncHTTPClient
import Foundation
import Logging
import OnTheMapService

/// The Udacity-compatible "On The Map" HTTP API (`udacity-api.md`) as a `StudentDirectory`,
/// spoken to any base URL (the public server, or a local one in tests).
///
/// Owns its `HTTPClient` unless one is shared with it; call ``shutdown()`` before dropping it.
public final class UdacityStudentDirectory: StudentDirectory {
    /// Where and how to reach the API.
    public struct Configuration: Sendable {
        /// The API root, e.g. `https://onthemap-api.udacity.com/v1` or `http://127.0.0.1:8080/v1`.
        public var baseURL: String
        /// What `!signup` shows; nil when there is none.
        public var signUpURL: String?
        /// How long to wait for a TCP (and TLS) connection. Only used when the directory creates
        /// its own `HTTPClient`.
        public var connectTimeout: Duration
        /// How long one request may take, from sending to the end of the answer.
        public var requestTimeout: Duration
        /// Answers larger than this are refused as malformed.
        public var maximumResponseBytes: Int

        public static let defaultBaseURL = "https://onthemap-api.udacity.com/v1"
        public static let defaultSignUpURL = "https://auth.udacity.com/sign-up"

        public init(
            baseURL: String = Configuration.defaultBaseURL,
            signUpURL: String? = Configuration.defaultSignUpURL,
            connectTimeout: Duration = .seconds(5),
            requestTimeout: Duration = .seconds(15),
            maximumResponseBytes: Int = 8 * 1024 * 1024
        ) {
            self.baseURL = baseURL
            self.signUpURL = signUpURL
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
            self.maximumResponseBytes = maximumResponseBytes
        }
    }

    public let backendName = "udacity"
    public let signUpURL: String?
    /// The normalized API root (no trailing slash).
    public let baseURL: String

    private let exchange: HTTPExchange
    private let state = UdacityClientState()
    private let logger: Logger

    /// Creates the directory. Throws `ServiceError.rejectedInput` when the base URL is not an
    /// http(s) URL. Pass `httpClient` to share a client (then its timeouts and lifecycle are
    /// the caller's; the request timeout still applies per request).
    public init(
        configuration: Configuration = Configuration(),
        httpClient: HTTPClient? = nil,
        logger: Logger = Logger(label: "onthemap.udacity")
    ) throws {
        self.baseURL = try BaseURL.normalize(configuration.baseURL)
        self.signUpURL = configuration.signUpURL
        self.logger = logger
        self.exchange = HTTPExchange(
            sharing: httpClient, connectTimeout: configuration.connectTimeout,
            requestTimeout: configuration.requestTimeout, maximumBodyBytes: configuration.maximumResponseBytes,
            logger: logger)
    }

    /// Shuts down the `HTTPClient` when the directory created it (a shared one is left alone).
    public func shutdown() async {
        await exchange.shutdown()
    }

    // MARK: Session

    public func logIn(email: String, password: String) async throws -> DirectorySession {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !email.isEmpty, !password.isEmpty else {
            throw ServiceError.rejectedInput("email and password must not be empty")
        }
        let body = try JSONEncoder().encode(
            LoginBody(udacity: .init(username: email, password: password)))
        let reply = try await send("POST", path: "/session", body: body)
        switch reply.status {
        case 200..<300:
            break
        case 403, 401:
            throw ServiceError.invalidCredentials
        default:
            throw Self.failure(for: reply)
        }
        let json = try Self.json(SecurityPrefix.strip(reply.body), what: "session")
        guard let key = json["account"]?["key"]?.text, !key.isEmpty,
            let sessionId = json["session"]?["id"]?.text, !sessionId.isEmpty
        else {
            throw ServiceError.malformedResponse("the session answer has no account key or session id")
        }
        let expiration =
            json["session"]?["expiration"]?.text.flatMap(ISO8601Timestamp.parse)
            ?? Date().addingTimeInterval(24 * 3600)
        let session = DirectorySession(accountKey: key, sessionId: sessionId, expiresAt: expiration)
        await state.remember(
            xsrfToken: Self.xsrfToken(in: reply), cookies: Self.cookieHeader(in: reply), forSession: sessionId)
        // Which student it was is the command log's to say, under a pseudonym (log.student_data).
        logger.debug("Logged in to the Udacity API")
        return session
    }

    public func logOut(_ session: DirectorySession) async throws {
        var headers: [(String, String)] = []
        if let token = await state.xsrfToken(forSession: session.sessionId) {
            headers.append(("X-XSRF-TOKEN", token))
        }
        headers += await cookieHeaders(of: session)
        let reply = try await send("DELETE", path: "/session", extraHeaders: headers)
        await state.forget(session: session.sessionId)
        switch reply.status {
        case 200..<300:
            logger.debug("Logged out of the Udacity API")
        case 401, 403, 404:
            // The server no longer knows this session (or its token): it is ended either way.
            logger.debug("Logout answered \(reply.status); the session is treated as ended")
        default:
            throw Self.failure(for: reply)
        }
    }

    // MARK: Profile

    public func profile(accountKey: String, session: DirectorySession?) async throws -> StudentProfile {
        guard !accountKey.isEmpty else { throw ServiceError.rejectedInput("empty account key") }
        let reply = try await send(
            "GET", path: "/users/" + URLComponentEncoding.encode(accountKey),
            extraHeaders: await cookieHeaders(of: session))
        guard reply.isSuccess else {
            if reply.status == 404 { throw ServiceError.notFound("no account \(accountKey.prefix(60))") }
            throw Self.failure(for: reply)
        }
        let json = try Self.json(SecurityPrefix.strip(reply.body), what: "user profile")
        let fields = json["user"]?.objectValue ?? json.objectValue
        guard let fields else { throw ServiceError.malformedResponse("the user profile is not an object") }
        let nickname = fields["nickname"]?.text.flatMap { $0.isEmpty ? nil : $0 }
        return StudentProfile(
            accountKey: fields["key"]?.text.flatMap { $0.isEmpty ? nil : $0 } ?? accountKey,
            firstName: fields["first_name"]?.text ?? "",
            lastName: fields["last_name"]?.text ?? "",
            nickname: nickname)
    }

    // MARK: Locations

    public func recentLocations(limit: Int, skip: Int) async throws -> [StudentLocation] {
        let query = URLComponentEncoding.query([
            ("limit", String(max(1, limit))), ("order", "-updatedAt"), ("skip", String(max(0, skip))),
        ])
        let records = try await fetchLocations(query: query)
        return records
    }

    /// The API has no change feed: the class map pages through ``recentLocations(limit:skip:)``.
    public func locationChanges(after revision: Int64, limit: Int) async throws -> PinChangePage? { nil }

    public func location(ofAccount accountKey: String) async throws -> StudentLocation? {
        guard !accountKey.isEmpty else { return nil }
        let query = URLComponentEncoding.query([("uniqueKey", accountKey)])
        let records = try await fetchLocations(query: query)
        // A server may ignore the filter: keep only this account's pins, the newest one wins.
        return records.filter { $0.uniqueKey == accountKey }.max { $0.updatedAt < $1.updatedAt }
    }

    public func createLocation(_ pin: KeptPin, session: DirectorySession?) async throws -> StudentLocation {
        let draft = pin.draft
        try Self.validate(draft)
        let reply = try await send(
            "POST", path: "/StudentLocation", body: try JSONEncoder().encode(StudentLocationBody(draft)),
            extraHeaders: await cookieHeaders(of: session))
        guard reply.isSuccess else { throw Self.failure(for: reply) }
        let json = try Self.json(reply.body, what: "created location")
        guard let objectId = json["objectId"]?.text, !objectId.isEmpty else {
            throw ServiceError.malformedResponse("the created location has no objectId")
        }
        let createdAt = json["createdAt"]?.text.flatMap(ISO8601Timestamp.parse) ?? Date()
        await state.remember(createdAt: createdAt, ofObject: objectId)
        return StudentLocation(
            objectId: objectId, uniqueKey: draft.uniqueKey, firstName: draft.firstName,
            lastName: draft.lastName, mapString: draft.mapString, mediaURL: draft.mediaURL,
            coordinate: draft.coordinate, createdAt: createdAt, updatedAt: createdAt)
    }

    public func updateLocation(
        objectId: String, with pin: KeptPin, session: DirectorySession?
    ) async throws -> StudentLocation {
        let draft = pin.draft
        guard !objectId.isEmpty else { throw ServiceError.rejectedInput("empty objectId") }
        try Self.validate(draft)
        let reply = try await send(
            "PUT", path: "/StudentLocation/" + URLComponentEncoding.encode(objectId),
            body: try JSONEncoder().encode(StudentLocationBody(draft)), extraHeaders: await cookieHeaders(of: session))
        guard reply.isSuccess else {
            if reply.status == 404 { throw ServiceError.notFound("no pin \(objectId.prefix(60))") }
            throw Self.failure(for: reply)
        }
        let json = try Self.json(reply.body, what: "updated location")
        guard json.objectValue != nil else {
            throw ServiceError.malformedResponse("the update answer is not an object")
        }
        let updatedAt = json["updatedAt"]?.text.flatMap(ISO8601Timestamp.parse) ?? Date()
        let createdAt = await state.createdAt(ofObject: objectId) ?? updatedAt
        return StudentLocation(
            objectId: objectId, uniqueKey: draft.uniqueKey, firstName: draft.firstName,
            lastName: draft.lastName, mapString: draft.mapString, mediaURL: draft.mediaURL,
            coordinate: draft.coordinate, createdAt: createdAt, updatedAt: updatedAt)
    }

    public func checkHealth() async throws {
        let reply = try await send("GET", path: "/StudentLocation?limit=1")
        guard reply.isSuccess else { throw Self.failure(for: reply) }
        guard JSONValue.parse(reply.body)?["results"]?.arrayValue != nil else {
            throw ServiceError.malformedResponse("the location list has no results array")
        }
    }

    // MARK: Plumbing

    private func fetchLocations(query: String) async throws -> [StudentLocation] {
        let reply = try await send("GET", path: "/StudentLocation?" + query)
        guard reply.isSuccess else { throw Self.failure(for: reply) }
        let json = try Self.json(reply.body, what: "location list")
        guard let results = json["results"]?.arrayValue else {
            throw ServiceError.malformedResponse("the location list has no results array")
        }
        let locations = results.compactMap(StudentLocationRecord.parse)
        if locations.count < results.count {
            logger.debug(
                "Skipped location records without an id or valid coordinates",
                metadata: ["skipped": "\(results.count - locations.count)"])
        }
        for location in locations {
            await state.remember(createdAt: location.createdAt, ofObject: location.objectId)
        }
        return locations
    }

    private func send(
        _ method: String, path: String, body: Data? = nil, extraHeaders: [(String, String)] = []
    ) async throws -> HTTPReply {
        var headers = [("Accept", "application/json")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        headers += extraHeaders
        let reply = try await exchange.send(
            method: method, url: baseURL + path, headers: headers, body: body,
            logPath: String(path.prefix { $0 != "?" }))
        if path == "/session", let token = Self.xsrfToken(in: reply) {
            await state.remember(latestXSRFToken: token)
        }
        return reply
    }

    /// Checks a draft before any request; a draft with a trip is refused with
    /// `ServiceError.tripsUnavailable` (the API keeps one pin per student).
    private static func validate(_ draft: PinDraft) throws {
        guard draft.trip == nil else { throw ServiceError.tripsUnavailable }
        guard !draft.uniqueKey.isEmpty else { throw ServiceError.rejectedInput("the pin has no account key") }
        guard draft.coordinate.isValid else {
            throw ServiceError.rejectedInput("the pin has invalid coordinates")
        }
    }

    private static func json(_ body: Data, what: String) throws -> JSONValue {
        guard let json = JSONValue.parse(body) else {
            throw ServiceError.malformedResponse("the \(what) answer is not JSON")
        }
        return json
    }

    /// The error of a non-2xx answer: 400 → rejected input, others → backend failure.
    static func failure(for reply: HTTPReply) -> ServiceError {
        let message = errorMessage(in: reply.body)
        switch reply.status {
        case 400:
            return .rejectedInput(message ?? "the server refused the request")
        case 429:
            let retry = reply.headerValues("retry-after").first.flatMap { Int($0) } ?? 60
            return .throttled(retryAfterSeconds: retry)
        default:
            return .backendFailure(status: reply.status, message: message ?? "HTTP status \(reply.status)")
        }
    }

    /// The cookies the login answer set for `session`, as a `Cookie` header: sent back with that
    /// session's requests, as the apps' URL sessions do (a server that serves this API from its
    /// own directory knows a session's writes by its cookie).
    private func cookieHeaders(of session: DirectorySession?) async -> [(String, String)] {
        guard let session, let cookies = await state.cookies(forSession: session.sessionId) else { return [] }
        return [("Cookie", cookies)]
    }

    /// The `name=value` pairs of the cookies an answer sets (an empty value clears a cookie and is
    /// left out), joined as a `Cookie` header; nil when there are none. Pairs with characters a
    /// header may not carry are dropped.
    static func cookieHeader(in reply: HTTPReply) -> String? {
        let pairs = reply.headerValues("set-cookie").compactMap { header -> String? in
            guard let pair = header.split(separator: ";", maxSplits: 1).first else { return nil }
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            let text = name + "=" + value
            guard !name.isEmpty, !value.isEmpty, text.utf8.count <= 4096,
                text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != ";" && $0 != "," })
            else { return nil }
            return text
        }
        return pairs.isEmpty ? nil : pairs.joined(separator: "; ")
    }

    /// The value of an `XSRF-TOKEN` cookie set by the answer, if any.
    static func xsrfToken(in reply: HTTPReply) -> String? {
        for header in reply.headerValues("set-cookie") {
            guard let pair = header.split(separator: ";", maxSplits: 1).first else { continue }
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2,
                parts[0].trimmingCharacters(in: .whitespaces) == "XSRF-TOKEN"
            else { continue }
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            if !value.isEmpty { return value }
        }
        return nil
    }
}

/// What the client keeps between requests: XSRF tokens and cookies per session (secret, never logged)
/// and the creation times of pins it has seen (for the result of an update).
private actor UdacityClientState {
    private var tokensBySession: [String: String] = [:]
    private var cookiesBySession: [String: String] = [:]
    private var sessionOrder: [String] = []
    private var latestToken: String?
    private var createdAtByObject: [String: Date] = [:]

    private let maximumSessions = 10_000
    private let maximumObjects = 10_000

    func remember(xsrfToken: String?, cookies: String?, forSession sessionId: String) {
        guard xsrfToken != nil || cookies != nil else { return }
        if tokensBySession[sessionId] == nil && cookiesBySession[sessionId] == nil {
            sessionOrder.append(sessionId)
        }
        tokensBySession[sessionId] = xsrfToken
        cookiesBySession[sessionId] = cookies
        if sessionOrder.count > maximumSessions {
            let dropped = sessionOrder.removeFirst()
            tokensBySession[dropped] = nil
            cookiesBySession[dropped] = nil
        }
    }

    func cookies(forSession sessionId: String) -> String? { cookiesBySession[sessionId] }

    func remember(latestXSRFToken: String) { latestToken = latestXSRFToken }

    func xsrfToken(forSession sessionId: String) -> String? { tokensBySession[sessionId] ?? latestToken }

    func forget(session sessionId: String) {
        let token = tokensBySession.removeValue(forKey: sessionId)
        if token != nil || cookiesBySession.removeValue(forKey: sessionId) != nil {
            sessionOrder.removeAll { $0 == sessionId }
        }
        if let token, latestToken == token { latestToken = nil }
    }

    func remember(createdAt: Date, ofObject objectId: String) {
        if createdAtByObject.count >= maximumObjects, createdAtByObject[objectId] == nil {
            createdAtByObject.removeAll(keepingCapacity: true)
        }
        createdAtByObject[objectId] = createdAt
    }

    func createdAt(ofObject objectId: String) -> Date? { createdAtByObject[objectId] }
}

private struct LoginBody: Encodable {
    struct Credentials: Encodable {
        var username: String
        var password: String
    }
    var udacity: Credentials
}
