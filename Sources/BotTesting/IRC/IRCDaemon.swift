import Foundation

/// A daemon process run in the foreground for a live test, killed on ``terminate()`` or when released.
///
/// Processes started from a Swift test process inherit its blocked signal mask (SIGTERM included), so a
/// polite SIGTERM is not reliably delivered: ``terminate()`` sends SIGKILL, which clients see as the server
/// going away abruptly (like a crash or network loss).
final class IRCDaemon: @unchecked Sendable {
    private let lock = NSLock()
    private var process: Process?
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
        if !FileManager.default.fileExists(atPath: logPath) {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        lock.withLock { self.process = process }
    }

    /// Kills the process and waits until it has exited.
    func terminate() async {
        guard let process = lock.withLock({ self.process }) else { return }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
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
