import ArgumentParser
import Foundation
import IRCProtocol
import NIOCore
import NIOPosix
import NIOSSL

/// `onthemap-load`: plays the test client against a bot on an IRC server and prints one table
/// of round trips, start-up time, burst recovery, CPU and memory (see BENCHMARKS.md).
@main
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "onthemap-load",
        abstract: "Measures an IRC bot the way a user sees it: round trips, start-up, burst recovery, memory.",
        discussion: """
            Either give the running bot's pid (--bot-pid) or the command that starts it after `--`:
              onthemap-load --port 6697 --ca-file cert.pem --runs 5 -- .build/release/onthemap-bot run --config bench.yaml
            With a command, each run starts the bot, times process start → its JOIN, measures, and stops it (SIGTERM).
            """)

    @Option(help: "IRC server host.") var host = "127.0.0.1"
    @Option(help: "IRC server port.") var port = 6697
    @Flag(help: "Plaintext instead of TLS.") var plaintext = false
    @Option(help: "CA certificate (PEM) that signs the server's certificate.") var caFile: String?
    @Flag(help: "Do not verify the server's certificate.") var insecure = false
    @Option(help: "The channel the bot joins.") var channel = "#bench"
    @Option(help: "The bot's nick.") var botNick = "MapBot"
    @Option(help: "Command prefix.") var prefix = "!"
    @Option(help: "Sequential !ping round trips per run.") var pings = 1000
    @Option(help: "Sequential !near <place> round trips per run (0: skip).") var nears = 200
    @Option(help: "The places for !near (comma-separated, used in turn).") var nearPlaces = "Paris,Seattle,Tokyo,Lagos"
    @Option(help: "Sequential !where <name> round trips per run (0: skip).") var wheres = 200
    @Option(help: "The names for !where (comma-separated, used in turn).") var whereNames = "Ada Lovelace,Grace Hopper"
    @Option(help: "Channel lines in the burst (0: skip).") var burst = 2000
    @Option(
        help:
            "Posts timed from commit to the bot's announcement in its channel (needs --post-command; 0: skip)."
    )
    var announcements = 0
    @Option(
        help:
            "A shell command that commits one pin to the bot's directory; run with the post's number as $1, it prints `posted <Unix time in ns when the write began> <name>` once committed."
    )
    var postCommand: String?
    @Flag(
        help:
            "The chatter connection sits in the bot's channel through the timed round trips too (the older layout), and the floor is timed there."
    )
    var chatterInChannel = false
    @Option(help: "Runs (each starts the bot afresh when a command is given).") var runs = 1
    @Flag(
        help:
            "The test connections acknowledge every read at once (TCP_QUICKACK), so a server's Nagle delay does not stall multi-line answers."
    )
    var quickAck = false
    @Option(help: "The running bot's pid (for CPU and memory), when no command is given.") var botPid: Int32?
    @Option(help: "Where the started bot's output goes (default: discarded).") var botLog: String?
    @Option(help: "Scenario label for the table and JSON.") var label = "bot"
    @Option(help: "Write the figures as JSON to this file.") var json: String?
    @Argument(parsing: .postTerminator, help: "The command that starts the bot.") var botCommand: [String] = []

    func validate() throws {
        if botCommand.isEmpty && runs > 1 { throw ValidationError("--runs > 1 needs the bot's command after --") }
        if announcements > 0 && postCommand == nil { throw ValidationError("--announcements needs --post-command") }
        if !plaintext && caFile == nil && !insecure {
            throw ValidationError("give --ca-file, --insecure or --plaintext")
        }
    }

    func run() async throws {
        let tls = try makeTLSContext()
        var results: [RunFigures] = []
        for number in 1...runs {
            let figures = try await runOnce(number: number, tls: tls)
            results.append(figures)
            FileHandle.standardError.write(Data("run \(number)/\(runs) done\n".utf8))
        }
        let report = Report(label: label, runs: results)
        print(report.table())
        if let json {
            try report.json().write(to: URL(fileURLWithPath: json))
        }
    }

    private func makeTLSContext() throws -> NIOSSLContext? {
        guard !plaintext else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        if insecure {
            configuration.certificateVerification = .none
        } else if let caFile {
            configuration.trustRoots = .file(caFile)
            configuration.certificateVerification = .noHostnameVerification
        }
        return try NIOSSLContext(configuration: configuration)
    }

    private func runOnce(number: Int, tls: NIOSSLContext?) async throws -> RunFigures {
        var figures = RunFigures()
        figures.loadAverage = Self.loadAverage()
        let group = MultiThreadedEventLoopGroup.singleton
        let tag = "\(getpid() % 10_000)r\(number)"
        async let probeConnection = ProbeConnection.connect(
            host: host, port: port, tls: tls, nick: "probe\(tag)", group: group)
        async let bursterConnection = ProbeConnection.connect(
            host: host, port: port, tls: tls, nick: "chat\(tag)", group: group)
        let probe = try await probeConnection
        let burster = try await bursterConnection
        figures.rawConnectToWelcome = Double(probe.connectToWelcome) / 1e9
        if quickAck {
            try await probe.acknowledgeAtOnce()
            try await burster.acknowledgeAtOnce()
        }
        let channel = self.channel
        let botNick = self.botNick
        // Each timed round trip has just its two ends in the channel: the probe and the bot in the
        // bot's channel, the probe and the trivial responder in the floor channel. A third member
        // would make the server relay every line twice and wake its client for each.
        try await Self.join(channel, probe)
        if floorChannel != channel { try await Self.join(floorChannel, probe) }
        try await Self.join(chatterInChannel ? channel : floorChannel, burster)

        var bot: LaunchedBot?
        let process: ProcessFigures?
        if !botCommand.isEmpty {
            let joined = try await probe.arm(timeout: .seconds(120)) {
                $0.command == "JOIN" && CaseMapping.rfc1459.equals($0.sourceNick ?? "", botNick)
                    && CaseMapping.rfc1459.equals($0.parameters.first ?? "", channel)
            }
            let launched = try LaunchedBot(command: botCommand, logPath: botLog)
            bot = launched
            let arrival = try await joined.value()
            figures.startToJoin = Double(arrival.firstAt &- launched.startedAt) / 1e9
            process = launched.figures
        } else {
            process = botPid.map(ProcessFigures.init(pid:))
        }
        do {
            try await measure(probe: probe, burster: burster, process: process, into: &figures)
        } catch {
            await bot?.stop()
            await probe.close()
            await burster.close()
            throw error
        }
        figures.peakRSSKiB = process?.statusKiB("VmHWM")
        figures.rssKiB = process?.statusKiB("VmRSS")
        figures.threads = process?.threadCount()
        figures.totalCPU = process?.cpuNanoseconds().map { Double($0) / 1e9 }
        await bot?.stop()
        await probe.close()
        await burster.close()
        return figures
    }

    /// Where the floor is timed: a channel of the probe and the responder only (the bot's own
    /// channel with `--chatter-in-channel`).
    private var floorChannel: String { chatterInChannel ? channel : channel + "-floor" }

    private static func join(_ channel: String, _ connection: ProbeConnection) async throws {
        let nick = connection.nick
        _ = try await connection.send(["JOIN \(channel)"], timeout: .seconds(10)) {
            $0.command == "JOIN" && CaseMapping.rfc1459.equals($0.sourceNick ?? "", nick)
                && CaseMapping.rfc1459.equals($0.parameters.first ?? "", channel)
        }
    }

    private func measure(
        probe: ProbeConnection, burster: ProbeConnection, process: ProcessFigures?, into figures: inout RunFigures
    ) async throws {
        let channel = self.channel
        let botNick = self.botNick
        let fromBot: @Sendable (IRCMessage) -> Bool = { $0.isMessage(from: botNick, to: channel) }
        let ping = "PRIVMSG \(channel) :\(prefix)ping"
        // The bot answers once it has joined; the first answers warm caches up.
        _ = try await probe.send([ping], timeout: .seconds(30), match: fromBot)
        figures.ping = try await Self.roundTrips(of: ping, count: pings, probe: probe, match: fromBot)

        // The floor: the same round trip answered by a trivial responder (the chatter connection,
        // answering on its event loop), right after the bot's, on the same server and machine.
        if pings > 0 {
            let trigger = "\(prefix)floor"
            let responder = burster.nick
            let floorChannel = self.floorChannel
            try await burster.answerAtOnce(to: trigger)
            figures.floor = try await Self.roundTrips(
                of: "PRIVMSG \(floorChannel) :\(trigger)", count: pings, probe: probe,
                match: { $0.isMessage(from: responder, to: floorChannel) })
        }

        figures.near = try await measureCommand(
            "near", arguments: nearPlaces, count: nears, probe: probe, match: fromBot)
        figures.whereFigures = try await measureCommand(
            "where", arguments: whereNames, count: wheres, probe: probe, match: fromBot)

        if burst > 0 {
            if !chatterInChannel { try await Self.join(channel, burster) }
            let bursterNick = burster.nick
            let marker = "burst-end-\(UInt32.random(in: 0...UInt32.max))"
            let lines = (0..<burst).map { index in
                index == burst - 1
                    ? "PRIVMSG \(channel) :\(marker)"
                    : "PRIVMSG \(channel) :chatter \(index): the quick brown fox jumps over the lazy dog near Lisbon"
            }
            let cpuBefore = process?.cpuNanoseconds()
            let relayed = try await probe.arm(timeout: .seconds(60)) {
                $0.command == "PRIVMSG" && CaseMapping.rfc1459.equals($0.sourceNick ?? "", bursterNick)
                    && $0.parameters.last == marker
            }
            let burstStarted = monotonicNanoseconds()
            try await burster.write(lines)
            let seen = try await relayed.value()
            let answer = try await probe.send([ping], timeout: .seconds(60), match: fromBot)
            let cpuAfter = process?.cpuNanoseconds()
            figures.burstRelay = Double(seen.firstAt &- burstStarted) / 1e9
            figures.burstAnswer = Double(answer.firstAt &- seen.firstAt) / 1e9
            if let cpuBefore, let cpuAfter { figures.burstCPU = Double(cpuAfter &- cpuBefore) / 1e9 }
        }
        if announcements > 0, let postCommand {
            figures.announcement = try await Self.announcementDelays(
                count: announcements, postCommand: postCommand, probe: probe, match: fromBot)
        }
    }

    /// Runs `postCommand` `count` times, one after the other, and times each post from the instant
    /// the command says its write began to the bot's announcement that names it (wall clock: the
    /// poster is another process).
    private static func announcementDelays(
        count: Int, postCommand: String, probe: ProbeConnection, match: @escaping @Sendable (IRCMessage) -> Bool
    ) async throws -> Distribution? {
        // Arrivals are stamped with the monotonic clock; the poster's instant is Unix time.
        let unixMinusMonotonic = Int64(Date().timeIntervalSince1970 * 1e9) - Int64(monotonicNanoseconds())
        var samples: [Double] = []
        for number in 1...count {
            let name = "Poster\(number)"
            let announced = try await probe.arm(timeout: .seconds(30)) { message in
                match(message) && (message.parameters.last ?? "").contains(name)
            }
            let output = try PostCommand.run(postCommand, number: number)
            let words = output.split(separator: " ")
            guard words.count >= 3, words[0] == "posted", let began = Int64(words[1]), words[2] == name else {
                throw ValidationError("--post-command printed \"\(output)\", not `posted <ns> \(name)`")
            }
            let arrival = try await announced.value()
            samples.append(Double(Int64(arrival.firstAt) + unixMinusMonotonic - began) / 1e9)
            let delay = String(format: "%.2f", samples[samples.count - 1] * 1e3)
            FileHandle.standardError.write(Data("  \(name) announced \(delay) ms after its write began\n".utf8))
        }
        return Distribution(samples)
    }

    /// Times `count` sequential round trips of `line` (to the first matching line), after 20 not timed.
    private static func roundTrips(
        of line: String, count: Int, probe: ProbeConnection, match: @escaping @Sendable (IRCMessage) -> Bool
    ) async throws -> Distribution? {
        for _ in 0..<20 { _ = try await probe.send([line], match: match) }
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            samples.append(Double(try await probe.send([line], match: match).roundTrip) / 1e9)
        }
        return Distribution(samples)
    }

    /// Times `count` sequential `!command argument` round trips (to the first answer line), the
    /// arguments used in turn. A warm-up of each argument learns how many lines its answer has.
    private func measureCommand(
        _ command: String, arguments list: String, count: Int, probe: ProbeConnection,
        match: @escaping @Sendable (IRCMessage) -> Bool
    ) async throws -> Distribution? {
        let arguments = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard count > 0, !arguments.isEmpty else { return nil }
        var lineCounts: [Int] = []
        for argument in arguments {
            let answer = try await probe.send(
                ["PRIVMSG \(channel) :\(prefix)\(command) \(argument)"], expecting: 100,
                timeout: .milliseconds(500), match: match)
            lineCounts.append(answer.lines.count)
            let first = answer.lines.first?.parameters.last ?? ""
            FileHandle.standardError.write(
                Data("  \(prefix)\(command) \(argument) → \(answer.lines.count) line(s): \(first)\n".utf8))
        }
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for index in 0..<count {
            let which = index % arguments.count
            let answer = try await probe.send(
                ["PRIVMSG \(channel) :\(prefix)\(command) \(arguments[which])"], expecting: lineCounts[which],
                match: match)
            samples.append(Double(answer.roundTrip) / 1e9)
        }
        return Distribution(samples)
    }

    static func loadAverage() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "?" }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}
