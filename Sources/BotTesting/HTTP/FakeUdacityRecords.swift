import Foundation
import Hummingbird
import OnTheMapService

/// The fake Udacity server's accounts, pins and sessions, and what each API call does with them.
struct FakeUdacityRecords {
    struct StoredLocation {
        var location: FakeUdacityServer.Location
        /// Order of insertion, which breaks ties between equal times.
        var sequence: Int
    }

    struct Session {
        var id: String
        var accountKey: String
        var xsrfToken: String
        var expiration: Date
    }

    var accounts: [FakeUdacityServer.Account]
    private(set) var sessions: [String: Session] = [:]
    /// Every XSRF token handed out by `POST /session`, oldest first.
    private(set) var issuedTokens: [String] = []
    private var stored: [StoredLocation] = []
    private var sequence = 0
    private var lastTimestamp = Date(timeIntervalSince1970: 0)
    private let sessionLifetime: TimeInterval

    /// `locations` keep their times, truncated to milliseconds.
    init(accounts: [FakeUdacityServer.Account], locations: [FakeUdacityServer.Location], sessionLifetime: TimeInterval)
    {
        self.accounts = accounts
        self.sessionLifetime = sessionLifetime
        for var location in locations {
            location.createdAt = FakeTimestamp.truncatedToMilliseconds(location.createdAt)
            location.updatedAt = FakeTimestamp.truncatedToMilliseconds(location.updatedAt)
            sequence += 1
            stored.append(StoredLocation(location: location, sequence: sequence))
        }
    }

    // MARK: Pins

    /// Adds a pin with a new objectId, created and updated now.
    mutating func addLocation(
        uniqueKey: String, firstName: String, lastName: String, mapString: String, mediaURL: String,
        latitude: Double, longitude: Double
    ) -> FakeUdacityServer.Location {
        let now = nextTimestamp()
        let location = FakeUdacityServer.Location(
            objectId: Self.newObjectId(), uniqueKey: uniqueKey, firstName: firstName, lastName: lastName,
            mapString: mapString, mediaURL: mediaURL, latitude: latitude, longitude: longitude,
            createdAt: now, updatedAt: now)
        sequence += 1
        stored.append(StoredLocation(location: location, sequence: sequence))
        return location
    }

    /// The stored pins in one of the API's orders (`-updatedAt`, `updatedAt`, `-createdAt`,
    /// `createdAt`), or as stored for any other.
    func sortedLocations(order: String?) -> [StoredLocation] {
        let descending = order?.hasPrefix("-") == true
        let time: (FakeUdacityServer.Location) -> Date
        switch descending ? order?.dropFirst() : order?[...] {
        case "updatedAt": time = \.updatedAt
        case "createdAt": time = \.createdAt
        default: return stored
        }
        return stored.sorted { a, b in
            descending
                ? (time(a.location), a.sequence) > (time(b.location), b.sequence)
                : (time(a.location), a.sequence) < (time(b.location), b.sequence)
        }
    }

    /// Now, truncated to milliseconds and strictly after the previous timestamp handed out.
    private mutating func nextTimestamp() -> Date {
        var now = FakeTimestamp.truncatedToMilliseconds(Date())
        if now <= lastTimestamp { now = lastTimestamp.addingTimeInterval(0.001) }
        now = FakeTimestamp.truncatedToMilliseconds(now.addingTimeInterval(0.0000001))
        lastTimestamp = now
        return now
    }

    private static func newObjectId() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<10).map { _ in alphabet.randomElement() ?? "x" })
    }

    // MARK: API calls

    /// `POST /session`.
    mutating func logIn(body: Data, prefixed: Bool) -> FakeUdacityReply {
        struct LoginBody: Decodable {
            struct Credentials: Decodable {
                var username: String
                var password: String
            }
            var udacity: Credentials
        }
        guard let login = try? JSONDecoder().decode(LoginBody.self, from: body) else {
            return .failure(.badRequest, code: 400, "Failed to parse JSON body.", statusKey: "status")
        }
        let email = login.udacity.username.lowercased()
        guard
            let account = accounts.first(where: {
                $0.email.lowercased() == email && $0.password == login.udacity.password
            })
        else {
            return .json(
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
        return .json(.ok, prefixed: prefixed, json, headers: headers)
    }

    /// `DELETE /session`, with the session's XSRF token.
    mutating func logOut(token: String?, prefixed: Bool) -> FakeUdacityReply {
        guard let token, let session = sessions.values.first(where: { $0.xsrfToken == token }) else {
            return .json(
                .forbidden, prefixed: prefixed, #"{"status": 403, "error": "Missing or invalid XSRF token."}"#
            )
        }
        sessions[session.id] = nil
        var headers = HTTPFields()
        headers[.setCookie] = "XSRF-TOKEN=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT"
        let json =
            #"{"session": {"id": \#(quotedJSON(session.id)), "#
            + #""expiration": "\#(FakeTimestamp.format(Date(), fractionDigits: 6))"}}"#
        return .json(.ok, prefixed: prefixed, json, headers: headers)
    }

    /// `GET /users/<key>`, the profile at the top level or, when `nested`, under `"user"`.
    func profile(key: String, prefixed: Bool, nested: Bool) -> FakeUdacityReply {
        guard let account = accounts.first(where: { $0.key == key }) else {
            return .json(.notFound, prefixed: prefixed, #"{"status": 404, "error": "User not found."}"#)
        }
        let fields =
            #"{"first_name": \#(quotedJSON(account.firstName)), "#
            + #""last_name": \#(quotedJSON(account.lastName)), "#
            + #""nickname": \#(quotedJSON(account.nickname)), "key": \#(quotedJSON(account.key)), "#
            + #""_registered": true, "guard": {"allowed": true}}"#
        return .json(.ok, prefixed: prefixed, nested ? #"{"user": \#(fields)}"# : fields)
    }

    /// `GET /StudentLocation` with `limit` (at most `maximumPageSize`), `skip`, `order` and
    /// `uniqueKey`; the messy records first when `messy`.
    func list(query: [String: String], messy: Bool, maximumPageSize: Int = 1_000) -> FakeUdacityReply {
        var limit = 100
        if let text = query["limit"] {
            guard let value = Int(text), value >= 0 else {
                return .failure(.badRequest, code: 102, "Invalid limit.")
            }
            limit = min(value, maximumPageSize)
        }
        var skip = 0
        if let text = query["skip"] {
            guard let value = Int(text), value >= 0 else {
                return .failure(.badRequest, code: 102, "Invalid skip.")
            }
            skip = value
        }
        let order = query["order"]
        guard order == nil || ["-updatedAt", "updatedAt", "-createdAt", "createdAt"].contains(order ?? "")
        else {
            return .failure(.badRequest, code: 105, "Invalid order.")
        }
        var records: [(uniqueKey: String, json: String)] = []
        if messy { records += FakeUdacityReply.messyRecords }
        records += sortedLocations(order: order).map {
            ($0.location.uniqueKey, FakeUdacityReply.json(of: $0.location))
        }
        if let uniqueKey = query["uniqueKey"] {
            records = records.filter { $0.uniqueKey == uniqueKey }
        }
        let page = records.dropFirst(skip).prefix(limit)
        return .json(.ok, prefixed: false, #"{"results": ["# + page.map(\.json).joined(separator: ", ") + "]}")
    }

    /// `POST /StudentLocation`.
    mutating func create(body: Data) -> FakeUdacityReply {
        guard let input = try? JSONDecoder().decode(StudentLocationBody.self, from: body) else {
            return .failure(.badRequest, code: 142, "Failed to parse JSON body.")
        }
        let location = addLocation(
            uniqueKey: input.uniqueKey, firstName: input.firstName, lastName: input.lastName,
            mapString: input.mapString, mediaURL: input.mediaURL, latitude: input.latitude,
            longitude: input.longitude)
        return .json(
            .ok, prefixed: false,
            #"{"createdAt": "\#(FakeTimestamp.format(location.createdAt))", "#
                + #""objectId": \#(quotedJSON(location.objectId))}"#
        )
    }

    /// `PUT /StudentLocation/<objectId>`.
    mutating func update(objectId: String, body: Data) -> FakeUdacityReply {
        guard let index = stored.firstIndex(where: { $0.location.objectId == objectId }) else {
            return .failure(.notFound, code: 101, "Object not found.")
        }
        guard let input = try? JSONDecoder().decode(StudentLocationBody.self, from: body) else {
            return .failure(.badRequest, code: 142, "Failed to parse JSON body.")
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
        return .json(.ok, prefixed: false, #"{"updatedAt": "\#(FakeTimestamp.format(now))"}"#)
    }
}
