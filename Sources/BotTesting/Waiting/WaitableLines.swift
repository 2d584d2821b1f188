import Foundation
import Logging
import NIOConcurrencyHelpers

/// Lines that arrive over time (a process's output, a logger's messages) and waits that wake on
/// each arriving line: a test waits for the line it expects, and its timeout is only the guard
/// against a line that never comes.
public final class WaitableLines: Sendable {
    private struct Waiter {
        var condition: @Sendable ([String]) -> Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    private let state = NIOLockedValueBox<(lines: [String], finished: Bool, waiters: [UUID: Waiter])>(
        ([], false, [:]))

    public init() {}

    /// Every line so far.
    public var lines: [String] { state.withLockedValue { $0.lines } }

    /// Whether the source ended (the process closed its output).
    public var isFinished: Bool { state.withLockedValue { $0.finished } }

    /// Adds one line and wakes the waits it satisfies.
    public func append(_ line: String) {
        let ready = state.withLockedValue { state in
            state.lines.append(line)
            let lines = state.lines
            let ready = state.waiters.filter { $0.value.condition(lines) }
            for id in ready.keys { state.waiters.removeValue(forKey: id) }
            return ready.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Marks the end of the source: every wait wakes (to look once more, then give up).
    public func finish() {
        let waiting = state.withLockedValue { state in
            state.finished = true
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Waits until the lines so far satisfy `condition` (looked at as each line arrives); false when
    /// `timeout` passed first or the source ended without it.
    @discardableResult
    public func wait(timeout: Duration, until condition: @escaping @Sendable ([String]) -> Bool) async -> Bool {
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        // Checked and registered under the lock `append` takes: a line that arrives
                        // meanwhile is seen by one or the other.
                        let done = self.state.withLockedValue { state in
                            if Task.isCancelled || state.finished || condition(state.lines) { return true }
                            state.waiters[id] = Waiter(condition: condition, continuation: continuation)
                            return false
                        }
                        if done { continuation.resume() }
                    }
                } onCancel: {
                    self.state.withLockedValue { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
                }
            }
            await group.next()
            group.cancelAll()
        }
        return condition(lines)
    }

    /// Waits for a line that contains `text` after the first `skipping` lines; throws `.timeout`
    /// (naming `what` and the last lines) when none comes within `timeout`.
    @discardableResult
    public func waitForLine(
        containing text: String, after skipping: Int = 0, timeout: Duration = .seconds(60), _ what: String? = nil
    ) async throws -> String {
        let found = await wait(timeout: timeout) { $0.dropFirst(skipping).contains { $0.contains(text) } }
        guard found, let line = lines.dropFirst(skipping).first(where: { $0.contains(text) }) else {
            let recent = lines.suffix(15).joined(separator: "\n  ")
            throw IRCTestSupportError.timeout("\(what ?? "a line with “\(text)”"); last lines:\n  \(recent)")
        }
        return line
    }

    /// How many lines so far contain `text`.
    public func count(containing text: String) -> Int {
        lines.reduce(0) { $0 + ($1.contains(text) ? 1 : 0) }
    }
}

/// A log handler that keeps each message (with its level and metadata, as one line) in a
/// ``WaitableLines``, so that a test waits for what the code under test logs.
public struct WaitableLogHandler: LogHandler {
    public let lines: WaitableLines
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]

    public init(lines: WaitableLines, logLevel: Logger.Level = .debug) {
        self.lines = lines
        self.logLevel = logLevel
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let details = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        lines.append("\(event.level) \(event.message)" + (details.isEmpty ? "" : " \(details)"))
    }

    /// A logger whose messages go to `lines`.
    public static func logger(_ lines: WaitableLines, label: String = "test", level: Logger.Level = .debug) -> Logger {
        Logger(label: label) { _ in WaitableLogHandler(lines: lines, logLevel: level) }
    }
}

/// The exits being waited for, by process: the termination handler finds its waiter here, under
/// this lock, rather than in what it captured, so everything the waiting task wrote before
/// registering is seen by the thread Foundation calls the handler on.
private let exitWaiters = NIOLockedValueBox<
    [ObjectIdentifier: (exited: WaitableLines, previous: (@Sendable (Process) -> Void)?)]
>([:])

extension Process {
    /// Waits until the process has exited (woken by its termination, not by polling); false when
    /// `timeout` passed first.
    ///
    /// It takes the process's `terminationHandler` (calling one that was set before it), so it
    /// is for processes whose handler nobody else changes meanwhile.
    @discardableResult
    public func waitForExit(timeout: Duration) async -> Bool {
        guard isRunning else { return true }
        let exited = WaitableLines()
        let key = ObjectIdentifier(self)
        exitWaiters.withLockedValue { $0[key] = (exited, terminationHandler) }
        terminationHandler = { process in
            let waiter = exitWaiters.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(process)) }
            waiter?.previous?(process)
            waiter?.exited.finish()
        }
        // Exited before the handler was in place: it may never be called.
        if !isRunning { exited.finish() }
        await exited.wait(timeout: timeout) { _ in false }
        let stillRegistered = exitWaiters.withLockedValue { $0.removeValue(forKey: key) }
        if let stillRegistered { terminationHandler = stillRegistered.previous }
        return exited.isFinished || !isRunning
    }
}

/// A process's standard output and error, read through a pipe as they come: each line is written
/// to a log file (kept for the test's failure report) and added to ``lines``, which a test waits on
/// (a readiness line, a line the process logs when it has done something).
public final class ProcessOutput: Sendable {
    public let lines = WaitableLines()
    /// The file every line is written to.
    public let logPath: String
    private let pipe = Pipe()
    private let drained = NIOLockedValueBox(false)
    private let drainedCondition = NSCondition()

    /// Creates (or appends to) `logPath`; call ``attach(to:)`` before the process runs.
    public init(logPath: String) throws {
        if !FileManager.default.fileExists(atPath: logPath) {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        }
        self.logPath = logPath
        // Never inherited by another child the test process starts meanwhile (which would keep the
        // pipe open after this process ended); the child it is for gets it through dup2.
        for end in [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor] {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
    }

    /// Makes `process` write its output and errors into this, and starts reading.
    public func attach(to process: Process) throws {
        process.standardOutput = pipe
        process.standardError = pipe
        try startReading()
    }

    /// The pipe's writing end, for a child started with `posix_spawn` rather than Foundation's
    /// `Process`: the child's output and errors are duplicated from it (and the child closes this
    /// and ``readingEnd``); then ``startReading()`` and, once the child runs, ``processStarted()``.
    public var writingEnd: Int32 { pipe.fileHandleForWriting.fileDescriptor }
    /// The pipe's reading end (a spawned child closes it).
    public var readingEnd: Int32 { pipe.fileHandleForReading.fileDescriptor }

    /// Starts reading what the process writes into the pipe: each line into the log file and
    /// ``lines``.
    public func startReading() throws {
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        file.seekToEndOfFile()
        let reading = pipe.fileHandleForReading
        // A thread of its own (a blocking read), not one of the concurrency pool's few.
        let thread = Thread { [self] in
            var pending = Data()
            while true {
                let chunk = reading.availableData
                if chunk.isEmpty { break }
                try? file.write(contentsOf: chunk)
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    lines.append(line)
                }
            }
            if !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
            try? file.close()
            lines.finish()
            drainedCondition.lock()
            drained.withLockedValue { $0 = true }
            drainedCondition.broadcast()
            drainedCondition.unlock()
        }
        thread.start()
    }

    /// Closes the test's copy of the pipe's writing end (once the process runs), so that the reading
    /// ends when the process (and whatever inherited its output) does.
    public func processStarted() {
        try? pipe.fileHandleForWriting.close()
    }

    /// Blocks until everything the process wrote is read (it has exited) or `seconds` passed.
    public func waitUntilDrained(seconds: Double = 5) {
        let deadline = Date().addingTimeInterval(seconds)
        drainedCondition.lock()
        while !drained.withLockedValue({ $0 }), drainedCondition.wait(until: deadline) {}
        drainedCondition.unlock()
    }
}

/// Something that happens once (a client registered, a task reached a point): a test waits for it
/// and is woken when it happens; the timeout only guards against it never happening.
public final class TestSignal: Sendable {
    private let happened = WaitableLines()

    public init() {}

    /// It happened: every wait wakes, and later waits return at once.
    public func signal() { happened.finish() }

    /// Whether it happened.
    public var hasHappened: Bool { happened.isFinished }

    /// Waits until it happens; false when `timeout` passed first.
    @discardableResult
    public func wait(timeout: Duration = .seconds(60)) async -> Bool {
        await happened.wait(timeout: timeout) { _ in false }
        return happened.isFinished
    }
}
