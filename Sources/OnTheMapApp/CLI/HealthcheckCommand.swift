import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `onthemap-bot healthcheck`: asks the running bot's `/healthz` on its operator listener and exits
/// 0 when it answers 200 (registered on IRC, backend reachable), 1 for anything else (503, no answer,
/// no listener, an unusable config): what a container's `HEALTHCHECK` or a monitoring probe runs.
struct HealthcheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "Exits 0 when the running bot's /healthz answers 200, 1 otherwise.",
        discussion:
            "The address is the config's operator.listen (operator.enabled must be true), or --address; "
            + "without either, 127.0.0.1:9090.")

    @Option(name: .shortAndLong, help: "The running bot's YAML config: /healthz is asked at its operator.listen.")
    var config: String?

    @Option(help: "The operator listener's host:port, instead of the config's.")
    var address: String?

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 5

    func run() async throws {
        let target: (host: String, port: Int)
        do {
            target = try resolveTarget()
        } catch {
            print("unhealthy: \(error.reason)")
            throw ExitCode(1)
        }
        let url = "http://\(target.host.contains(":") ? "[\(target.host)]" : target.host):\(target.port)/healthz"
        switch HealthProbe.get(host: target.host, port: target.port, path: "/healthz", timeout: max(0.1, timeout)) {
        case .answered(let status, let body):
            let shown = String(body.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(2000))
            print("\(status == 200 ? "healthy" : "unhealthy"): \(url) answered \(status) \(shown)")
            if status != 200 { throw ExitCode(1) }
        case .failed(let reason):
            print("unhealthy: no answer from \(url): \(reason)")
            throw ExitCode(1)
        }
    }

    struct Unusable: Error {
        var reason: String
    }

    /// Where to ask: `--address`, else the config's operator listener, else 127.0.0.1:9090. A
    /// listener on every interface is asked on the loopback address.
    func resolveTarget() throws(Unusable) -> (host: String, port: Int) {
        var listen = "127.0.0.1:9090"
        if let address {
            listen = address
        } else if let config {
            let loaded: BotConfiguration
            do {
                loaded = try ConfigLoader.load(path: config, requireIRC: false)
            } catch {
                throw Unusable(reason: "the config \(config) has problems: \(error.description)")
            }
            guard loaded.operatorListener.enabled else {
                throw Unusable(
                    reason:
                        "\(config) has no operator listener (operator.enabled is false): /healthz is served only there")
            }
            listen = loaded.operatorListener.listen
        }
        guard let (listenHost, port) = ConfigLoader.hostAndPort(listen) else {
            throw Unusable(reason: "\(listen) is not host:port")
        }
        var host = listenHost
        if host == "0.0.0.0" || host == "*" { host = "127.0.0.1" }
        if host == "::" { host = "::1" }
        return (host, port)
    }
}

/// One plain HTTP/1.1 GET over a blocking socket, with a time limit (the health check runs alone
/// and must not need an event loop).
enum HealthProbe {
    enum Result: Equatable {
        case answered(status: Int, body: String)
        case failed(String)
    }

    static func get(host: String, port: Int, path: String, timeout: Double) -> Result {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
            hints.ai_socktype = SOCK_STREAM
        #else
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            return .failed("cannot resolve \(host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
            let fd = socket(current.pointee.ai_family, current.pointee.ai_socktype, current.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            setTimeouts(fd, seconds: timeout)
            guard connect(fd, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            return exchange(fd, host: host, path: path)
        }
        return .failed(lastError)
    }

    private static func setTimeouts(_ fd: Int32, seconds: Double) {
        var limit = timeval()
        limit.tv_sec = .init(seconds.rounded(.down))
        limit.tv_usec = .init((seconds - seconds.rounded(.down)) * 1_000_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func exchange(_ fd: Int32, host: String, path: String) -> Result {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8)
        let written = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        guard written == request.count else {
            return .failed("cannot send the request: \(String(cString: strerror(errno)))")
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while response.count < 65536 {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            if count < 0 {
                if response.isEmpty { return .failed("no answer: \(String(cString: strerror(errno)))") }
                break
            }
            response.append(contentsOf: buffer[0..<count])
        }
        return parse(response)
    }

    /// The status and body of a raw HTTP/1.1 response.
    static func parse(_ bytes: [UInt8]) -> Result {
        let text = String(decoding: bytes, as: UTF8.self)
        let statusLine = text.prefix { $0 != "\r" && $0 != "\n" }.split(separator: " ")
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/"), let status = Int(statusLine[1]) else {
            return .failed("the answer is not HTTP")
        }
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return .answered(status: status, body: body.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
