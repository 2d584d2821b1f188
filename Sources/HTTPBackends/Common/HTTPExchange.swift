import AsyncHTTPClient
import Foundation
import Logging
import OnTheMapService

/// One answered HTTP request: status, the headers that matter, and the whole body.
struct HTTPReply: Sendable {
    var status: Int
    /// Header values by lower-cased name.
    var headers: [String: [String]]
    var body: Data

    var isSuccess: Bool { (200..<300).contains(status) }

    func headerValues(_ name: String) -> [String] { headers[name.lowercased()] ?? [] }
}

/// Sends requests with an `HTTPClient` under a deadline, and turns every failure to get an
/// answer (DNS, refused, timeout, TLS, reset) into `ServiceError.networkUnreachable`.
struct HTTPExchange: Sendable {
    let client: HTTPClient
    /// Whether the exchange made `client` itself (and so shuts it down in ``shutdown()``).
    let ownsClient: Bool
    let requestTimeout: Duration
    let maximumBodyBytes: Int
    let logger: Logger

    /// An exchange over `client`, which stays the caller's to shut down.
    init(
        client: HTTPClient, requestTimeout: Duration, maximumBodyBytes: Int,
        logger: Logger = Logger(label: "onthemap.http")
    ) {
        self.client = client
        self.ownsClient = false
        self.requestTimeout = requestTimeout
        self.maximumBodyBytes = maximumBodyBytes
        self.logger = logger
    }

    /// An exchange over `sharedClient` when one is given (its timeouts and lifecycle are the
    /// caller's; `requestTimeout` still applies per request), else over a client of its own made by
    /// ``makeClient(connectTimeout:requestTimeout:)``.
    init(
        sharing sharedClient: HTTPClient?, connectTimeout: Duration, requestTimeout: Duration,
        maximumBodyBytes: Int, logger: Logger = Logger(label: "onthemap.http")
    ) {
        self.client =
            sharedClient ?? Self.makeClient(connectTimeout: connectTimeout, requestTimeout: requestTimeout)
        self.ownsClient = sharedClient == nil
        self.requestTimeout = requestTimeout
        self.maximumBodyBytes = maximumBodyBytes
        self.logger = logger
    }

    /// Shuts down the client when the exchange made it; a shared one is left alone.
    func shutdown() async {
        guard ownsClient else { return }
        do {
            try await client.shutdown()
        } catch {
            logger.debug("HTTP client shutdown reported an error", metadata: ["error": "\(error)"])
        }
    }

    /// The client the backends create when none is shared with them: connect timeout as given,
    /// no retries of failed connection attempts (a refused connection is reported at once).
    static func makeClient(connectTimeout: Duration, requestTimeout: Duration) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .nanoseconds(connectTimeout.totalNanoseconds)
        configuration.timeout.read = .nanoseconds(requestTimeout.totalNanoseconds)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.redirectConfiguration = .follow(max: 3, allowCycles: false)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// Sends one request. `logPath` is what may appear in logs (no secrets in it).
    func send(
        method: String, url: String, headers: [(String, String)], body: Data?, logPath: String
    ) async throws -> HTTPReply {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        for (name, value) in headers {
            request.headers.add(name: name, value: value)
        }
        if let body {
            request.body = .bytes(body)
        }
        let started = ContinuousClock.now
        do {
            let response = try await client.execute(
                request, timeout: .nanoseconds(requestTimeout.totalNanoseconds), logger: nil)
            var collected = try await response.body.collect(upTo: maximumBodyBytes)
            let bytes = collected.readBytes(length: collected.readableBytes) ?? []
            var replyHeaders: [String: [String]] = [:]
            for header in response.headers {
                replyHeaders[header.name.lowercased(), default: []].append(header.value)
            }
            let status = Int(response.status.code)
            logger.debug(
                "HTTP request answered",
                metadata: [
                    "method": "\(method)", "path": "\(logPath)", "status": "\(status)",
                    "ms": "\((ContinuousClock.now - started).milliseconds)",
                ])
            return HTTPReply(status: status, headers: replyHeaders, body: Data(bytes))
        } catch let error as CancellationError {
            throw error
        } catch let error where String(describing: error).contains("TooManyBytes") {
            throw ServiceError.malformedResponse("the answer was larger than \(maximumBodyBytes) bytes")
        } catch {
            let reason = Self.describeTransportFailure(error, timeout: requestTimeout)
            logger.warning(
                "HTTP request failed",
                metadata: ["method": "\(method)", "path": "\(logPath)", "reason": "\(reason)"])
            throw ServiceError.networkUnreachable(reason)
        }
    }

    /// A short human reason for a failure to get an answer.
    static func describeTransportFailure(_ error: any Error, timeout: Duration) -> String {
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return "no answer within \(timeout.secondsText)"
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return "connection timed out"
            case .tlsHandshakeTimeout:
                return "TLS handshake timed out"
            case .remoteConnectionClosed:
                return "the server closed the connection"
            case .cancelled:
                return "request cancelled"
            case .invalidURL, .emptyHost, .emptyScheme:
                return "invalid server address"
            default:
                break
            }
        }
        let text = String(describing: error)
        let lowered = text.lowercased()
        if lowered.contains("connection refused") || lowered.contains("econnrefused") {
            return "connection refused"
        }
        if lowered.contains("dns") || lowered.contains("nodename nor servname")
            || lowered.contains("name or service not known") || lowered.contains("unknownhost")
            || lowered.contains("temporary failure in name resolution")
        {
            return "host name could not be resolved"
        }
        if lowered.contains("ssl") || lowered.contains("tls") || lowered.contains("certificate")
            || lowered.contains("handshake")
        {
            return "TLS failure"
        }
        if lowered.contains("timed out") || lowered.contains("timeout") {
            return "connection timed out"
        }
        if lowered.contains("reset") || lowered.contains("broken pipe") || lowered.contains("eof") {
            return "the connection was lost"
        }
        return "network failure (\(text.prefix(120)))"
    }
}

/// Percent-encoding of query values and path segments (RFC 3986 unreserved characters pass).
enum URLComponentEncoding {
    private static let unreserved: Set<UInt8> = Set(
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8))

    static func encode(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return result
    }

    static func query(_ items: [(String, String)]) -> String {
        items.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
    }
}

/// A base URL without a trailing slash, checked to be http(s) with a host.
enum BaseURL {
    static func normalize(_ text: String) throws -> String {
        var trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty,
            url.query == nil, url.fragment == nil
        else {
            throw ServiceError.rejectedInput("not an http(s) base URL: \(text.prefix(200))")
        }
        return trimmed
    }
}

extension Duration {
    var totalNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    var milliseconds: Int64 { totalNanoseconds / 1_000_000 }

    /// "5 s", "0.5 s".
    var secondsText: String {
        let seconds = Double(totalNanoseconds) / 1e9
        if seconds.rounded() == seconds { return "\(Int64(seconds)) s" }
        return "\((seconds * 10).rounded() / 10) s"
    }
}

/// A readable message from an error body: `{"error": "…"}` (after the optional security
/// prefix), else a trimmed text body, else nil.
func errorMessage(in body: Data) -> String? {
    let payload = SecurityPrefix.strip(body)
    if let json = JSONValue.parse(payload) {
        for key in ["error", "message", "msg"] {
            if let message = json[key]?.text, !message.isEmpty { return String(message.prefix(300)) }
        }
        return nil
    }
    guard let text = String(data: payload, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
        !text.isEmpty, text.count <= 300, !text.contains("<")
    else { return nil }
    return text
}

/// The five-byte anti-hijacking guard `)]}'` + newline of `/session` and `/users` answers.
enum SecurityPrefix {
    static let bytes: [UInt8] = Array(")]}'\n".utf8)

    /// The body without the prefix, when it is there; otherwise the body unchanged.
    /// Also accepts the guard followed by `\r\n`.
    static func strip(_ body: Data) -> Data {
        let guardBytes = Array(")]}'".utf8)
        guard body.count >= guardBytes.count, Array(body.prefix(guardBytes.count)) == guardBytes else {
            return body
        }
        var rest = body.dropFirst(guardBytes.count)
        if rest.first == UInt8(ascii: "\r") { rest = rest.dropFirst() }
        if rest.first == UInt8(ascii: "\n") { rest = rest.dropFirst() }
        return Data(rest)
    }
}
