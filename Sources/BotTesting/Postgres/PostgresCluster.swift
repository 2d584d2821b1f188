import Foundation
import NIOConcurrencyHelpers

/// A throwaway PostgreSQL cluster of the test's own (Debian's `/usr/lib/postgresql/<v>/bin`),
/// on a free 127.0.0.1 port with trust authentication for the user `onthemap`, that the test may
/// stop and start again on the same port — unlike the shared server of `scripts/with-postgres.sh`,
/// which other tests use. As root, the server runs as the `postgres` user (it refuses root).
///
/// The server runs in the foreground as the launched process itself (not through `pg_ctl`, whose
/// wait for readiness misbehaves under the test runner's signal setup); stopping it sends the
/// signal of the shutdown mode, and SIGKILL if it has not exited after 15 seconds.
///
/// ```swift
/// try await PostgresCluster.withRunning { cluster in
///     // connect to cluster.url …
///     try await cluster.stop()        // clients see the server go away
///     try await cluster.start()       // back on the same port
/// }
/// ```
public final class PostgresCluster: Sendable {
    /// How to stop the server (PostgreSQL's shutdown modes).
    public enum StopMode: String, Sendable {
        /// Disconnects clients and shuts down cleanly (SIGINT).
        case fast
        /// Aborts at once, like a crash (SIGQUIT; recovery runs on the next start).
        case immediate

        var signal: Int32 { self == .fast ? SIGINT : SIGQUIT }
    }

    /// The folder of `initdb`, `postgres` and `psql`, when PostgreSQL is installed.
    public static let binDirectory: String? = {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        let sorted = versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
        return sorted.map { "\(root)/\($0)/bin" }.first {
            FileManager.default.isExecutableFile(atPath: "\($0)/initdb")
        }
    }()

    /// Whether a cluster can be started here.
    public static var isAvailable: Bool { binDirectory != nil }

    public let port: Int
    public let directory: TemporaryDirectory
    private let bin: String
    /// `setpriv` to the `postgres` user when running as root, else nothing.
    private let runAs: [String]
    private let server = NIOLockedValueBox<Process?>(nil)

    /// A connection URL for the `postgres` database.
    public var url: String { url(database: "postgres") }

    /// A connection URL for `database`.
    public func url(database: String) -> String {
        "postgres://onthemap@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    private var dataDirectory: String { directory.file("data") }

    private init(port: Int, directory: TemporaryDirectory, bin: String, runAs: [String]) {
        self.port = port
        self.directory = directory
        self.bin = bin
        self.runAs = runAs
    }

    /// Makes a cluster (`initdb`) and starts it on a free port.
    public static func start() async throws -> PostgresCluster {
        guard let bin = binDirectory else {
            throw IRCTestSupportError.daemonMissing("/usr/lib/postgresql/*/bin/initdb (apt-get install -y postgresql)")
        }
        let directory = try TemporaryDirectory(prefix: "pg-cluster")
        var runAs: [String] = []
        if getuid() == 0 {
            // setpriv executes the command itself (no child in between to forward signals).
            let ids = try await runCommand("/usr/bin/id", ["-u", "postgres"]).trimmingCharacters(
                in: .whitespacesAndNewlines)
            let group = try await runCommand("/usr/bin/id", ["-g", "postgres"]).trimmingCharacters(
                in: .whitespacesAndNewlines)
            runAs = ["/usr/bin/setpriv", "--reuid=\(ids)", "--regid=\(group)", "--clear-groups", "--"]
            try await runCommand("/bin/chown", ["postgres", directory.path])
        }
        let initdb =
            runAs + [
                "\(bin)/initdb", "-D", directory.file("data"), "-U", "onthemap", "--auth=trust",
                "--encoding=UTF8", "--locale=C", "--no-sync",
            ]
        try await runCommand(initdb[0], Array(initdb.dropFirst()))
        var lastError: (any Error)?
        for _ in 0..<5 {
            let port = try await FreePort.pick()
            let cluster = PostgresCluster(port: port, directory: directory, bin: bin, runAs: runAs)
            do {
                try await cluster.start()
                return cluster
            } catch {
                lastError = error
            }
        }
        throw lastError ?? IRCTestSupportError.daemonDidNotStart("postgres", log: "")
    }

    /// Starts the server (again) on its port and waits until it accepts connections.
    public func start() async throws {
        if server.withLockedValue({ $0?.isRunning ?? false }) { return }
        let command =
            runAs + [
                "\(bin)/postgres", "-D", dataDirectory, "-p", "\(port)", "-k", directory.path,
                "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=100", "-c", "fsync=off",
                "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                // Its messages in English: the test waits for the one that says it is ready.
                "-c", "lc_messages=C",
            ]
        let output = try ProcessOutput(logPath: directory.file("server.log"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        try output.attach(to: process)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        output.processStarted()
        server.withLockedValue { $0 = process }
        // Ready when it says so (then it answers queries); checked with one.
        let ready = await output.lines.wait(timeout: .seconds(60)) {
            $0.contains { $0.contains("database system is ready to accept connections") }
        }
        if ready, (try? await psql("SELECT 1")) == "1" { return }
        try await stop(.immediate)
        throw IRCTestSupportError.daemonDidNotStart("postgres", log: self.log())
    }

    /// Stops the server; clients lose their connections. Waits until it has exited.
    public func stop(_ mode: StopMode = .fast) async throws {
        guard let process = server.withLockedValue({ $0 }) else { return }
        if process.isRunning { kill(process.processIdentifier, mode.signal) }
        if !(await process.waitForExit(timeout: .seconds(15))) {
            kill(process.processIdentifier, SIGKILL)
            await process.waitForExit(timeout: .seconds(60))
        }
        server.withLockedValue { $0 = nil }
    }

    /// Starts a cluster, runs `body` with it, and stops it afterwards, also when `body` throws.
    public static func withRunning<Result>(_ body: (PostgresCluster) async throws -> Result) async throws
        -> Result
    {
        let cluster = try await start()
        do {
            let result = try await body(cluster)
            try? await cluster.stop(.immediate)
            return result
        } catch {
            try? await cluster.stop(.immediate)
            throw error
        }
    }

    /// Runs SQL with `psql` and returns its unaligned, tuples-only output (`|` between columns,
    /// one row a line). Throws when psql fails (e.g. the server is down).
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") async throws -> String {
        try await runCommand(
            "\(bin)/psql",
            [
                "-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-h", "127.0.0.1", "-p", "\(port)",
                "-U", "onthemap", "-d", database, "-c", sql,
            ]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        if let process = server.withLockedValue({ $0 }), process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
    }

    /// The server's log so far (for diagnostics).
    public func log() -> String {
        (try? String(contentsOfFile: directory.file("server.log"), encoding: .utf8)) ?? ""
    }
}
