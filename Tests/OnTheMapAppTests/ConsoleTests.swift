import BotKit
import BotTesting
import Foundation
import IRCProtocol
import OnTheMapApp
import Testing

/// `onthemap-bot console` driven as a person or a script drives it: the built executable with
/// lines on standard input, a temp config on a temp SQLite file seeded with the demo class.
/// Serialized: each test starts processes, and the machine is shared with timing-sensitive tests.
@Suite(.tags(.startsProcesses), .serialized) struct ConsoleTests {
    struct Transcript {
        var status: Int32
        var output: String
        var errors: String
        var lines: [String] { output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    }

    /// Writes a config (with `ircSection` on top) for a temp SQLite file holding the demo class.
    static func seededConfig(in folder: TemporaryDirectory, ircSection: String) async throws -> String {
        let database = folder.file("class.sqlite")
        try FileManager.default.copyItem(atPath: try await SeededClass.shared.database(), toPath: database)
        let config = folder.file("console.yaml")
        try (ircSection + "service:\n  backend: local\n  database: \(database)\n")
            .write(toFile: config, atomically: true, encoding: .utf8)
        return config
    }

    /// One database seeded with `onthemap-bot seed-demo` for the whole suite; each test works on a
    /// copy (seeding loads the gazetteer, which is the expensive part).
    actor SeededClass {
        static let shared = SeededClass()
        private let folder: TemporaryDirectory?
        private var seeded: String?

        init() {
            folder = try? TemporaryDirectory(prefix: "console-seed")
        }

        func database() async throws -> String {
            if let seeded { return seeded }
            let folder = try #require(folder)
            let config = folder.file("seed.yaml")
            let database = folder.file("class.sqlite")
            try "service:\n  backend: local\n  database: \(database)\n".write(
                toFile: config, atomically: true, encoding: .utf8)
            let seed = try await ConsoleTests.run(["seed-demo", "--config", config], input: [], in: folder)
            try #require(seed.status == 0, "\(seed.output)\(seed.errors)")
            #expect(seed.output.contains("31 pins added, 3 accounts added"), "\(seed.output)")
            seeded = database
            return database
        }
    }

    static let classIRC = """
        irc:
          server: irc.example.org
          nick: MapBot
          channels: ["#class"]
          announce_to: ["#class"]

        """

    /// Runs the console with `input` on standard input (then end of input) and waits for it to end.
    static func console(
        config: String, arguments: [String] = [], input: [String], in folder: TemporaryDirectory
    ) async throws -> Transcript {
        try await run(["console", "--config", config] + arguments, input: input, in: folder)
    }

    /// Runs the built executable with `input` lines on standard input and waits for it without
    /// blocking a thread (other tests run meanwhile).
    static func run(_ arguments: [String], input: [String], in folder: TemporaryDirectory) async throws -> Transcript {
        let executable = try #require(BotLiveTests.builtExecutable())
        let name = UUID().uuidString.prefix(8)
        let outputPath = folder.file("\(name).out")
        let errorPath = folder.file("\(name).err")
        #expect(FileManager.default.createFile(atPath: outputPath, contents: nil))
        #expect(FileManager.default.createFile(atPath: errorPath, contents: nil))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.map { $0 + "\n" }.joined().utf8))
        try stdin.fileHandleForWriting.close()
        if !(await process.waitForExit(timeout: .seconds(60))) {
            process.terminate()
            Issue.record("onthemap-bot \(arguments.first ?? "") did not end within 60 s of the end of its input")
        }
        process.waitUntilExit()
        return Transcript(
            status: process.terminationStatus,
            output: try String(contentsOfFile: outputPath, encoding: .utf8),
            errors: try String(contentsOfFile: errorPath, encoding: .utf8))
    }

    @Test func answersPingHelpAndNearInTheFirstChannelAndExplainsUnknownConsoleCommands() async throws {
        let folder = try TemporaryDirectory(prefix: "console-basics")
        let config = try await Self.seededConfig(in: folder, ircSection: Self.classIRC)
        let run = try await Self.console(
            config: config,
            // The class is for the class: "you" logs in privately before asking !near in the channel.
            input: [
                "!ping", "!help", "/dm", "!login alice@demo.local alice-demo-pass", "/channel", "!near Paris",
                "/frobnicate now", "hello everyone",
            ], in: folder)
        #expect(run.status == 0, "stderr: \(run.errors)")

        // Not a terminal: no greeting and no prompt, the first line is the first reply.
        #expect(run.lines.first == "[#class] <MapBot> you: pong", "\(run.output)")
        #expect(!run.output.contains("you>"))
        #expect(run.lines.contains { $0.hasPrefix("[#class] <MapBot> you: Commands: ") && $0.contains("!near") })

        #expect(run.lines.contains { $0.hasPrefix("[#class] <MapBot> you: Nearest to Paris, Île-de-France, France") })
        let nearLines = run.lines.filter { $0.hasPrefix("[#class] <MapBot> you: ") && $0.contains(" km") }
        #expect(nearLines.count == 2, "\(run.output)")
        let european = ["Ada Lovelace", "Edsger Dijkstra", "Guido van Rossum", "Tim Berners-Lee", "Sophie Wilson"]
        #expect(nearLines.contains { line in european.contains { line.contains($0) } }, "\(nearLines)")
        let distances = nearLines.compactMap { line -> Double? in
            guard let match = line.firstMatch(of: /([0-9][0-9,]*(?:\.[0-9]+)?) km/) else { return nil }
            return Double(match.1.replacingOccurrences(of: ",", with: ""))
        }
        #expect(distances.count == 2)
        #expect(distances.allSatisfy { $0 > 100 && $0 < 1500 }, "\(distances)")
        #expect(distances == distances.sorted())

        #expect(run.lines.contains { $0.hasPrefix("* /frobnicate is not a console command") && $0.contains("/help") })
        // A line that is not a command says nothing to the bot in a channel.
        #expect(!run.lines.contains { $0.contains("hello everyone") })
    }

    @Test func logsInPrivatelyAsAnotherUserAndRefusesAPasswordInTheChannel() async throws {
        let folder = try TemporaryDirectory(prefix: "console-login")
        let config = try await Self.seededConfig(in: folder, ircSection: Self.classIRC)
        let run = try await Self.console(
            config: config,
            input: [
                "/as alice",
                "!login alice@demo.local alice-demo-pass",
                "!whoami",
                "/dm",
                "!login alice@demo.local alice-demo-pass",
                "!whoami",
                "!post Lyon, France",
                "!post https://alice.example/work",
                "/channel",
                "!whoami",
            ], in: folder)
        #expect(run.status == 0, "stderr: \(run.errors)")
        #expect(!run.output.contains("alice-demo-pass"), "\(run.output)")
        #expect(!run.errors.contains("alice-demo-pass"))

        #expect(run.lines.contains("* You are now alice (alice!alice@alice.console)."))
        let index = { (predicate: (String) -> Bool) in run.lines.firstIndex(where: predicate) }
        let refused = try #require(
            index { $0.hasPrefix("[#class] <MapBot> alice: never type a password in a channel") }, "\(run.output)")
        let notYet = try #require(
            index {
                $0
                    == "[#class] <MapBot> alice: You are not logged in. Log in privately: /msg MapBot !login <email> <password>"
            })
        let moved = try #require(index { $0.hasPrefix("* Now talking privately to MapBot") })
        let welcome = try #require(index { $0.hasPrefix("[private] <MapBot> Welcome, Alice") }, "\(run.output)")
        let whoamiPrivate = try #require(
            index {
                $0.hasPrefix("[private] <MapBot> You are logged in as Alice")
                    && $0.contains("alice!alice@alice.console")
            })
        let back = try #require(index { $0 == "* Now talking in #class." })
        let whoamiChannel = try #require(index { $0.hasPrefix("[#class] <MapBot> alice: You are logged in as Alice") })
        #expect(
            [refused, notYet, moved, welcome, whoamiPrivate, back, whoamiChannel]
                == [refused, notYet, moved, welcome, whoamiPrivate, back, whoamiChannel].sorted())
        // The two steps of !post follow each other at once (no rate limit between them), and the
        // announcement reaches the channel.
        #expect(
            run.lines.contains {
                $0.hasPrefix("[private] <MapBot> You are on the map: Alice Martin — Lyon, Auvergne-Rhône-Alpes, France")
            },
            "\(run.output)")
        #expect(
            run.lines.contains(
                "[#class] <MapBot> New pin: Alice Martin — Lyon, Auvergne-Rhône-Alpes, France — https://alice.example/work"
            ),
            "\(run.output)")
        // Where the session is bound is said only privately.
        #expect(!run.lines[whoamiChannel].contains("@alice.console"))
    }

    @Test func startsAsTheGivenUserWithDefaultsForAnIncompleteIRCSectionAndStopsAtQuit() async throws {
        let folder = try TemporaryDirectory(prefix: "console-quit")
        let config = try await Self.seededConfig(in: folder, ircSection: "")
        let run = try await Self.console(
            config: config, arguments: ["--as", "bob"], input: ["/help", "!ping", "/quit", "!ping"], in: folder)
        #expect(run.status == 0, "stderr: \(run.errors)")
        for command in ["/as", "/dm", "/channel", "/help", "/quit"] {
            #expect(
                run.lines.contains { $0.hasPrefix("*  \(command) ") || $0.hasPrefix("*  \(command)") }, "\(command)")
        }
        // Nick MapBot and channel #class by default; nothing is read after /quit.
        #expect(run.lines.filter { $0 == "[#class] <MapBot> bob: pong" }.count == 1, "\(run.output)")
        // Logs go to standard error, warnings and worse only: nothing at error level here.
        let errorLines = run.errors.split(separator: "\n").filter { line in
            line.split(separator: " ").dropFirst().first.map { $0 == "error" || $0 == "critical" } ?? false
        }
        #expect(errorLines.isEmpty, "\(run.errors)")
        #expect(!run.output.contains(" info "), "no info-level logs on standard output")
    }

    @Test func refusesAnInvalidNickAndAnUnreadableConfig() async throws {
        let folder = try TemporaryDirectory(prefix: "console-bad")
        let config = try await Self.seededConfig(in: folder, ircSection: Self.classIRC)
        let badNick = try await Self.console(config: config, arguments: ["--as", "9 lives"], input: [], in: folder)
        #expect(badNick.status != 0)
        #expect(badNick.errors.contains("not a valid nick"))

        let missing = try await Self.console(config: folder.file("nowhere.yaml"), input: ["!ping"], in: folder)
        #expect(missing.status != 0)
        #expect(!missing.output.contains("pong"))
    }

    // MARK: The console's pieces, in process.

    @Test func interpreterSwitchesUserAndPlaceAndSaysEverythingElse() {
        var console = ConsoleInterpreter(user: "you", channel: "#class", botNick: "MapBot")
        #expect(console.prompt == "[#class] you> ")
        #expect(
            console.interpret("!near Paris")
                == .say(
                    IRCUserMessage(
                        sender: ConsoleInterpreter.sender(nick: "you"), origin: .channel("#class"), text: "!near Paris")
                ))
        guard case .note = console.interpret("/as 9bad") else {
            Issue.record("a bad nick is refused")
            return
        }
        #expect(console.user == "you")
        _ = console.interpret("/AS carol")
        _ = console.interpret("/dm")
        #expect(console.prompt == "[private] carol> ")
        #expect(
            console.interpret("//slash at the start")
                == .say(
                    IRCUserMessage(
                        sender: ConsoleInterpreter.sender(nick: "carol"), origin: .privateMessage,
                        text: "/slash at the start")))
        _ = console.interpret("/channel lounge")
        #expect(console.origin == .channel("#lounge"))
        _ = console.interpret("/dm")
        _ = console.interpret("/channel")
        #expect(console.origin == .channel("#lounge"))
        #expect(console.interpret("   ") == .note([]))
        #expect(console.interpret("/quit") == .quit)
        #expect(ConsoleInterpreter.sender(nick: "Carol").mask == "Carol!carol@carol.console")
    }

    @Test func screenRendersLinesAsAnIRCClientShowsThem() {
        let render = { (kind: OutgoingText.Kind, target: String, text: String) in
            ConsoleScreen.render(OutgoingText(kind, to: target, text: text), botNick: "MapBot", user: "alice")
        }
        #expect(render(.privmsg, "#class", "alice: pong") == "[#class] <MapBot> alice: pong")
        #expect(render(.privmsg, "Alice", "pong") == "[private] <MapBot> pong")
        #expect(render(.privmsg, "bob", "hi") == "[private to bob] <MapBot> hi")
        #expect(render(.notice, "alice", "slow down") == "-MapBot- slow down")
        #expect(render(.notice, "#class", "news") == "[#class] -MapBot- news")
        #expect(render(.privmsg, "#class", "\u{02}bold\u{02} and\nnext") == "[#class] <MapBot> bold and next")
    }
}
