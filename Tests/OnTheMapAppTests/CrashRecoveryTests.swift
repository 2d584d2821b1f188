import BotTesting
import Foundation
import IRCProtocol
import NIOConcurrencyHelpers
import Testing

/// The real `onthemap-bot run` against a real ngircd over TLS, killed with SIGKILL while students
/// post as fast as it lets them, then started again on the same database (SQLite, PostgreSQL):
/// every post the bot confirmed to a student is there, the database is intact, and the announcer
/// neither repeats an announcement made before the kill nor skips a pin that was not announced.
///
/// The guarantee tested is the announcer's (see `AnnouncePlugin`): at-least-once, where the one
/// announcement that may be repeated is the last one that went out before the kill (the bot can
/// die between that line leaving and its being saved as announced).
@Suite(.tags(.startsProcesses), .serialized) struct CrashRecoveryTests {
    static let botNick = "CrashBot"
    static let channel = "#class"
    static let places = ["Paris, France", "Lima, Peru", "Tokyo, Japan", "Seattle, WA", "Quito, Ecuador"]
    static let students = (1...3).map { (nick: "student\($0)", email: "student\($0)@class.test") }
    static let password = "crash-test-pw-1"
    /// Confirmed posts before the kill.
    static let confirmationsBeforeKill = 7

    @Test(.timeLimit(.minutes(3))) func sigkillWhilePostingOnSQLite() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built")
        let folder = try TemporaryDirectory(prefix: "crash-sqlite")
        let database = folder.file("class.sqlite")
        try await NgircdServer.withRunning { server in
            try await Self.crashAndRecover(
                executable: executable, server: server, folder: folder,
                service: "  backend: local\n  database: \(database)",
                checkDatabase: {
                    let integrity = try await runCommand("/usr/bin/sqlite3", [database, "PRAGMA integrity_check;"])
                    #expect(integrity.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
                    let rows = try await runCommand(
                        "/usr/bin/sqlite3",
                        [
                            database,
                            "SELECT a.email, s.media_url FROM student_locations s JOIN accounts a ON a.account_key = s.unique_key;",
                        ])
                    return Self.parsePins(rows)
                })
        }
    }

    @Test(.timeLimit(.minutes(3)), .enabled(if: PostgresCluster.isAvailable))
    func sigkillWhilePostingOnPostgreSQL() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built")
        let folder = try TemporaryDirectory(prefix: "crash-postgres")
        try await PostgresCluster.withRunning { cluster in
            try await NgircdServer.withRunning { server in
                try await Self.crashAndRecover(
                    executable: executable, server: server, folder: folder,
                    service: "  backend: postgres\n  postgres_url: \"\(cluster.url)\"",
                    checkDatabase: {
                        // Consistent tables: no pin without its account, one pin per account, unique
                        // revisions, and the announcer's memory is a JSON list.
                        let orphans = try await cluster.psql(
                            "SELECT count(*) FROM student_locations s LEFT JOIN accounts a ON a.account_key = s.unique_key WHERE a.account_key IS NULL"
                        )
                        #expect(orphans == "0")
                        let duplicates = try await cluster.psql(
                            "SELECT count(*) - count(DISTINCT unique_key) + count(*) - count(DISTINCT revision) FROM student_locations"
                        )
                        #expect(duplicates == "0")
                        let state = try await cluster.psql(
                            "SELECT json_typeof(value::json) FROM bot_state WHERE key LIKE 'announce.seen@%'")
                        #expect(state == "array")
                        let rows = try await cluster.psql(
                            "SELECT a.email, s.media_url FROM student_locations s JOIN accounts a ON a.account_key = s.unique_key"
                        )
                        return Self.parsePins(rows)
                    })
            }
        }
    }

    /// "email|link" lines → link by email.
    static func parsePins(_ rows: String) -> [String: String] {
        var pins: [String: String] = [:]
        for row in rows.split(separator: "\n") {
            let parts = row.split(separator: "|", maxSplits: 1).map(String.init)
            if parts.count == 2 { pins[parts[0]] = parts[1] }
        }
        return pins
    }

    /// What the students saw: the links the bot confirmed, and the one each sent last.
    final class PostLog: Sendable {
        private let state = NIOLockedValueBox<(confirmed: [String: [String]], sent: [String: String], odd: [String])>(
            ([:], [:], []))

        func sent(_ link: String, by email: String) { state.withLockedValue { $0.sent[email] = link } }
        /// One line per confirmation, in order: what a wait for enough confirmations wakes on.
        let confirmations = WaitableLines()

        func confirmed(_ link: String, by email: String) {
            state.withLockedValue { $0.confirmed[email, default: []].append(link) }
            confirmations.append(link)
        }
        func odd(_ text: String) { state.withLockedValue { $0.odd.append(text) } }
        var confirmedCount: Int { state.withLockedValue { $0.confirmed.values.reduce(0) { $0 + $1.count } } }
        var confirmedLinks: [String: [String]] { state.withLockedValue { $0.confirmed } }
        var lastSent: [String: String] { state.withLockedValue { $0.sent } }
        var oddReplies: [String] { state.withLockedValue { $0.odd } }
    }

    static func crashAndRecover(
        executable: String, server: NgircdServer, folder: TemporaryDirectory, service: String,
        checkDatabase: () async throws -> [String: String]
    ) async throws {
        let configPath = folder.file("bot.yaml")
        try """
        irc:
          server: 127.0.0.1
          port: \(server.tlsPort)
          tls_ca_file: \(server.certificate.certificatePath)
          nick: \(botNick)
          channels: ["\(channel)"]
          announce_to: ["\(channel)"]
        service:
        \(service)
        plugins:
          announce: {poll_seconds: 10}
        privacy:
          open_channel: full   # the channel has no key: the full announcements are what is tested
        """.write(toFile: configPath, atomically: true, encoding: .utf8)
        let roster = folder.file("roster.csv")
        try
            (["email,first_name,last_name,password"]
            + students.map { "\($0.email),\($0.nick.capitalized),Crash,\(password)" })
            .joined(separator: "\n").write(toFile: roster, atomically: true, encoding: .utf8)
        let imported = try await runCommand(executable, ["accounts", "import", "--config", configPath, roster])
        #expect(imported.contains("3 added"), "\(imported)")

        let watcher = try await TestIRCUser.connect(
            port: server.tlsPort, caFile: server.certificate.certificatePath, nick: "watcher")
        try await watcher.join(channel)
        var bot = try BotProcess(executable: executable, config: configPath, log: folder.file("bot-1.log"))
        defer { bot.kill() }
        _ = try await watcher.waitForMessage(timeout: .seconds(30), "the bot's JOIN") {
            $0.command == "JOIN" && $0.sourceNick == botNick
        }

        // The students log in, then post again and again, each waiting for the bot's answer.
        var users: [TestIRCUser] = []
        for student in students {
            let user = try await TestIRCUser.connect(
                port: server.tlsPort, caFile: server.certificate.certificatePath, nick: student.nick)
            try await user.privmsg(botNick, "!login \(student.email) \(password)")
            users.append(user)
        }
        for user in users {
            let welcome = try await user.waitForMessage(timeout: .seconds(30), "welcome") {
                $0.command == "PRIVMSG" && $0.sourceNick == botNick
            }
            #expect(welcome.parameters.last?.hasPrefix("Welcome, ") == true, "\(welcome)")
        }
        let log = PostLog()
        let posters = users
        let posting = Task {
            await withTaskGroup(of: Void.self) { group in
                for (index, user) in posters.enumerated() {
                    let email = students[index].email
                    group.addTask {
                        for round in 1... {
                            let link = "https://s\(index + 1).example/post-\(round)"
                            let place = places[(index + round) % places.count]
                            log.sent(link, by: email)
                            do {
                                try await user.privmsg(botNick, "!post \(place) | \(link)")
                                let reply = try await user.waitForMessage(timeout: .seconds(60), "post reply") {
                                    $0.command == "PRIVMSG" && $0.sourceNick == botNick
                                }
                                let text = reply.parameters.last ?? ""
                                if (text.hasPrefix("You are on the map: ") || text.hasPrefix("Your pin is updated: "))
                                    && text.hasSuffix(link)
                                {
                                    log.confirmed(link, by: email)
                                } else {
                                    log.odd(text)
                                }
                            } catch {
                                return  // the bot was killed, or the test is over
                            }
                        }
                    }
                }
            }
        }
        await log.confirmations.wait(timeout: .seconds(60)) { $0.count >= confirmationsBeforeKill }
        bot.kill()
        posting.cancel()
        await posting.value
        #expect(log.confirmedCount >= confirmationsBeforeKill, "\(log.oddReplies)")
        #expect(log.oddReplies.isEmpty, "\(log.oddReplies)")
        _ = try await watcher.waitForMessage(timeout: .seconds(20), "the killed bot's QUIT") {
            $0.command == "QUIT" && $0.sourceNick == botNick
        }
        let before = Self.announcements(in: await watcher.receivedLines)
        let lastBefore = before.last(where: { $0.link != nil })?.link

        // Every post the bot confirmed is there: each student's pin is the last confirmed link,
        // or the one sent after it that the bot saved but did not get to confirm.
        let pins = try await checkDatabase()
        let confirmed = log.confirmedLinks
        for student in students {
            guard let last = confirmed[student.email]?.last else { continue }
            let pin = pins[student.email]
            #expect(pin == last || pin == log.lastSent[student.email], "\(student.email): \(pin ?? "no pin")")
        }

        // Started again on the same database: what was not announced is, what was is not.
        let linesBefore = await watcher.receivedLines.count
        bot = try BotProcess(executable: executable, config: configPath, log: folder.file("bot-2.log"))
        _ = try await watcher.waitForMessage(timeout: .seconds(30), "the bot's JOIN again") {
            $0.command == "JOIN" && $0.sourceNick == botNick
        }
        let announcedBefore = Set(before.compactMap(\.link))
        let expected = Set(pins.values).subtracting(announcedBefore)
        // The announcer's second round (10 s after its start) announces what was missed: looked at
        // as each line arrives.
        let announced = { @Sendable (lines: [String]) -> [Announcement] in
            Self.announcements(in: Array(lines.dropFirst(linesBefore)))
        }
        _ = try? await watcher.waitForLines(timeout: .seconds(40), "the missed pins' announcements") { lines in
            let after = announced(lines)
            let fresh = Set(after.compactMap(\.link)).subtracting(announcedBefore)
            let more = after.reduce(0) { $0 + $1.more }
            return expected.isSubset(of: fresh) || fresh.count + more >= expected.count
        }
        // Nothing else may come: one more post, announced in a round that begins after it, so
        // after every round that could still have said something (its own line is left out).
        let marker = "https://marker.example/last"
        try await users[0].privmsg(botNick, "!post \(places[0]) | \(marker)")
        let lines = try await watcher.waitForLines(timeout: .seconds(40), "the last post's announcement") {
            announced($0).contains { $0.link == marker }
        }
        let after = announced(lines).filter { $0.link != marker }
        bot.kill()

        let named = after.compactMap(\.link)
        let more = after.reduce(0) { $0 + $1.more }
        let repeated = named.filter { announcedBefore.contains($0) }
        let context = "before: \(before.map(\.text))\nafter: \(after.map(\.text))\nexpected: \(expected)"
        // No repeat, except the last announcement before the kill (at-least-once).
        #expect(repeated.allSatisfy { $0 == lastBefore }, "\(context)")
        #expect(repeated.count <= 1, "\(context)")
        // No skip: every current pin not announced before is announced now, once.
        let fresh = named.filter { !announcedBefore.contains($0) }
        #expect(Set(fresh).isSubset(of: expected), "\(context)")
        #expect(Set(fresh).count == fresh.count, "\(context)")
        if more == 0 {
            #expect(Set(fresh) == expected, "\(context)")
        } else {
            // A burst: the newest few by name, the rest counted (which may hide the one repeat).
            let hiddenRepeatAllowed = repeated.isEmpty && lastBefore.map { pins.values.contains($0) } == true
            #expect(
                fresh.count + more == expected.count
                    || (hiddenRepeatAllowed && fresh.count + more == expected.count + 1), "\(context)")
        }
        for user in users { await user.quit() }
        await watcher.quit()
    }

    /// One line the bot said in the channel: a pin's announcement (with its link) or a summary.
    struct Announcement {
        var text: String
        var link: String?
        /// "… and N more new pins": N.
        var more: Int
    }

    static func announcements(in lines: [String]) -> [Announcement] {
        lines.compactMap { line -> Announcement? in
            guard let message = try? IRCMessage(parsing: line, maxLineBytes: 16_384), message.command == "PRIVMSG",
                message.sourceNick == botNick, message.parameters.first == channel,
                let text = message.parameters.last
            else { return nil }
            if text.hasPrefix("New pin: ") || text.hasPrefix("Moved pin: ") {
                let link = text.components(separatedBy: " — ").last
                return Announcement(text: text, link: link, more: 0)
            }
            if text.hasPrefix("… and "), let count = Int(text.dropFirst("… and ".count).prefix { $0.isNumber }) {
                return Announcement(text: text, link: nil, more: count)
            }
            return nil
        }
    }
}

/// The bot binary running `run --config`, killed with SIGKILL. Its output goes to `log` through a
/// pipe, line by line into ``output``, so that a test can wait for a line the bot logs.
struct BotProcess {
    let process: Process
    let output: ProcessOutput

    init(executable: String, config: String, log: String, logLevel: String = "info") throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["run", "--config", config, "--log-level", logLevel]
        let output = try ProcessOutput(logPath: log)
        try output.attach(to: process)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        output.processStarted()
        self.process = process
        self.output = output
    }

    /// SIGKILL, then waits for the exit (and for the last of its output to be in the log).
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        output.waitUntilDrained()
    }

    /// Waits for the bot to log a line containing `text` (after the first `skipping` lines).
    @discardableResult
    func waitForLog(_ text: String, after skipping: Int = 0, timeout: Duration = .seconds(60)) async throws
        -> String
    {
        try await output.lines.waitForLine(
            containing: text, after: skipping, timeout: timeout, "the bot's log: \(text)")
    }
}
