import Foundation

/// A real ngIRCd (Debian `ngircd`, run as `ngircd -n -f <conf>`) on 127.0.0.1 for live tests, with a TLS
/// port using a self-signed certificate made at start and a plaintext port.
///
/// ngIRCd 26 throttles clients (it processes about one command per second once a short burst is used up)
/// and offers only the `multi-prefix` capability. It completes registration at once (no 1 s delay).
///
/// ```swift
/// let server = try await NgircdServer.start()
/// // connect to server.host : server.tlsPort trusting server.certificate.certificatePath
/// await server.stop()          // and `try await server.restart()` to bring it back on the same ports
/// // or: try await NgircdServer.withRunning { server in … }   (stops it even when the body throws)
/// ```
public final class NgircdServer: Sendable {
    public static let executable = "/usr/sbin/ngircd"

    public let host = "127.0.0.1"
    public let tlsPort: Int
    public let plainPort: Int
    public let serverName: String
    public let certificate: TestCertificate
    public let directory: TemporaryDirectory
    private let daemon: IRCDaemon

    /// Writes a config into a temporary folder, makes a certificate, picks free ports and starts the daemon.
    public static func start(
        serverName: String = "irc.ngircd.test",
        maxNickLength: Int = 30
    ) async throws
        -> NgircdServer
    {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw IRCTestSupportError.daemonMissing(executable)
        }
        let directory = try TemporaryDirectory(prefix: "ngircd")
        let certificate = try await TestCertificate.make(in: directory.path)
        let tlsPort = try await FreePort.pick()
        var plainPort = try await FreePort.pick()
        while plainPort == tlsPort { plainPort = try await FreePort.pick() }
        let runAsNobody = getuid() == 0
        let config = """
            [Global]
            Name = \(serverName)
            Info = ngIRCd for live tests
            AdminInfo1 = Test
            AdminInfo2 = Localhost
            AdminEMail = test@localhost
            Listen = 127.0.0.1
            Ports = \(plainPort)
            MotdPhrase = Live test server
            \(runAsNobody ? "ServerUID = 65534\nServerGID = 65534" : "")

            [Limits]
            MaxConnectionsIP = 0
            MaxNickLength = \(maxNickLength)
            PingTimeout = 120
            PongTimeout = 60

            [Options]
            DNS = no
            Ident = no
            PAM = no

            [SSL]
            CertFile = \(certificate.certificatePath)
            KeyFile = \(certificate.keyPath)
            Ports = \(tlsPort)

            """
        let configPath = directory.file("ngircd.conf")
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        // ngircd reads the key after dropping privileges on some setups: keep the folder readable.
        try await runCommand("/bin/chmod", ["-R", "a+rX", directory.path])
        let daemon = IRCDaemon(
            name: "ngircd",
            executable: executable,
            arguments: ["-n", "-f", configPath],
            logPath: directory.file("ngircd.log")
        )
        let server = NgircdServer(
            tlsPort: tlsPort,
            plainPort: plainPort,
            serverName: serverName,
            certificate: certificate,
            directory: directory,
            daemon: daemon
        )
        try await server.restart()
        return server
    }

    private init(
        tlsPort: Int,
        plainPort: Int,
        serverName: String,
        certificate: TestCertificate,
        directory: TemporaryDirectory,
        daemon: IRCDaemon
    ) {
        self.tlsPort = tlsPort
        self.plainPort = plainPort
        self.serverName = serverName
        self.certificate = certificate
        self.directory = directory
        self.daemon = daemon
    }

    /// Starts the daemon (again) on the same ports and waits until it says both listen ("Now
    /// listening on [127.0.0.1]:PORT", printed once the socket listens).
    public func restart(timeout: Duration = .seconds(15)) async throws {
        try await daemon.launch(
            waitingFor: [tlsPort, plainPort], timeout: timeout,
            readiness: .linePerPort { "Now listening on [127.0.0.1]:\($0)" })
    }

    /// Starts a server, runs `body` with it and stops the server afterwards, also when `body` throws.
    public static func withRunning<Result>(_ body: (NgircdServer) async throws -> Result) async throws -> Result {
        try await withStartedServer({ try await start() }, stop: { await $0.stop() }, body)
    }

    /// Stops the daemon (killed: see ``IRCDaemon``), waiting until it has exited.
    public func stop() async {
        await daemon.terminate()
    }

    /// Whether the daemon is running.
    public var isRunning: Bool { daemon.isRunning }

    /// The daemon's output so far (for test diagnostics).
    public func log() -> String { daemon.log() }
}
