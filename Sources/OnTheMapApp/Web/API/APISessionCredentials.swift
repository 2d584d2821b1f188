import Foundation
import HTTPTypes
import Hummingbird
import OnTheMapService

/// How a request of the API shows its session: the HttpOnly session cookie that `POST /v1/session`
/// sets (what the seeds' apps and a browser send back), or an `Authorization: Bearer <session id>`
/// header. A cookie is sent by the browser on its own, so an action that a cookie authorises
/// across sites is guarded: `SameSite=Lax`, JSON bodies only, and logout's XSRF token pair.
struct APISessionCredentials: Sendable, Equatable {
    static let sessionCookie = "onthemap_session"
    static let xsrfCookie = "XSRF-TOKEN"
    static let xsrfHeader = HTTPField.Name("X-XSRF-TOKEN")!

    /// The session id presented.
    var sessionId: String
    /// Whether it came in the cookie (else in the Authorization header).
    var viaCookie: Bool

    /// The session the request presents: the bearer header first, else the session cookie.
    static func presented(in request: Request) -> APISessionCredentials? {
        if let authorization = request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                let id = parts[1].trimmingCharacters(in: .whitespaces)
                if !id.isEmpty { return APISessionCredentials(sessionId: id, viaCookie: false) }
            }
        }
        if let id = cookies(of: request)[sessionCookie], !id.isEmpty {
            return APISessionCredentials(sessionId: id, viaCookie: true)
        }
        return nil
    }

    /// The cookies of the request by name (the first of a repeated name wins).
    static func cookies(of request: Request) -> [String: String] {
        var cookies: [String: String] = [:]
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                if cookies[name] == nil { cookies[name] = parts[1].trimmingCharacters(in: .whitespaces) }
            }
        }
        return cookies
    }

    /// The XSRF token that goes with a session: derived one way from its id, so it is never stored,
    /// and knowing it tells nothing of the session id (nor of the digest the directory keeps).
    static func xsrfToken(forSession sessionId: String) -> String {
        SessionToken.digest("xsrf-token:" + sessionId)
    }

    /// Whether the request carries the logout guard of a cookie session: the `X-XSRF-TOKEN` header
    /// equal to the `XSRF-TOKEN` cookie, both the token of this session.
    func hasXSRFPair(in request: Request) -> Bool {
        guard let header = request.headers[Self.xsrfHeader], let cookie = Self.cookies(of: request)[Self.xsrfCookie]
        else { return false }
        let expected = Self.xsrfToken(forSession: sessionId)
        return ConstantTime.equal(header, expected) && ConstantTime.equal(cookie, expected)
    }

    /// The `Set-Cookie` values that start a session: the session cookie (HttpOnly) and its XSRF
    /// token (readable by the page's script, which echoes it in `X-XSRF-TOKEN`). The session
    /// cookie's path is the whole site: the web map's `/api/locations.json` reads it too.
    static func startCookies(for session: DirectorySession, now: Date, secure: Bool) -> [String] {
        let maxAge = max(0, Int(session.expiresAt.timeIntervalSince(now)))
        let tail = "; Max-Age=\(maxAge); SameSite=Lax" + (secure ? "; Secure" : "")
        return [
            "\(sessionCookie)=\(session.sessionId); Path=/; HttpOnly" + tail,
            "\(xsrfCookie)=\(xsrfToken(forSession: session.sessionId)); Path=/" + tail,
        ]
    }

    /// The `Set-Cookie` values that end a session in the browser (also a session cookie an older
    /// version set for `/v1` only).
    static func endCookies(secure: Bool) -> [String] {
        let tail = "; Max-Age=0; SameSite=Lax" + (secure ? "; Secure" : "")
        return [
            "\(sessionCookie)=; Path=/; HttpOnly" + tail, "\(sessionCookie)=; Path=/v1; HttpOnly" + tail,
            "\(xsrfCookie)=; Path=/" + tail,
        ]
    }
}
