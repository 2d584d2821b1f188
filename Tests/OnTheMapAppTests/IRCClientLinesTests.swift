import BotTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The irssi lines `scripts/run-local` prints work as printed: the real irssi (Debian's, 1.4), in a
/// tmux terminal, types them, checks the local server's certificate, joins #class and sees the
/// bot answer.
@Suite(.tags(.startsProcesses), .serialized, .timeLimit(.minutes(3))) struct IRCClientLinesTests {
    @Test func irssiConnectsWithThePrintedLinesAndTheBotAnswers() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        let irssi = try #require(
            ["/usr/bin/irssi", "/bin/irssi"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "irssi is not installed (Debian package irssi; scripts/install-deps.sh installs it)")
        let tmux = try #require(
            ["/usr/bin/tmux", "/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "tmux is not installed")
        let folder = try TemporaryDirectory(prefix: "irssi-lines")
        let state = folder.file("state")
        let log = folder.file("run-local.log")
        let port = try await FreePort.pick()
        var environment = ProcessInfo.processInfo.environment
        environment["ONTHEMAP_LOCAL_PORT"] = "\(port)"
        environment["ONTHEMAP_LOCAL_WEB_PORT"] = "\(try await FreePort.pick())"
        environment["ONTHEMAP_LOCAL_STATE"] = state
        environment["ONTHEMAP_LOCAL_BIN"] = executable
        let script = try ProcessGroup.spawn(
            "\(QuickStartTests.packageRoot)/scripts/run-local", arguments: [], environment: environment, log: log)
        let logText = { script.output.lines.lines.joined(separator: "\n") }
        let session = "irssi-\(getpid())-\(port)"
        let terminal = Terminal(tmux: tmux, socket: session, home: folder.file("home"))
        defer { script.signalGroup(SIGINT) }
        try await script.waitUntilReady(port: port)
        // The lines as printed: the shell command, then what to type in irssi.
        let lines = logText().split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let start = try #require(lines.first { $0.hasPrefix("irssi: start it with") }, "\(logText())")
        let command = start.components(separatedBy: "   ").dropFirst().first ?? start
        #expect(command == "irssi -n student")
        let connect = try #require(lines.first { $0.hasPrefix("/connect ") }, "\(logText())")
        let join = try #require(lines.first { $0.hasPrefix("/join ") }, "\(logText())")

        try FileManager.default.createDirectory(atPath: folder.file("home"), withIntermediateDirectories: true)
        do {
            try await Self.talk(through: terminal, irssi: irssi, command: command, connect: connect, join: join)
        } catch {
            await terminal.kill()
            throw error
        }
        await terminal.kill()
        script.signalGroup(SIGINT)
        #expect(try await script.waitForExit(timeout: .seconds(25)) == .exited(0), "\(logText())")
    }

    /// Starts irssi as printed, types the printed lines and `!ping`, and checks the answer.
    static func talk(through terminal: Terminal, irssi: String, command: String, connect: String, join: String)
        async throws
    {
        try await terminal.start(command.replacingOccurrences(of: "irssi ", with: "\(irssi) "))
        // Its banner is drawn once its screen (and the terminal's raw mode) is set up.
        _ = try await terminal.waitFor("irssi's banner", timeout: .seconds(30)) { $0.contains("Irssi") }
        try await terminal.type(connect)
        _ = try await terminal.waitFor("the welcome", timeout: .seconds(30)) { $0.contains("Welcome") }
        try await terminal.type(join)
        // The bot is in #class already or joins soon after.
        _ = try await terminal.waitFor("MapBot in #class", timeout: .seconds(30)) { $0.contains("MapBot") }
        try await terminal.type("!ping")
        let screen = try await terminal.waitFor("the bot's pong", timeout: .seconds(20)) { $0.contains("pong") }
        #expect(!screen.contains("Subject Alt Names"), "\(screen)")
        #expect(!screen.contains("Certificate is invalid"), "\(screen)")
        try await terminal.type("/quit")
    }

    /// A tmux server of its own with one window, and a control-mode client of it (`tmux -C`) that
    /// reports every output of the window's program: a wait for the screen looks again each time
    /// the program writes, and its timeout only guards against what never shows.
    final class Terminal: Sendable {
        let tmux: String
        let socket: String
        let home: String
        private let control = NIOLockedValueBox<ProcessGroup?>(nil)

        init(tmux: String, socket: String, home: String) {
            self.tmux = tmux
            self.socket = socket
            self.home = home
        }

        var environment: [String: String] {
            var environment = ProcessInfo.processInfo.environment
            environment["HOME"] = home
            environment["TERM"] = "xterm-256color"
            return environment
        }

        /// Runs tmux with `arguments` on this terminal's server; returns what it printed.
        func run(_ arguments: [String]) async throws -> String {
            let output = "\(home)/tmux-\(UUID().uuidString).out"
            let process = try ProcessGroup.spawn(
                tmux, arguments: ["-L", socket] + arguments, environment: environment, log: output)
            _ = try await process.waitForExit(timeout: .seconds(20))
            defer { try? FileManager.default.removeItem(atPath: output) }
            return await process.completeOutput()
        }

        /// Starts the tmux server with `command` in its window, and the control-mode client.
        func start(_ command: String) async throws {
            _ = try await run(["new-session", "-d", "-s", "main", "-x", "200", "-y", "50", command])
            let client = try ProcessGroup.spawn(
                tmux, arguments: ["-L", socket, "-C", "attach-session", "-t", "main"], environment: environment,
                log: "\(home)/tmux-control.log", keepInputOpen: true)
            control.withLockedValue { $0 = client }
        }

        /// Types `line` and Enter, as a person would.
        func type(_ line: String) async throws {
            _ = try await run(["send-keys", "-t", "main", "-l", line])
            _ = try await run(["send-keys", "-t", "main", "Enter"])
        }

        /// The screen once `condition` holds for it: looked at now and after each output of the
        /// window's program.
        func waitFor(_ what: String, timeout: Duration, _ condition: (String) -> Bool) async throws -> String {
            let deadline = ContinuousClock.now + timeout
            let reports = try #require(control.withLockedValue { $0 }, "the terminal was not started").output.lines
            var screen = ""
            while true {
                let seen = reports.lines.count
                screen = try await run(["capture-pane", "-p", "-t", "main", "-S", "-200"])
                if condition(screen) { return screen }
                let left = deadline - ContinuousClock.now
                guard left > .zero, !reports.isFinished else { break }
                await reports.wait(timeout: left) { $0.count > seen }
            }
            Issue.record("irssi never showed \(what):\n\(screen)")
            throw IRCTestSupportError.timeout(what)
        }

        func kill() async {
            _ = try? await run(["kill-server"])
        }
    }
}
