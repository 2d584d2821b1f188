import BotTesting
import Foundation
import IRCProtocol
import NIOConcurrencyHelpers
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The newcomer's path, for real: `scripts/run-local` starts ngircd over TLS and the bot with the
/// demo class, a client connects, logs in as a demo student and asks `!near`, and Ctrl-C stops
/// everything it started.
/// Also checks that systemd accepts the deploy unit.
@Suite(.tags(.startsProcesses)) struct QuickStartTests {
    /// The package root (this file is Tests/OnTheMapAppTests/QuickStartTests.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test(.timeLimit(.minutes(2))) func runLocalServesTheDemoClassAndStopsEverythingOnCtrlC() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        let folder = try TemporaryDirectory(prefix: "quick-start")
        let state = folder.file("state")
        let log = folder.file("run-local.log")
        let port = try await FreePort.pick()
        let webPort = try await FreePort.pick()
        var environment = ProcessInfo.processInfo.environment
        environment["ONTHEMAP_LOCAL_PORT"] = "\(port)"
        environment["ONTHEMAP_LOCAL_WEB_PORT"] = "\(webPort)"
        environment["ONTHEMAP_LOCAL_STATE"] = state
        environment["ONTHEMAP_LOCAL_BIN"] = executable
        let script = try ProcessGroup.spawn(
            "\(Self.packageRoot)/scripts/run-local", arguments: [], environment: environment, log: log)
        let logText = { script.output.lines.lines.joined(separator: "\n") }

        let student: TestIRCUser
        do {
            student = try await talkToTheBot(
                port: port, certificate: "\(state)/irc-cert.pem", script: script, log: logText)
        } catch {
            script.signalGroup(SIGINT)
            if (try? await script.waitForExit(timeout: .seconds(20))) == nil { script.signalGroup(SIGKILL) }
            for leftover in ProcessGroup.processes(where: { $0.commandLine.contains(state) }) {
                kill(leftover.pid, SIGKILL)
            }
            throw error
        }
        // The class map is on, on this machine only, at the address the script prints.
        #expect(logText().contains("Class map: http://127.0.0.1:\(webPort)/"), "\(logText())")
        let (mapStatus, mapPage) = try await BotFaultLiveTests.get("http://127.0.0.1:\(webPort)/")
        #expect(mapStatus == 200 && mapPage.contains("map/app.js"), "\(mapStatus)")

        // Ctrl-C in a terminal: SIGINT to the script's whole process group. The bot leaves politely.
        script.signalGroup(SIGINT)
        let quit = try? await student.waitForMessage(timeout: .seconds(15), "MapBot's QUIT") {
            $0.command == "QUIT" && $0.sourceNick == "MapBot"
        }
        #expect(quit?.parameters.last?.contains("signing off") == true, "run-local output:\n\(logText())")
        await student.quit()
        let status = try await script.waitForExit(timeout: .seconds(25))
        #expect(status == .exited(0), "run-local output:\n\(logText())")
        #expect(logText().contains("Stopped."))
        // A normal stop is not reported as a fault.
        #expect(!logText().contains("server error"), "\(logText())")
        #expect(!logText().contains("connection lost"), "\(logText())")
        // Everything it started (ngircd, the bot) is gone: the script waited for each before it exited.
        let leftovers = ProcessGroup.processes { $0.group == script.pid || $0.commandLine.contains(state) }
        #expect(leftovers.isEmpty, "still running: \(leftovers.map(\.commandLine))")
        for leftover in leftovers { kill(leftover.pid, SIGKILL) }
    }

    /// Connects a student, checks `!near Seattle`, and returns the still-connected student.
    func talkToTheBot(
        port: Int, certificate: String, script: ProcessGroup, log: () -> String
    ) async throws -> TestIRCUser {
        // The script says how to connect once its server listens.
        try await script.waitUntilReady(port: port)
        let student = try await TestIRCUser.connect(port: port, caFile: certificate, nick: "student")
        try await student.join("#class")
        // The bot is in #class already (NAMES) or joins soon after.
        _ = try await student.waitForMessage(timeout: .seconds(30), "MapBot in #class") { message in
            if message.command == "JOIN" { return message.sourceNick == "MapBot" }
            guard message.command == "353", let names = message.parameters.last else { return false }
            return names.split(separator: " ").contains { $0.drop { "@+%&~".contains($0) } == "MapBot" }
        }
        #expect(
            log().contains("/connect -tls -tls_cafile \(certificate) localhost \(port)"),
            "the script says how to connect")
        // The class is for the class: the student logs in as the script says, then asks.
        #expect(log().contains("/msg MapBot !login alice@demo.local alice-demo-pass"), "the script says how to log in")
        try await student.privmsg("MapBot", "!login alice@demo.local alice-demo-pass")
        _ = try await student.waitForMessage(timeout: .seconds(15), "the login") {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBot" && $0.parameters.last?.hasPrefix("Welcome") == true
        }
        try await student.privmsg("#class", "!near Seattle")
        let replies = try await student.waitForMessages(count: 3, timeout: .seconds(15), "!near replies") {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBot" && $0.parameters.first == "#class"
        }
        let texts = replies.compactMap(\.parameters.last)
        #expect(texts.allSatisfy { $0.hasPrefix("student: ") }, "\(texts)")
        // The first line names the place understood; the others are classmates with distances (a
        // demo pin kept at Seattle itself, at the class's city level, is in the "same city").
        #expect(texts.first == "student: Nearest to Seattle, Washington, United States:", "\(texts)")
        #expect(
            texts.dropFirst().allSatisfy { $0.contains(/[0-9] km/) || $0.contains(" — same city — ") }, "\(texts)")
        let seattleArea = ["Radia Perlman", "Dennis Ritchie", "Jane Doe", "Linus Torvalds"]
        #expect(texts.contains { text in seattleArea.contains { text.contains($0) } }, "\(texts)")
        return student
    }

    @Test func systemdAcceptsTheDeployUnit() async throws {
        let analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let analyze else {
            print("QuickStartTests: systemd-analyze is not installed; the systemd unit was not verified.")
            return
        }
        let unit = try String(contentsOfFile: "\(Self.packageRoot)/deploy/onthemap-bot.service", encoding: .utf8)
        #expect(unit.contains("/usr/bin/onthemap-bot"))
        let folder = try TemporaryDirectory(prefix: "systemd-unit")
        // The real binary is not installed here: point ExecStart/ExecStartPre at an existing one.
        let path = folder.file("onthemap-bot.service")
        try unit.replacingOccurrences(of: "/usr/bin/onthemap-bot", with: "/bin/true")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let (status, output) = try await runProcess(analyze, ["verify", path])
        #expect(status == 0, "\(output)")
        // systemd only warns (exit 0) about unknown keys or bad values: any remark on the unit fails.
        #expect(!output.contains("onthemap-bot.service"), "\(output)")

        // The check catches mistakes: a misspelt key is named.
        let broken = folder.file("broken/onthemap-bot.service")
        try FileManager.default.createDirectory(atPath: folder.file("broken"), withIntermediateDirectories: true)
        try unit.replacingOccurrences(of: "/usr/bin/onthemap-bot", with: "/bin/true")
            .replacingOccurrences(of: "NoNewPrivileges=", with: "NoNewPrivilege=")
            .write(toFile: broken, atomically: true, encoding: .utf8)
        let (_, brokenOutput) = try await runProcess(analyze, ["verify", broken])
        #expect(brokenOutput.contains("NoNewPrivilege"), "\(brokenOutput)")
    }

    /// Runs a command to its end without blocking a thread; returns its status and output.
    static func runToEnd(_ executable: String, _ arguments: [String]) async throws -> (Int32, String) {
        let folder = try TemporaryDirectory(prefix: "run-to-end")
        let log = folder.file("output")
        let process = try ProcessGroup.spawn(
            executable, arguments: arguments, environment: ProcessInfo.processInfo.environment, log: log)
        let status = try await process.waitForExit(timeout: .seconds(60))
        let output = await process.completeOutput()
        switch status {
        case .exited(let code): return (code, output)
        case .signalled(let signal): return (128 + signal, output)
        }
    }
}

/// A child process started as the leader of its own process group (like a shell job), so the
/// whole group can be signalled as a terminal's Ctrl-C does.
final class ProcessGroup: Sendable {
    let pid: pid_t
    /// What the group writes (the leader's output and errors, and those of every child that keeps
    /// them), line by line as it comes, also kept in the log file; finished once every process
    /// holding it has ended.
    let output: ProcessOutput
    /// How the leader ended (nil: it was not our child to wait for), once ``exited`` happened.
    private let status = NIOLockedValueBox<Status?>(nil)
    /// The leader was reaped.
    private let exited = TestSignal()

    /// The writing end of the leader's standard input, when it is kept open (a program that ends at
    /// the end of its input); closed when the group is released.
    private let input: Int32?

    private init(pid: pid_t, output: ProcessOutput, input: Int32?) {
        self.pid = pid
        self.output = output
        self.input = input
        // A thread of its own blocks in waitpid (not one of the concurrency pool's few threads):
        // the leader's exit wakes whoever waits for it.
        let thread = Thread { [self] in
            var raw: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &raw, 0) } while result < 0 && errno == EINTR
            if result == pid {
                let ended: Status = raw & 0x7f == 0 ? .exited((raw >> 8) & 0xff) : .signalled(raw & 0x7f)
                status.withLockedValue { $0 = ended }
            }
            exited.signal()
        }
        thread.start()
    }

    enum Status: Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    deinit {
        if let input { close(input) }
    }

    /// Starts `path` with `arguments` and its output into ``output`` (and the file `log`); its
    /// standard input is /dev/null, or with `keepInputOpen` a pipe nothing is written to, open as
    /// long as this group.
    static func spawn(
        _ path: String, arguments: [String], environment: [String: String], log: String, keepInputOpen: Bool = false
    ) throws -> ProcessGroup {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var inputEnds: [Int32] = [-1, -1]
        if keepInputOpen {
            guard pipe(&inputEnds) == 0 else {
                throw IRCTestSupportError.commandFailed(path, status: errno, output: String(cString: strerror(errno)))
            }
            // Neither end is inherited by another child started meanwhile; this one gets the reading
            // end through dup2.
            for end in inputEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            posix_spawn_file_actions_adddup2(&actions, inputEnds[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        let output = try ProcessOutput(logPath: log)
        posix_spawn_file_actions_adddup2(&actions, output.writingEnd, 1)
        posix_spawn_file_actions_adddup2(&actions, output.writingEnd, 2)
        posix_spawn_file_actions_addclose(&actions, output.writingEnd)
        posix_spawn_file_actions_addclose(&actions, output.readingEnd)

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        try output.startReading()
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        // The reading ends when every process holding the writing end has ended: not the test's.
        output.processStarted()
        if keepInputOpen { close(inputEnds[0]) }
        guard result == 0 else {
            if keepInputOpen { close(inputEnds[1]) }
            throw IRCTestSupportError.commandFailed(path, status: result, output: String(cString: strerror(result)))
        }
        return ProcessGroup(pid: pid, output: output, input: keepInputOpen ? inputEnds[1] : nil)
    }

    /// Everything the group wrote, once every process holding its output has ended (or `timeout`
    /// passed).
    func completeOutput(timeout: Duration = .seconds(10)) async -> String {
        await output.lines.wait(timeout: timeout) { _ in false }
        return output.lines.lines.joined(separator: "\n")
    }

    /// Waits for `scripts/run-local`'s "Press Ctrl-C to stop." (it prints it once its IRC server
    /// accepts connections on `port`); throws with the script's output when the line never comes or
    /// the server does not accept.
    func waitUntilReady(port: Int) async throws {
        try await output.lines.waitForLine(containing: "Press Ctrl-C to stop.", "run-local's ready line")
        guard await FreePort.isAccepting(port) else {
            throw IRCTestSupportError.timeout(
                "ngircd on \(port); run-local output:\n\(output.lines.lines.joined(separator: "\n"))")
        }
    }

    /// Sends `signal` to every process of the group.
    func signalGroup(_ signal: Int32) {
        killpg(pid, signal)
    }

    /// Whether the leader is still running (without reaping it).
    var isRunning: Bool {
        !Self.processes { $0.pid == pid }.isEmpty
    }

    /// Waits for the leader to exit and reaps it.
    func waitForExit(timeout: Duration) async throws -> Status {
        guard await exited.wait(timeout: timeout) else {
            throw IRCTestSupportError.timeout("process \(pid) to exit")
        }
        guard let ended = status.withLockedValue({ $0 }) else {
            throw IRCTestSupportError.timeout("process \(pid) is not our child any more")
        }
        return ended
    }

    /// A running process, from /proc.
    struct Entry {
        var pid: Int32
        var group: Int32
        var commandLine: String
    }

    /// The live (non-zombie) processes matching `predicate`.
    static func processes(where predicate: (Entry) -> Bool) -> [Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name -> Entry? in
            guard let pid = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // After "pid (comm) ": state ppid pgrp …
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, fields[0] != "Z", let group = Int32(fields[2]) else { return nil }
            let raw = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(name)/cmdline"))) ?? Data()
            let commandLine = String(decoding: raw.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            let entry = Entry(pid: pid, group: group, commandLine: commandLine)
            return predicate(entry) ? entry : nil
        }
    }

}
