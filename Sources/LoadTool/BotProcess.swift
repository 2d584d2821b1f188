import Foundation

/// Figures the kernel keeps about a process (Linux /proc).
struct ProcessFigures: Sendable {
    let pid: Int32

    /// CPU time of all the process's threads, in nanoseconds (sum of /proc/PID/task/*/schedstat,
    /// which has nanosecond resolution; utime+stime from /proc/PID/stat when that is unavailable).
    func cpuNanoseconds() -> UInt64? {
        let tasks = "/proc/\(pid)/task"
        if let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks), !threads.isEmpty {
            var total: UInt64 = 0
            var found = false
            for thread in threads {
                guard let text = try? String(contentsOfFile: "\(tasks)/\(thread)/schedstat", encoding: .utf8),
                    let first = text.split(separator: " ").first, let value = UInt64(first)
                else { continue }
                total += value
                found = true
            }
            if found { return total }
        }
        return statCPUNanoseconds()
    }

    /// utime + stime from /proc/PID/stat (clock-tick resolution).
    func statCPUNanoseconds() -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // Fields after "(comm)": state is field 3; utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
        let ticks = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
        return (user + system) * 1_000_000_000 / ticks
    }

    /// A `Vm…:` value of /proc/PID/status in KiB (VmHWM: peak resident memory, VmRSS: now).
    func statusKiB(_ key: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    /// Number of threads.
    func threadCount() -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"))?.count
    }
}

/// The bot, started by the load tool so process start → JOIN can be timed.
final class LaunchedBot: @unchecked Sendable {
    // Unchecked: `process` is only touched from the tool's sequential driver.
    let process: Process
    /// Monotonic time just before the process was spawned.
    let startedAt: UInt64

    var figures: ProcessFigures { ProcessFigures(pid: process.processIdentifier) }

    init(command: [String], logPath: String?) throws {
        guard let executable = command.first else { throw ProbeError(description: "no bot command given") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = Array(command.dropFirst())
        if let logPath {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            let log = FileHandle(forWritingAtPath: logPath)
            process.standardOutput = log
            process.standardError = log
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        self.process = process
        startedAt = monotonicNanoseconds()
        try process.run()
    }

    /// SIGTERM (the bot says QUIT and exits), then SIGKILL after `grace`.
    func stop(grace: Duration = .seconds(5)) async {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + grace
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
    }
}

/// The `--post-command` of `onthemap-load`: a shell command that commits one pin elsewhere.
enum PostCommand {
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `command` with `number` as `$1` and returns its first line of output.
    static func run(_ command: String, number: Int) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command + " \"$1\"", "post-command", String(number)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw Failed(description: "--post-command exited with \(process.terminationStatus): \(text)")
        }
        return text.split(separator: "\n").first.map(String.init) ?? ""
    }
}
