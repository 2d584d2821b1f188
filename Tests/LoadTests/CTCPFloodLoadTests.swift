import BotTesting
import Foundation
import IRCProtocol
import OnTheMapApp
import SQLiteDirectory
import Testing

/// The real `onthemap-bot run` binary on InspIRCd 3 with Debian's stock flood limits for the bot
/// (10 commands of burst, then 1 a second), while 20 connections flood it with CTCP VERSION and PING
/// (each from its own address, in a relaxed class, so that they all really reach the bot): students who
/// ask `!ping` in the channel right after the flood starts are still answered within 5 seconds, only a
/// handful of CTCP queries are answered, and the bot is never disconnected.
@Suite(.tags(.runsAlone), .serialized) struct CTCPFloodLoadTests {
    static let channel = "#class"

    @Test(.timeLimit(.minutes(2))) func aCTCPFloodFromTwentyConnectionsDelaysNoStudentsPingByMoreThanFiveSeconds()
        async throws
    {
        let executable = try #require(ClassLoadTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        let folder = try TemporaryDirectory(prefix: "ctcp-flood")
        let database = folder.file("class.sqlite")
        try SQLiteStudentDirectory(path: database).close()
        let classes: [InspircdServer.ConnectClass] = [
            .stock(name: "bot", allow: "127.0.0.1"),
            .relaxed(name: "students", allow: "127.0.0.0/8"),
        ]
        try await InspircdServer.withRunning(connectClasses: classes) { server in
            try await Self.run(executable: executable, server: server, folder: folder, database: database)
        }
    }

    static func run(executable: String, server: InspircdServer, folder: TemporaryDirectory, database: String)
        async throws
    {
        let botNick = ClassLoadTests.botNick
        let tls = try LoadStudent.tlsContext(caFile: server.certificate.certificatePath)
        let watcher = try await LoadStudent.connect(
            nick: "watcher", address: "127.0.0.2", port: server.tlsPort, tls: tls)
        try await watcher.joinAndWait(channel)

        let configPath = folder.file("bot.yaml")
        // No `flood:` key: the defaults (the server's stock allowance) are under test.
        let yaml = """
            irc:
              server: 127.0.0.1
              port: \(server.tlsPort)
              tls_ca_file: \(server.certificate.certificatePath)
              nick: \(botNick)
              channels: ["\(channel)"]
              quit_message: Flood test over
            service:
              database: \(database)
            """
        try yaml.write(toFile: configPath, atomically: true, encoding: .utf8)
        let bot = Process()
        bot.executableURL = URL(fileURLWithPath: executable)
        bot.arguments = ["run", "--config", configPath, "--log-level", "info", "--log-format", "json"]
        let logPath = folder.file("bot.log")
        #expect(FileManager.default.createFile(atPath: logPath, contents: nil))
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        bot.standardOutput = log
        bot.standardError = log
        let started = ContinuousClock.now
        try bot.run()
        defer { if bot.isRunning { kill(bot.processIdentifier, SIGKILL) } }
        _ = try await watcher.waitForBotLine(since: started, timeout: .seconds(30), "the bot's JOIN") {
            $0.command == "JOIN"
        }

        let flooders = try await withThrowingTaskGroup(of: LoadStudent.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await LoadStudent.connect(
                        nick: "flood\(index)", address: "127.0.0.\(10 + index)", port: server.tlsPort, tls: tls)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let students = try await withThrowingTaskGroup(of: LoadStudent.self) { group in
            for index in 0..<5 {
                group.addTask {
                    let student = try await LoadStudent.connect(
                        nick: "stu\(index)", address: "127.0.0.\(40 + index)", port: server.tlsPort, tls: tls)
                    try await student.joinAndWait(channel)
                    return student
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // The flood's schedule (what the test plays, not a wait for something): two seconds after
        // the students joined (the bot's WHO queries about them have used some of its allowance,
        // which refills at a line a second), every connection sends ten queries in one write, and
        // ten more two seconds later.
        try await Task.sleep(for: .seconds(2))
        let queries = (0..<10).map { number in
            "PRIVMSG \(botNick) :\u{01}\(number % 2 == 0 ? "VERSION" : "PING \(number)")\u{01}"
        }
        .joined(separator: "\r\n")
        let floodStart = ContinuousClock.now
        for flooder in flooders { try await flooder.send(queries) }
        try await Task.sleep(for: .milliseconds(300))
        var asked: [(LoadStudent, ContinuousClock.Instant)] = []
        for student in students {
            let at = ContinuousClock.now
            try await student.send("PRIVMSG \(channel) :!ping")
            asked.append((student, at))
        }
        try await Task.sleep(for: .milliseconds(1700))
        for flooder in flooders { try await flooder.send(queries) }

        var waits: [Duration] = []
        for (student, at) in asked {
            let nick = student.nick
            let answer = try await student.waitForBotLine(since: at, timeout: .seconds(30), "\(nick)'s pong") {
                $0.command == "PRIVMSG" && $0.parameters.first == channel
                    && ($0.parameters.last ?? "").contains(nick) && ($0.parameters.last ?? "").hasSuffix("pong")
            }
            waits.append(at.duration(to: answer.at))
        }
        // The CTCP answers of the next seconds are what is left of the budget.
        try await Task.sleep(for: .seconds(3))
        let ctcpAnswers = flooders.reduce(0) { count, flooder in
            count + flooder.botLines().filter { $0.message.command == "NOTICE" }.count
        }
        print(
            "ctcp flood: student !ping answered after \(waits.map { ClassLoadTests.seconds($0) }) s; \(ctcpAnswers) CTCP answers in \(ClassLoadTests.seconds(floodStart.duration(to: .now))) s"
        )
        for wait in waits { #expect(wait <= .seconds(5)) }
        #expect(ctcpAnswers <= 8)

        #expect(bot.isRunning)
        #expect(watcher.botLines().filter { $0.message.command == "JOIN" }.count == 1)
        #expect(!watcher.botLines().contains { $0.message.command == "QUIT" })
        let serverLog =
            server.log()
            + ((try? String(contentsOfFile: server.directory.file("inspircd-file.log"), encoding: .utf8)) ?? "")
        for marker in ["Excess Flood", "RecvQ exceeded", "SendQ exceeded"] {
            #expect(!serverLog.contains(marker), "server log: \(marker)")
        }
        bot.terminate()
        await bot.waitForExit(timeout: .seconds(30))
        for client in flooders + students + [watcher] { await client.close() }
    }
}
