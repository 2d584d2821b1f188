import Foundation

/// A real InspIRCd 3 (Debian `inspircd`, run as `inspircd --nofork --config <conf>`) on 127.0.0.1 for live
/// tests, with a TLS port (ssl_gnutls, self-signed certificate made at start) and a plaintext port.
///
/// It loads the IRCv3 modules, so it offers message-tags, server-time, account-tag, extended-join,
/// account-notify, chghost, cap-notify, multi-prefix, userhost-in-names, client-only tags (`+draft/reply`),
/// message ids, labeled-response with batch, MONITOR with extended-monitor, `VHOST` (see ``vhost``) and bot mode
/// (+B, tagged `inspircd.org/bot`). `sasl` needs linked services:
/// with ``ServicesLink`` it also opens a server port for them (``AthemeServices``), sends SASL to them and
/// asks clients for a certificate (CertFP). By default its flood limits are raised in `<connect>`; ``ConnectClass`` gives other classes
/// (e.g. the stock limits for the bot and relaxed ones for simulated students). InspIRCd refuses to run
/// as root, so as root it is started with `setpriv --reuid=nobody --regid=nogroup --clear-groups` and its
/// folder is made readable and writable for that user. It completes every registration about 1 s after NICK/USER.
public final class InspircdServer: Sendable {
    public static let executable = "/usr/sbin/inspircd"

    public let host = "127.0.0.1"
    public let tlsPort: Int
    public let plainPort: Int
    public let serverName: String
    public let certificate: TestCertificate
    public let directory: TemporaryDirectory
    /// Where linked services connect, when the server was started with a ``ServicesLink``.
    public let servicesLink: ServicesLink?
    private let daemon: IRCDaemon

    /// A services server allowed to link over loopback (plaintext, password both ways), U-lined, and
    /// the target of SASL.
    public struct ServicesLink: Sendable {
        public var serverName: String
        public var password: String
        /// The server port it connects to (picked at start).
        public var port: Int

        public init(serverName: String = "services.test", password: String, port: Int = 0) {
            self.serverName = serverName
            self.password = password
            self.port = port
        }

        var configBlock: String {
            """
            <bind address="127.0.0.1" port="\(port)" type="servers">
            <link name="\(serverName)" ipaddr="127.0.0.1" port="\(port)" allowmask="127.0.0.0/8"
                sendpass="\(password)" recvpass="\(password)">
            <uline server="\(serverName)" silent="yes">
            <sasl target="\(serverName)">
            """
        }
    }

    /// One `<connect>` block. InspIRCd puts a client in the first block (in config order) whose `allow`
    /// mask matches its address, so list narrower masks first.
    public struct ConnectClass: Sendable {
        public var name: String
        /// An IP mask or CIDR range (`*`, `127.0.0.1`, `127.0.0.0/8`).
        public var allow: String
        /// The block's other attributes, written as given (`threshold`, `commandrate`, `fakelag`, `recvq`…).
        public var attributes: [(String, String)]

        public init(name: String, allow: String, attributes: [(String, String)]) {
            self.name = name
            self.allow = allow
            self.attributes = attributes
        }

        /// Limits high enough that a test client is never throttled (the live tests' default class).
        public static func relaxed(name: String = "relaxed", allow: String = "*") -> ConnectClass {
            ConnectClass(
                name: name, allow: allow,
                attributes: [
                    ("threshold", "100000"), ("hardsendq", "4194304"), ("softsendq", "1048576"),
                    ("recvq", "1048576"), ("localmax", "1000"), ("globalmax", "1000"),
                    ("commandrate", "10000000"), ("fakelag", "off"), ("maxchans", "50"),
                ] + common)
        }

        /// The flood limits of Debian's stock `/etc/inspircd/inspircd.conf` (InspIRCd 3.15): threshold 10,
        /// softsendq 8192, hardsendq 262144, recvq 8192, localmax/globalmax 3, with `commandrate` and
        /// `fakelag` left to the built-in defaults (1000 = 1 command a second; on). Measured: a client may
        /// send 10 commands at once, then 1 a second (JOIN counts 2); faster lines wait in the server's
        /// receive queue, and past 8192 waiting bytes it is disconnected with "RecvQ exceeded".
        public static func stock(name: String = "stock", allow: String = "*") -> ConnectClass {
            ConnectClass(
                name: name, allow: allow,
                attributes: [
                    ("threshold", "10"), ("hardsendq", "262144"), ("softsendq", "8192"), ("recvq", "8192"),
                    ("localmax", "3"), ("globalmax", "3"),
                ] + common)
        }

        /// Not flood limits: no ident or DNS lookups on 127.0.0.1 (they would only slow registration).
        static let common = [
            ("timeout", "60"), ("pingfreq", "120"), ("useident", "no"), ("resolvehostnames", "no"),
        ]

        var configBlock: String {
            let rendered = attributes.map { "\($0.0)=\"\($0.1)\"" }.joined(separator: " ")
            return "<connect name=\"\(name)\" allow=\"\(allow)\" \(rendered)>"
        }
    }

    /// A user who sends `VHOST <vhostUser> <vhostPassword>` gets the host ``vhost`` (the server then
    /// tells CHGHOST to those who see them: a shared channel, or MONITOR with extended-monitor).
    public static let vhostUser = "student"
    public static let vhostPassword = "cloak-pass"
    public static let vhost = "student.cloak.test"

    /// Writes a config into a temporary folder, makes a certificate, picks free ports and starts the daemon.
    public static func start(
        serverName: String = "irc.inspircd.test",
        connectClasses: [ConnectClass] = [.relaxed(name: "main")],
        services: ServicesLink? = nil
    ) async throws -> InspircdServer {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw IRCTestSupportError.daemonMissing(executable)
        }
        let directory = try TemporaryDirectory(prefix: "inspircd")
        let certificate = try await TestCertificate.make(in: directory.path)
        let tlsPort = try await FreePort.pick()
        var plainPort = try await FreePort.pick()
        while plainPort == tlsPort { plainPort = try await FreePort.pick() }
        var services = services
        if services != nil {
            var linkPort = try await FreePort.pick()
            while [tlsPort, plainPort].contains(linkPort) { linkPort = try await FreePort.pick() }
            services?.port = linkPort
        }
        let path = directory.path
        var modules = [
            "ssl_gnutls", "cap", "ircv3", "ircv3_accounttag", "ircv3_capnotify", "ircv3_chghost",
            "ircv3_ctctags",
            "ircv3_msgid", "ircv3_servertime", "ircv3_batch", "namesx", "uhnames", "services_account",
            "chghost", "monitor", "botmode", "ircv3_labeledresponse", "vhost",
        ]
        if services != nil { modules += ["spanningtree", "sasl", "sslinfo"] }
        let config = """
            <config format="xml">
            <server name="\(serverName)" description="InspIRCd for live tests" network="TestNet">
            <admin name="Test" nick="test" email="test@localhost">
            <bind address="127.0.0.1" port="\(tlsPort)" type="clients" sslprofile="Clients">
            <bind address="127.0.0.1" port="\(plainPort)" type="clients">
            \(modules.map { "<module name=\"\($0)\">" }.joined(separator: "\n"))
            <sslprofile name="Clients" provider="gnutls" certfile="\(certificate.certificatePath)"
                keyfile="\(certificate.keyPath)" hash="sha256" requestclientcert="\(services == nil ? "no" : "yes")">
            \(connectClasses.map(\.configBlock).joined(separator: "\n"))
            <vhost user="\(Self.vhostUser)" pass="\(Self.vhostPassword)" host="\(Self.vhost)">
            \(services?.configBlock ?? "")
            <dns server="127.0.0.1" timeout="1">
            <pid file="\(path)/inspircd.pid">
            <log method="file" type="* -USERINPUT -USEROUTPUT" level="default" target="\(path)/inspircd-file.log">
            <files motd="\(path)/motd.txt">
            <options prefixquit="Quit: " syntaxhints="no" announcets="yes" hostintopic="yes" pingwarning="15">
            <security userstats="Pu">

            """
        let configPath = directory.file("inspircd.conf")
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        try "InspIRCd live test server\n".write(
            toFile: directory.file("motd.txt"),
            atomically: true,
            encoding: .utf8
        )
        var executablePath = executable
        var arguments = ["--nofork", "--config", configPath]
        if getuid() == 0 {
            // InspIRCd refuses to run as root; the unprivileged user must read the files and write pid/log.
            try await runCommand("/bin/chown", ["-R", "nobody:nogroup", directory.path])
            executablePath = "/usr/bin/setpriv"
            arguments = ["--reuid=nobody", "--regid=nogroup", "--clear-groups", executable] + arguments
        }
        let daemon = IRCDaemon(
            name: "inspircd",
            executable: executablePath,
            arguments: arguments,
            logPath: directory.file("inspircd.log")
        )
        let server = InspircdServer(
            tlsPort: tlsPort,
            plainPort: plainPort,
            serverName: serverName,
            certificate: certificate,
            directory: directory,
            servicesLink: services,
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
        servicesLink: ServicesLink?,
        daemon: IRCDaemon
    ) {
        self.tlsPort = tlsPort
        self.plainPort = plainPort
        self.serverName = serverName
        self.certificate = certificate
        self.directory = directory
        self.servicesLink = servicesLink
        self.daemon = daemon
    }

    /// Starts the daemon (again) on the same ports and waits until it says it runs ("InspIRCd is
    /// now running as", printed after it has bound every listener of its configuration).
    public func restart(timeout: Duration = .seconds(15)) async throws {
        try await daemon.launch(
            waitingFor: [tlsPort, plainPort], timeout: timeout, readiness: .line("InspIRCd is now running as"))
    }

    /// Starts a server, runs `body` with it and stops the server afterwards, also when `body` throws.
    public static func withRunning<Result>(
        connectClasses: [ConnectClass] = [.relaxed(name: "main")],
        _ body: (InspircdServer) async throws -> Result
    ) async throws -> Result {
        try await withStartedServer(
            { try await start(connectClasses: connectClasses) }, stop: { await $0.stop() }, body)
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
