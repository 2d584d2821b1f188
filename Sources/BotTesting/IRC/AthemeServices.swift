import Foundation

/// Real IRC services for live tests: Debian's Atheme 7.2 (`atheme-services`) linked to an
/// ``InspircdServer`` started with a ``InspircdServer/ServicesLink``, over loopback.
///
/// It runs NickServ (register, identify, `CERT` for certificate fingerprints) and SaslServ with the
/// PLAIN and EXTERNAL mechanisms, which is all Atheme 7.2 offers of the mechanisms the bot speaks
/// (it has no SCRAM). Passwords are stored with PBKDF2 (`crypto/pbkdf2v2`), in a database of its own
/// temporary folder. Like InspIRCd it refuses to run as root, so as root it is started as `nobody`.
public final class AthemeServices: Sendable {
    public static let executable = "/usr/bin/atheme-services"

    public let directory: TemporaryDirectory
    private let daemon: IRCDaemon

    private init(directory: TemporaryDirectory, daemon: IRCDaemon) {
        self.directory = directory
        self.daemon = daemon
    }

    /// Starts Atheme and waits until it has linked to `server` and finished its burst.
    public static func start(linkedTo server: InspircdServer, timeout: Duration = .seconds(20)) async throws
        -> AthemeServices
    {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw IRCTestSupportError.daemonMissing(executable)
        }
        guard let link = server.servicesLink else {
            throw IRCTestSupportError.commandFailed(
                "AthemeServices.start", status: 1, output: "the InspIRCd server was started without a services link")
        }
        let directory = try TemporaryDirectory(prefix: "atheme")
        let configPath = directory.file("atheme.conf")
        try configuration(link: link, uplinkName: server.serverName).write(
            toFile: configPath, atomically: true, encoding: .utf8)
        var executablePath = executable
        var arguments = [
            "-n", "-c", configPath, "-D", directory.path, "-l", directory.file("atheme.log"),
            "-p", directory.file("atheme.pid"),
        ]
        if getuid() == 0 {
            try await runCommand("/bin/chown", ["-R", "nobody:nogroup", directory.path])
            executablePath = "/usr/bin/setpriv"
            arguments = ["--reuid=nobody", "--regid=nogroup", "--clear-groups", executable] + arguments
        }
        let daemon = IRCDaemon(
            name: "atheme-services", executable: executablePath, arguments: arguments,
            logPath: directory.file("atheme.out"))
        let services = AthemeServices(directory: directory, daemon: daemon)
        try daemon.launch()
        // Ready once it says it is linked and has sent the network its state.
        guard await daemon.waitForOutput(containing: "finished synching with uplink", timeout: timeout) else {
            await daemon.terminate()
            throw IRCTestSupportError.daemonDidNotStart("atheme-services", log: services.log())
        }
        return services
    }

    /// Stops the services (killed: see ``IRCDaemon``).
    public func stop() async {
        await daemon.terminate()
    }

    /// What the services printed so far (for test diagnostics).
    public func log() -> String { daemon.log() }

    /// Registers `account` with NickServ from a fresh client of `server` (over TLS), and, when
    /// `certificate` is given, connects with it and adds its fingerprint to the account (`CERT ADD`),
    /// so that SASL EXTERNAL logs in with that certificate.
    public static func register(
        account: String, password: String, email: String, on server: InspircdServer,
        certificate: TestCertificate? = nil
    ) async throws {
        let user = try await TestIRCUser.connect(
            port: server.tlsPort, caFile: server.certificate.certificatePath, nick: account,
            clientCertificate: certificate)
        try await user.privmsg("NickServ", "REGISTER \(password) \(email)")
        _ = try await user.waitForMessage(timeout: .seconds(10), "NickServ registers \(account)") {
            $0.command == "NOTICE" && ($0.parameters.last ?? "").contains("is now registered")
        }
        if certificate != nil {
            try await user.privmsg("NickServ", "CERT ADD")
            _ = try await user.waitForMessage(timeout: .seconds(10), "NickServ adds the fingerprint") {
                $0.command == "NOTICE" && ($0.parameters.last ?? "").contains("to your fingerprint list")
            }
        }
        await user.quit()
    }

    static func configuration(link: InspircdServer.ServicesLink, uplinkName: String) -> String {
        let modules = [
            "protocol/inspircd", "backend/opensex", "crypto/pbkdf2v2", "nickserv/main", "nickserv/register",
            "nickserv/identify", "nickserv/logout", "nickserv/cert", "saslserv/main", "saslserv/plain",
            "saslserv/external",
        ]
        return modules.map { "loadmodule \"modules/\($0)\";" }.joined(separator: "\n") + """

            serverinfo {
                name = "\(link.serverName)"; desc = "Atheme for live tests"; numeric = "00A";
                recontime = 2; netname = "TestNet"; hidehostsuffix = "users.test";
                adminname = "test"; adminemail = "test@localhost"; registeremail = "noreply@localhost";
                auth = none; casemapping = rfc1459; loglevel = { error; info; admin; network; };
                maxlogins = 5; maxusers = 5; mdlimit = 30; emaillimit = 10; emailtime = 300;
            };
            uplink "\(uplinkName)" { host = "127.0.0.1"; password = "\(link.password)"; port = \(link.port); };
            nickserv { nick = "NickServ"; user = "NickServ"; host = "\(link.serverName)";
                real = "Nickname Services"; maxnicks = 5; expire = 30; };
            saslserv { nick = "SaslServ"; user = "SaslServ"; host = "\(link.serverName)";
                real = "SASL Authentication Agent"; };
            general {
                chan = "#services"; uflags = { }; cflags = { }; flood_msgs = 0; flood_time = 10;
                ratelimit_uses = 0; ratelimit_period = 60; kline_time = 7; commit_interval = 5;
                vhost_change = 30; secure = no; default_clone_allowed = 5; clone_time = 0;
                uplink_sendq_limit = 1048576; language = "en"; immune_level = immune;
                load_database_mdeps; registration_time = 0; maxnicklength = 30;
            };
            database { engine = "opensex"; };

            """
    }
}
