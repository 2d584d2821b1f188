import BotTesting
import ClassKit
import Foundation
import IRCProtocol
import NIOCore
import NIOPosix
import NIOSSL
import OnTheMapApp
import OnTheMapService
import SQLiteDirectory
import NIOConcurrencyHelpers
import Testing

/// Load: the real `onthemap-bot run` binary against a real InspIRCd 3 over TLS, with 200
/// simulated students in one channel, channel chatter, students who log in, post, ask `!near` and
/// `!where`, and one spammer.
///
/// The server's `<connect>` classes (InspIRCd puts a client in the first class whose mask matches):
/// - the bot connects from 127.0.0.1 and gets Debian's STOCK flood limits
///   (``InspircdServer/ConnectClass/stock(name:allow:)``: 10 commands of burst then 1 a second,
///   "RecvQ exceeded" past 8 KiB of held lines, 3 connections per IP);
/// - the students connect from their own loopback addresses (127.0.0.3…127.0.0.202; the watcher from .2,
///   the spammer from .250 — Linux routes all of 127/8 to `lo`) and get a relaxed class: the stock
///   per-IP limit would refuse 200 clients from one address, and the spammer must really reach the bot
///   as fast as it can type.
///
/// The bot runs with its default outgoing throttle (10 lines of burst, then 1 a second), the server's own
/// limit, so the bot cannot send more than that whatever it does: the schedule is sized from that. By
/// default `activeStudents` (16) of the 200 do the whole login → post → !near →
/// !where sequence (≈ 6 reply lines each) while all 200 chatter; `ONTHEMAP_LOAD_ACTIVE=200` runs every
/// student through it (≈ 1300 reply lines: over 20 minutes at the stock rate, not for CI).
@Suite(.tags(.classLoad), .serialized) struct ClassLoadTests {
    static let botNick = "LoadBot"
    static let channel = "#class"
    static let spamStart: Duration = .seconds(15)

    struct Plan {
        var students = 200
        var activeStudents = 16
        var chatterPerStudent = 2
        /// Active students start their sequence spread over this span; chatter is spread over it too.
        var spread: Duration = .seconds(80)
        var spamCommands = 40

        static func fromEnvironment() -> Plan {
            var plan = Plan()
            if let text = ProcessInfo.processInfo.environment["ONTHEMAP_LOAD_ACTIVE"], let active = Int(text) {
                plan.activeStudents = min(max(1, active), plan.students)
                plan.spread = .seconds(max(80, active * 5))
            }
            return plan
        }
    }

    static func name(of index: Int) -> (nick: String, first: String, email: String, password: String) {
        let number = String(index).leftPadded(to: 3)
        return ("s\(number)", "Stu\(number)", "stu\(number)@load.test", "load-pass-\(number)-secret")
    }

    @Test(.timeLimit(.minutes(30))) func twoHundredStudentsAndASpammerOnStockInspircdLimits() async throws {
        let executable = try #require(Self.builtExecutable(), "onthemap-bot was not built next to the tests")
        let plan = Plan.fromEnvironment()
        let started = ContinuousClock.now
        let folder = try TemporaryDirectory(prefix: "load200")
        let database = folder.file("class.sqlite")
        try await Self.prepareDirectory(database, activeStudents: plan.activeStudents)
        print("load: accounts and demo pins ready after \(Self.seconds(started.duration(to: .now))) s")

        let classes: [InspircdServer.ConnectClass] = [
            .stock(name: "bot", allow: "127.0.0.1"),
            .relaxed(name: "students", allow: "127.0.0.0/8"),
        ]
        try await InspircdServer.withRunning(connectClasses: classes) { server in
            try await Self.run(
                plan: plan, executable: executable, server: server, folder: folder, database: database,
                started: started)
        }
    }

    /// The accounts of the active students (hashed at the production cost, two at a time) and the demo
    /// class (31 pins), so `!near` always has 3 neighbours.
    static func prepareDirectory(_ path: String, activeStudents: Int) async throws {
        let directory = try SQLiteStudentDirectory(path: path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<2 {
                group.addTask {
                    for index in stride(from: lane, to: activeStudents, by: 2) {
                        let student = name(of: index)
                        _ = try await directory.addAccount(
                            email: student.email, password: student.password, firstName: student.first,
                            lastName: "Load")
                    }
                }
            }
            try await group.waitForAll()
        }
        _ = try await DemoClass.seed(
            into: directory, geocoder: try GazetteerGeocoder.loadBundled(),
            gate: PrivacyGate(places: nil, policy: PrivacyPolicy(), choices: PrivacyChoices(store: nil)),
            precision: .exact)
        try directory.close()
    }

    static func run(
        plan: Plan, executable: String, server: InspircdServer, folder: TemporaryDirectory, database: String,
        started: ContinuousClock.Instant
    ) async throws {
        let tls = try LoadStudent.tlsContext(caFile: server.certificate.certificatePath)
        let watcher = try await LoadStudent.connect(
            nick: "watcher", address: "127.0.0.2", port: server.tlsPort, tls: tls)
        try await watcher.joinAndWait(channel)

        let configPath = folder.file("bot.yaml")
        let yaml = """
            irc:
              server: 127.0.0.1
              port: \(server.tlsPort)
              tls_ca_file: \(server.certificate.certificatePath)
              nick: \(botNick)
              channels: ["\(channel)"]
              announce_to: ["\(channel)"]
              quit_message: Load test over
            service:
              database: \(database)
            privacy:
              open_channel: full   # the channel has no key: the full !near and !where answers are measured
            """
        try yaml.write(toFile: configPath, atomically: true, encoding: .utf8)
        // No `flood:` key: the defaults are under test.
        let flood = try ConfigLoader.parse(yaml: yaml).irc.flood
        #expect(flood.burst == 10 && flood.linesPerSecond == 1)

        let bot = Process()
        bot.executableURL = URL(fileURLWithPath: executable)
        bot.arguments = ["run", "--config", configPath, "--log-level", "info", "--log-format", "json"]
        let logPath = folder.file("bot.log")
        #expect(FileManager.default.createFile(atPath: logPath, contents: nil))
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        bot.standardOutput = log
        bot.standardError = log
        try bot.run()
        defer { if bot.isRunning { kill(bot.processIdentifier, SIGKILL) } }
        let memory = MemorySampler(pid: bot.processIdentifier)
        let sampling = Task { await memory.sample(every: .milliseconds(250)) }
        defer { sampling.cancel() }

        _ = try await watcher.waitForBotLine(since: started, timeout: .seconds(30), "the bot's JOIN") {
            $0.command == "JOIN"
        }

        // 200 students (and the spammer) connect from their own addresses, 20 at a time, and join.
        var connected: [LoadStudent] = []
        for batch in stride(from: 0, to: plan.students, by: 20) {
            try await withThrowingTaskGroup(of: LoadStudent.self) { group in
                for index in batch..<min(batch + 20, plan.students) {
                    group.addTask {
                        let student = try await LoadStudent.connect(
                            nick: name(of: index).nick, address: "127.0.0.\(index + 3)", port: server.tlsPort,
                            tls: tls)
                        try await student.joinAndWait(channel)
                        return student
                    }
                }
                for try await student in group { connected.append(student) }
            }
        }
        let students = connected.sorted { $0.nick < $1.nick }
        let spammer = try await LoadStudent.connect(
            nick: "spammer", address: "127.0.0.250", port: server.tlsPort, tls: tls)
        try await spammer.joinAndWait(channel)
        let connectedAt = ContinuousClock.now
        let rssWhenJoined = await memory.currentKilobytes()
        print("load: \(students.count) students joined after \(seconds(started.duration(to: connectedAt))) s")

        // The load: chatter from everyone, the active students' sequences, and the spammer.
        let spread = plan.spread
        var generator = SplitMix(state: 2026)
        let chatter = students.flatMap { student in
            (0..<plan.chatterPerStudent).map { number in
                (student, number, Duration.milliseconds(Int64(generator.next() % UInt64(seconds(spread) * 1000))))
            }
        }
        let results = try await withThrowingTaskGroup(of: [CommandResult].self) { group in
            group.addTask {
                for (student, number, at) in chatter.sorted(by: { $0.2 < $1.2 }) {
                    try await pause(until: connectedAt + at)
                    try await student.send("PRIVMSG \(channel) :hello everyone, \(student.nick) here (\(number))")
                }
                return []
            }
            for index in 0..<plan.activeStudents {
                let student = students[index]
                let startAt = connectedAt + spread * Double(index) / Double(plan.activeStudents)
                group.addTask {
                    try await pause(until: startAt)
                    return try await activeSequence(student, index: index)
                }
            }
            group.addTask {
                try await pause(until: connectedAt + spamStart)
                let commands = ["!near Seattle, WA", "!list", "!where a", "!help"]
                for number in 0..<plan.spamCommands {
                    try await spammer.send("PRIVMSG \(botNick) :\(commands[number % commands.count])")
                }
                return []
            }
            var all: [CommandResult] = []
            for try await results in group { all += results }
            return all
        }
        // Let the spammer's backlog drain: done when the bot has been silent for 6 s.
        try await waitForSilence(of: [watcher, spammer] + students, quiet: .seconds(6), timeout: .seconds(600))
        let loadEnded = ContinuousClock.now

        // The bot never left: one JOIN, no QUIT, no reconnect, no flood disconnect anywhere.
        #expect(bot.isRunning)
        let watcherLines = watcher.botLines()
        #expect(watcherLines.filter { $0.message.command == "JOIN" }.count == 1)
        #expect(!watcherLines.contains { $0.message.command == "QUIT" })
        let botLog = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        for marker in ["Reconnecting", "ended:", "server error", "Excess Flood", "RecvQ exceeded"] {
            #expect(!botLog.contains(marker), "bot log: \(marker)")
        }
        let serverLog =
            server.log()
            + ((try? String(
                contentsOfFile: server.directory.file("inspircd-file.log"),
                encoding: .utf8)) ?? "")
        for marker in ["Excess Flood", "RecvQ exceeded", "SendQ exceeded"] {
            #expect(!serverLog.contains(marker), "server log: \(marker)")
        }
        #expect(!serverLog.contains("\(botNick)!") || !serverLog.contains("QUIT: Client exiting: \(botNick)"))

        // Every command of every active student was answered (each wait above would have thrown).
        #expect(results.count == plan.activeStudents * 4)

        // Fairness: a student who asked while the spammer still had 5 or more lines to come got the
        // first line of the answer before the spammer's last line (round-robin serves every asker once a
        // turn; first-come-first-served would put it behind the spammer's whole backlog).
        let spamLines = spammer.botLines().filter { $0.message.parameters.first == "spammer" }.map(\.at)
        let spamLast = try #require(spamLines.max())
        let contested = results.filter { result in spamLines.filter { $0 > result.sentAt }.count >= 5 }
        #expect(contested.count >= 3, "the schedule must put student commands inside the spammer's backlog")
        for result in contested {
            #expect(result.answeredAt < spamLast, "\(result.student) \(result.command) waited behind the spammer")
        }

        // Figures for the report.
        let latencies = results.map { seconds($0.sentAt.duration(to: $0.answeredAt)) }.sorted()
        let contestedLatencies = contested.map { seconds($0.sentAt.duration(to: $0.answeredAt)) }.sorted()
        let spamFirstSent = connectedAt + spamStart
        let privateLines = students.reduce(0) { count, student in
            count + student.botLines().filter { $0.message.parameters.first == student.nick }.count
        }
        let channelLines = watcherLines.filter { $0.message.command == "PRIVMSG" }
        let botLines = privateLines + channelLines.count + spamLines.count
        let botSpan = connectedAt.duration(to: loadEnded)
        // How the first minute after the flood was shared between the spammer and everyone else.
        let window = spamFirstSent..<(spamFirstSent + .seconds(60))
        let spamInWindow = spamLines.filter { window.contains($0) }.count
        let othersInWindow =
            channelLines.filter { window.contains($0.at) }.count
            + students.reduce(0) { count, student in
                let lines = student.botLines().filter { window.contains($0.at) }
                return count + lines.filter { $0.message.parameters.first == student.nick }.count
            }
        print(
            """
            load: \(plan.students) students (\(plan.activeStudents) active), \(chatter.count) chatter lines, \
            \(plan.spamCommands) spam commands
            load: bot lines received: \(botLines) (\(channelLines.count) in the channel, \(privateLines) private \
            to students, \(spamLines.count) to the spammer) in \(seconds(botSpan)) s = \
            \(String(format: "%.2f", Double(botLines) / seconds(botSpan))) lines/s
            load: first-line latency of \(latencies.count) student commands: median \
            \(percentile(latencies, 0.5)) s, \
            p99 \(percentile(latencies, 0.99)) s, max \(latencies.last ?? 0) s
            load: \(contested.count) commands asked during the spammer's backlog: median \
            \(percentile(contestedLatencies, 0.5)) s, max \(contestedLatencies.last ?? 0) s; spammer's last line \
            \(seconds(spamFirstSent.duration(to: spamLast))) s after its flood
            load: in the minute after the flood the bot sent \(spamInWindow) lines to the spammer and \
            \(othersInWindow) to the students and the channel
            load: bot peak RSS (VmHWM) \(await memory.peakKilobytes / 1024) MiB; RSS with 200 students joined \
            \(rssWhenJoined / 1024) MiB, after the load \(await memory.currentKilobytes() / 1024) MiB
            load: total \(seconds(started.duration(to: .now))) s
            """)
        // A generous bound: the bot holds 200 users, a few hundred queued lines and the directory.
        #expect(await memory.peakKilobytes < 512 * 1024)
        #expect(await memory.peakKilobytes > 0)

        bot.terminate()
        let quit = try await watcher.waitForBotLine(since: loadEnded, timeout: .seconds(15), "the bot's QUIT") {
            $0.command == "QUIT"
        }
        #expect(quit.message.parameters.last?.contains("Load test over") == true)
        await bot.waitForExit(timeout: .seconds(30))
        #expect(!bot.isRunning && bot.terminationStatus == 0)
        for student in students + [watcher, spammer] { await student.close() }
    }

    struct CommandResult: Sendable {
        var student: String
        var command: String
        var sentAt: ContinuousClock.Instant
        var answeredAt: ContinuousClock.Instant
    }

    /// Log in privately, post in one shot, `!near` and `!where` in the channel; each waits for its answer.
    static func activeSequence(_ student: LoadStudent, index: Int) async throws -> [CommandResult] {
        let who = name(of: index)
        let place = index % 2 == 0 ? "Seattle, WA" : "Portland, OR"
        // What the pin shows at the class's default precision: the town's own name.
        let shown = index % 2 == 0 ? "Seattle, Washington, United States" : "Portland, Oregon, United States"
        let nick = student.nick
        let steps: [(command: String, target: String, expect: @Sendable (IRCMessage) -> Bool)] = [
            (
                "!login \(who.email) \(who.password)", botNick,
                {
                    $0.parameters.first == nick && $0.parameters.last?.hasPrefix("Welcome, \(who.first) Load") == true
                }
            ),
            (
                "!post \(place) | https://\(nick).example", botNick,
                {
                    $0.parameters.first == nick
                        && $0.parameters.last?.hasPrefix("You are on the map: \(who.first) Load — \(shown)") == true
                }
            ),
            (
                "!near", channel,
                {
                    $0.parameters.first == channel
                        && (answer(to: nick, in: $0.parameters.last ?? "")).map {
                            $0.contains(" km — ") || $0.contains(" — same city — ")
                        } == true
                }
            ),
            (
                "!where \(who.first) Load", channel,
                {
                    $0.parameters.first == channel
                        && answer(to: nick, in: $0.parameters.last ?? "")?.hasPrefix(
                            "\(who.first) Load — \(shown) — https://\(nick).example") == true
                }
            ),
        ]
        var results: [CommandResult] = []
        for step in steps {
            let sentAt = ContinuousClock.now
            try await student.send("PRIVMSG \(step.target) :\(step.command)")
            let answer = try await student.waitForBotLine(
                since: sentAt, timeout: .seconds(300), "\(nick) \(step.command)", step.expect)
            let shown = step.command.hasPrefix("!login") ? "!login" : String(step.command.prefix(5))
            results.append(.init(student: nick, command: shown, sentAt: sentAt, answeredAt: answer.at))
        }
        return results
    }

    /// What a channel line answers `nick`, from there to the end of the line: the bot addresses each
    /// answer to whoever asked ("s005: …", or "s003, s005: …" for the same answer), and answers to
    /// several people may share a line ("s003: … · s005: …").
    static func answer(to nick: String, in text: String) -> Substring? {
        var rest = Substring(text)
        while !rest.isEmpty {
            if let colon = rest.range(of: ": ") {
                let names = rest[..<colon.lowerBound].split(separator: ", ")
                if names.contains(Substring(nick)) { return rest[colon.upperBound...] }
            }
            guard let next = rest.range(of: " · ") else { return nil }
            rest = rest[next.upperBound...]
        }
        return nil
    }

    static func waitForSilence(of students: [LoadStudent], quiet: Duration, timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let last = students.compactMap { $0.botLines().last?.at }.max() ?? .now
            if last.duration(to: .now) >= quiet { return }
            try await Task.sleep(for: .milliseconds(250))
        }
        Issue.record("the bot kept talking for \(timeout)")
    }

    static func pause(until instant: ContinuousClock.Instant) async throws {
        let wait = ContinuousClock.now.duration(to: instant)
        if wait > .zero { try await Task.sleep(for: wait) }
    }

    static func seconds(_ duration: Duration) -> Double {
        let components = duration.components
        return ((Double(components.seconds) + Double(components.attoseconds) / 1e18) * 100).rounded() / 100
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }

    static func builtExecutable() -> String? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("onthemap-bot").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }

    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

/// Reads the bot's resident memory from /proc while the test runs.
actor MemorySampler {
    let pid: Int32
    private(set) var peakKilobytes = 0

    init(pid: Int32) {
        self.pid = pid
    }

    func sample(every interval: Duration) async {
        while !Task.isCancelled {
            _ = currentKilobytes()
            try? await Task.sleep(for: interval)
        }
    }

    /// VmRSS now (0 when the process is gone); also updates the peak from VmHWM.
    func currentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        let rss = Self.kilobytes("VmRSS:", in: status)
        peakKilobytes = max(peakKilobytes, Self.kilobytes("VmHWM:", in: status), rss)
        return rss
    }

    static func kilobytes(_ key: String, in status: String) -> Int {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
}

/// A light simulated student: one TLS connection from its own loopback address, PINGs answered in the
/// pipeline, and only the lines that matter kept (from the bot, with their arrival time).
final class LoadStudent: Sendable {
    struct Line: Sendable {
        var at: ContinuousClock.Instant
        var message: IRCMessage
    }

    struct State {
        var botLines: [Line] = []
        var registered = false
        var joined: Set<String> = []
        var errors: [String] = []
        var closed = false
    }

    let nick: String
    let channel: any Channel
    let inbox: Inbox

    private init(nick: String, channel: any Channel, inbox: Inbox) {
        self.nick = nick
        self.channel = channel
        self.inbox = inbox
    }

    static func tlsContext(caFile: String) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
        return try NIOSSLContext(configuration: configuration)
    }

    static func connect(nick: String, address: String, port: Int, tls: NIOSSLContext) async throws -> LoadStudent {
        let inbox = Inbox(botNick: ClassLoadTests.botNick)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(to: try SocketAddress(ipAddress: address, port: 0))
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: nil))
                    try pipeline.addHandler(LoadLineHandler(inbox: inbox))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        let student = LoadStudent(nick: nick, channel: channel, inbox: inbox)
        try await student.send("NICK \(nick)\r\nUSER \(nick) 0 * :Load student \(nick)")
        try await student.waitUntil(timeout: .seconds(30), "\(nick) registered") { $0.registered }
        return student
    }

    func send(_ line: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: line + "\r\n"))
    }

    func joinAndWait(_ name: String) async throws {
        try await send("JOIN \(name)")
        try await waitUntil(timeout: .seconds(30), "\(nick) in \(name)") { $0.joined.contains(name.lowercased()) }
    }

    func botLines() -> [Line] { inbox.state.withLockedValue { $0.botLines } }

    func waitUntil(timeout: Duration, _ what: String, _ condition: @escaping @Sendable (State) -> Bool) async throws {
        // Looked at again as each line arrives (and once more if the connection closes).
        let state = inbox.state
        await inbox.arrivals.wait(timeout: timeout) { _ in state.withLockedValue { condition($0) } }
        let (done, errors, closed) = inbox.state.withLockedValue { (condition($0), $0.errors, $0.closed) }
        if !done { throw LoadTestError.timedOut("\(what) (errors: \(errors), closed: \(closed))") }
    }

    /// The first line from the bot that arrived at or after `since` and matches `predicate`.
    func waitForBotLine(
        since: ContinuousClock.Instant, timeout: Duration, _ what: String,
        _ predicate: @escaping @Sendable (IRCMessage) -> Bool
    ) async throws -> Line {
        let state = inbox.state
        let find = { @Sendable () -> Line? in
            state.withLockedValue { state in state.botLines.first { $0.at >= since && predicate($0.message) } }
        }
        // Looked at again as each line arrives (and once more if the connection closes).
        await inbox.arrivals.wait(timeout: timeout) { _ in find() != nil }
        guard let found = find() else { throw LoadTestError.timedOut(what) }
        return found
    }

    func close() async {
        try? await send("QUIT :bye")
        try? await channel.close()
    }
}

enum LoadTestError: Error {
    case timedOut(String)
}

/// Where a student's pipeline puts what it receives.
final class Inbox: Sendable {
    let botNick: String
    let state = NIOLockedValueBox(LoadStudent.State())
    /// One entry per line received (after ``state`` took it), finished when the connection
    /// closes: what waits wake on.
    let arrivals = WaitableLines()

    init(botNick: String) {
        self.botNick = botNick
    }

    func receive(_ line: String, at now: ContinuousClock.Instant) {
        guard let message = try? IRCMessage(parsing: line) else { return }
        state.withLockedValue { state in
            switch message.command {
            case "001": state.registered = true
            case "366":
                if message.parameters.count >= 2 { state.joined.insert(message.parameters[1].lowercased()) }
            case "ERROR": state.errors.append(line)
            default:
                if message.sourceNick == botNick { state.botLines.append(.init(at: now, message: message)) }
            }
        }
        arrivals.append(line)
    }

    func closed() {
        state.withLockedValue { $0.closed = true }
        arrivals.finish()
    }
}

/// Splits the decrypted stream into lines, answers PING at once, hands the rest to the inbox.
final class LoadLineHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let inbox: Inbox
    private var pending: [UInt8] = []

    init(inbox: Inbox) {
        self.inbox = inbox
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending += buffer.readBytes(length: buffer.readableBytes) ?? []
        let now = ContinuousClock.now
        while let newline = pending.firstIndex(of: 0x0A) {
            var lineBytes = pending[..<newline]
            if lineBytes.last == 0x0D { lineBytes = lineBytes.dropLast() }
            let line = String(decoding: lineBytes, as: UTF8.self)
            pending.removeSubrange(...newline)
            if line.hasPrefix("PING") {
                let pong = "PONG" + line.dropFirst(4) + "\r\n"
                let buffer = context.channel.allocator.buffer(string: pong)
                context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
            } else {
                inbox.receive(line, at: now)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        inbox.closed()
        context.fireChannelInactive()
    }
}
