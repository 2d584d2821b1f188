import Foundation

/// A daemon process run in the foreground for a live test, killed on ``terminate()`` or when released.
///
/// Processes started from a Swift test process inherit its blocked signal mask (SIGTERM included), so a
/// polite SIGTERM is not reliably delivered: ``terminate()`` sends SIGKILL, which clients see as the server
/// going away abruptly (like a crash or network loss).
final class IRCDaemon: @unchecked Sendable {
    private let lock = NSLock()
    private var process: Process?
    /// The running process's output, line by line (also written to ``logPath``).
    private var output: ProcessOutput?
    let name: String
    let executable: String
    let arguments: [String]
    let logPath: String

    init(name: String, executable: String, arguments: [String], logPath: String) {
        self.name = name
        self.executable = executable
        self.arguments = arguments
        self.logPath = logPath
    }

    var isRunning: Bool { lock.withLock { process?.isRunning ?? false } }

    func launch() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = try ProcessOutput(logPath: logPath)
        try output.attach(to: process)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        output.processStarted()
        lock.withLock {
            self.process = process
            self.output = output
        }
    }

    /// Waits until the running process prints a line containing `text` (woken by each line it
    /// prints); false when it does not within `timeout`, or ends first.
    func waitForOutput(containing text: String, timeout: Duration) async -> Bool {
        guard let output = lock.withLock({ self.output }) else { return false }
        return await output.lines.wait(timeout: timeout) { $0.contains { $0.contains(text) } }
    }

    /// What a daemon prints once it listens.
    enum Readiness {
        /// A line for each port (`announcing(port)`), printed once that port listens.
        case linePerPort((Int) -> String)
        /// One line, printed once every configured port listens.
        case line(String)
    }

    /// Starts the daemon unless it runs, and waits (woken by each line it prints) until it says it
    /// listens on `ports` (a single line naming no port is followed by one connection to each).
    /// Kills it and throws with its log when it does not within `timeout`.
    func launch(waitingFor ports: [Int], timeout: Duration, readiness: Readiness) async throws {
        guard !isRunning else { return }
        try launch()
        var listening = true
        switch readiness {
        case .linePerPort(let announcing):
            for port in ports where listening {
                listening = await waitForOutput(containing: announcing(port), timeout: timeout)
            }
        case .line(let text):
            listening = await waitForOutput(containing: text, timeout: timeout)
            // The line names no port: each is tried once (a listener that failed to bind).
            for port in ports where listening {
                listening = await FreePort.isAccepting(port)
            }
        }
        if !listening {
            await terminate()
            throw IRCTestSupportError.daemonDidNotStart(name, log: log())
        }
    }

    /// Kills the process and waits until it has exited.
    func terminate() async {
        guard let process = lock.withLock({ self.process }) else { return }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        // SIGKILL cannot be refused: the guard is only against a machine that stalls.
        await process.waitForExit(timeout: .seconds(120))
        lock.withLock { self.process = nil }
    }

    func log() -> String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    deinit {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
    }
}

/// Runs `body` with a freshly started server and stops the server afterwards, also when `body` throws.
func withStartedServer<Server, Result>(
    _ start: () async throws -> Server, stop: (Server) async -> Void, _ body: (Server) async throws -> Result
) async throws -> Result {
    let server = try await start()
    do {
        let result = try await body(server)
        await stop(server)
        return result
    } catch {
        await stop(server)
        throw error
    }
}
