import Foundation
import NIOCore
import NIOPosix

/// Errors raised by the live-test helpers.
public enum IRCTestSupportError: Error, CustomStringConvertible {
    case commandFailed(String, status: Int32, output: String)
    case daemonMissing(String)
    case daemonDidNotStart(String, log: String)
    case timeout(String)

    public var description: String {
        switch self {
        case .commandFailed(let command, let status, let output):
            return "\(command) exited with \(status): \(output)"
        case .daemonMissing(let path):
            return "\(path) is not installed (apt-get install -y ngircd inspircd atheme-services)"
        case .daemonDidNotStart(let name, let log):
            return "\(name) did not start listening; log:\n\(log)"
        case .timeout(let what):
            return "timed out: \(what)"
        }
    }
}

/// A temporary folder deleted when the value is released.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "irc-test") throws {
        let base = FileManager.default.temporaryDirectory.path
        let path = "\(base)/\(prefix)-\(UUID().uuidString.prefix(12))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        self.path = path
    }

    /// `path/name`.
    public func file(_ name: String) -> String { "\(path)/\(name)" }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A self-signed certificate for `localhost` / `127.0.0.1`, made with `openssl req -x509` at test time.
public struct TestCertificate: Sendable {
    /// PEM certificate (also usable as the CA file that trusts it).
    public let certificatePath: String
    /// PEM private key (unencrypted).
    public let keyPath: String
    /// SHA-256 fingerprint of the certificate's DER, OpenSSL style (`AB:CD:…`).
    public let sha256Fingerprint: String

    /// Creates `name.pem` and `name.key` in `directory`, valid for two days from now, for the names of
    /// `subjectAltName` (OpenSSL syntax).
    public static func make(
        in directory: String,
        name: String = "server",
        commonName: String = "localhost",
        subjectAltName: String = "DNS:localhost,IP:127.0.0.1"
    )
        async throws -> TestCertificate
    {
        let certificate = "\(directory)/\(name).pem"
        let key = "\(directory)/\(name).key"
        try await runCommand(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                "-subj", "/CN=\(commonName)",
                "-addext", "subjectAltName=\(subjectAltName)",
                "-keyout", key, "-out", certificate,
            ]
        )
        return try await withFingerprint(certificate: certificate, key: key)
    }

    /// Creates a self-signed `name.pem`/`name.key` for localhost and 127.0.0.1 that was valid only in
    /// January 2020 (`openssl ca -selfsign` with explicit dates: `req -x509` cannot backdate).
    public static func makeExpired(in directory: String, name: String = "expired") async throws -> TestCertificate {
        let folder = "\(directory)/\(name)-ca"
        try FileManager.default.createDirectory(
            atPath: "\(folder)/issued", withIntermediateDirectories: true)
        try "".write(toFile: "\(folder)/index.txt", atomically: true, encoding: .utf8)
        try "1000\n".write(toFile: "\(folder)/serial", atomically: true, encoding: .utf8)
        let config = """
            [ca]
            default_ca = expired_ca
            [expired_ca]
            database = \(folder)/index.txt
            new_certs_dir = \(folder)/issued
            serial = \(folder)/serial
            default_md = sha256
            policy = any_name
            unique_subject = no
            copy_extensions = copy
            [any_name]
            commonName = supplied
            """
        try config.write(toFile: "\(folder)/ca.cnf", atomically: true, encoding: .utf8)
        let certificate = "\(directory)/\(name).pem"
        let key = "\(directory)/\(name).key"
        let request = "\(folder)/request.csr"
        try await runCommand(
            "/usr/bin/openssl",
            [
                "req", "-new", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key, "-out", request,
            ]
        )
        try await runCommand(
            "/usr/bin/openssl",
            [
                "ca", "-batch", "-config", "\(folder)/ca.cnf", "-selfsign", "-keyfile", key, "-in", request,
                "-startdate", "20200101000000Z", "-enddate", "20200201000000Z", "-notext", "-out", certificate,
            ]
        )
        return try await withFingerprint(certificate: certificate, key: key)
    }

    private static func withFingerprint(certificate: String, key: String) async throws -> TestCertificate {
        let output = try await runCommand(
            "/usr/bin/openssl",
            [
                "x509", "-in", certificate, "-noout", "-fingerprint", "-sha256",
            ]
        )
        // "sha256 Fingerprint=AB:CD:..." (the label's case differs between OpenSSL versions)
        let fingerprint =
            output.split(separator: "=", maxSplits: 1).last.map {
                $0.trimmingCharacters(in: .whitespacesAndNewlines)
            } ?? ""
        return TestCertificate(certificatePath: certificate, keyPath: key, sha256Fingerprint: fingerprint)
    }
}

/// Runs a command to its end and returns its standard output and error together; throws
/// `IRCTestSupportError.commandFailed` on a non-zero exit.
@discardableResult
public func runCommand(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(60)) async throws
    -> String
{
    let (status, output) = try await runProcess(executable, arguments, timeout: timeout)
    guard status == 0 else {
        throw IRCTestSupportError.commandFailed(
            ([executable] + arguments).joined(separator: " "), status: status, output: output)
    }
    return output
}

/// Runs a command to its end with `input` (if any) on its standard input; returns its exit status and
/// its standard output and error together. Throws `.timeout` (after killing it) when it outlives
/// `timeout`. The wait is woken by the process's exit rather than blocking a thread: a blocked thread
/// of the concurrency pool (two on a two-core machine) would stall every other test running beside it.
public func runProcess(
    _ executable: String, _ arguments: [String], input: String? = nil, timeout: Duration = .seconds(60)
) async throws -> (status: Int32, output: String) {
    let folder = try TemporaryDirectory(prefix: "test-process")
    let outputPath = folder.file("output")
    _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
    let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
    defer { try? output.close() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = output
    process.standardError = output
    var reading: FileHandle?
    defer { try? reading?.close() }
    if let input {
        let inputPath = folder.file("input")
        try input.write(toFile: inputPath, atomically: true, encoding: .utf8)
        reading = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputPath))
        process.standardInput = reading
    } else {
        process.standardInput = FileHandle.nullDevice
    }
    try process.run()
    if !(await process.waitForExit(timeout: timeout)) {
        kill(process.processIdentifier, SIGKILL)
        throw IRCTestSupportError.timeout(([executable] + arguments).joined(separator: " "))
    }
    let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    return (process.terminationStatus, text)
}

/// Free TCP ports on 127.0.0.1 (bound to port 0 and released; another process could take them in between,
/// which is unlikely on a test machine).
public enum FreePort {
    public static func pick() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }

    /// Whether something accepts TCP connections on `127.0.0.1:port`.
    public static func isAccepting(_ port: Int) async -> Bool {
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.milliseconds(300))
                .connect(host: "127.0.0.1", port: port)
                .get()
            try? await channel.close()
            return true
        } catch {
            return false
        }
    }
}
