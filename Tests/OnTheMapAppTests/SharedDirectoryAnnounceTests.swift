import BotTesting
import Foundation
import IRCProtocol
import Testing

/// Two real `onthemap-bot run` processes on one InspIRCd and one PostgreSQL, each announcing in
/// its own channel: every post made through the first (a new pin, then the same student moving it
/// again and again) is announced exactly once in each channel (each instance keeps its own
/// announcement ledger) — also moves made while the second instance could not read the directory
/// (paused), which it reads all at once afterwards: each move, not only the pin's latest place.
@Suite(.tags(.startsProcesses), .serialized) struct SharedDirectoryAnnounceTests {
    static let password = "shared-directory-pw-1"
    static let students = (1...2).map { (nick: "poster\($0)", email: "poster\($0)@class.test") }
    static let posts = 6

    @Test(.timeLimit(.minutes(3)), .enabled(if: PostgresCluster.isAvailable))
    func everyPostIsAnnouncedOnceInEachChannel() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built")
        let folder = try TemporaryDirectory(prefix: "shared-directory")
        try await PostgresCluster.withRunning { cluster in
            try await InspircdServer.withRunning { server in
                try await Self.scenario(executable: executable, folder: folder, cluster: cluster, server: server)
            }
        }
    }

    static func config(nick: String, channel: String, server: InspircdServer, postgresURL: String) -> String {
        """
        irc:
          server: 127.0.0.1
          port: \(server.tlsPort)
          tls_ca_file: \(server.certificate.certificatePath)
          nick: \(nick)
          channels: ["\(channel)"]
          announce_to: ["\(channel)"]
        service:
          backend: postgres
          postgres_url: "\(postgresURL)"
        plugins:
          announce:
            poll_seconds: 3600
        privacy:
          open_channel: full   # the test's channel has no key: the full announcements are what is tested
        """
    }

    static func scenario(
        executable: String, folder: TemporaryDirectory, cluster: PostgresCluster, server: InspircdServer
    ) async throws {
        let bots = [("MapBotOne", "#onthemap"), ("MapBotTwo", "#other")]
        var configs: [String] = []
        for (nick, channel) in bots {
            let path = folder.file("\(nick).yaml")
            try config(nick: nick, channel: channel, server: server, postgresURL: cluster.url)
                .write(toFile: path, atomically: true, encoding: .utf8)
            configs.append(path)
        }
        let roster = folder.file("roster.csv")
        try
            (["email,first_name,last_name,password"]
            + students.map { "\($0.email),\($0.nick.capitalized),Shared,\(password)" })
            .joined(separator: "\n").write(toFile: roster, atomically: true, encoding: .utf8)
        let imported = try await runCommand(executable, ["accounts", "import", "--config", configs[0], roster])
        #expect(imported.contains("2 added"), "\(imported)")

        let watcher = try await TestIRCUser.connect(
            port: server.tlsPort, caFile: server.certificate.certificatePath, nick: "watcher")
        for (_, channel) in bots { try await watcher.join(channel) }
        var processes: [BotProcess] = []
        defer { for process in processes { process.kill() } }
        for (index, (nick, _)) in bots.enumerated() {
            processes.append(
                try BotProcess(executable: executable, config: configs[index], log: folder.file("\(nick).log")))
            _ = try await watcher.waitForMessage(timeout: .seconds(30), "\(nick)'s JOIN") {
                $0.command == "JOIN" && $0.sourceNick == nick
            }
        }
        // Each announcer has made its first round (read the map) and listens to the directory's
        // notifications (it polls only once an hour): each says so in its log.
        for process in processes {
            try await process.waitForLog("announcer started fresh", timeout: .seconds(30))
            try await process.waitForLog("Listening to PostgreSQL notifications", timeout: .seconds(30))
        }

        var users: [TestIRCUser] = []
        for student in students {
            let user = try await TestIRCUser.connect(
                port: server.tlsPort, caFile: server.certificate.certificatePath, nick: student.nick)
            try await user.privmsg(bots[0].0, "!login \(student.email) \(password)")
            _ = try await user.waitForMessage(timeout: .seconds(30), "welcome") {
                $0.command == "PRIVMSG" && $0.sourceNick == bots[0].0
            }
            users.append(user)
        }
        var links: [String] = []
        for number in 0..<posts {
            // The first student posts, then moves the pin; the second posts once in between.
            let user = users[number == 3 ? 1 : 0]
            let link = "https://shared.example/post-\(number)"
            links.append(link)
            try await user.privmsg(bots[0].0, "!post \(["Paris, France", "Lima, Peru"][number % 2]) | \(link)")
            let reply = try await user.waitForMessage(timeout: .seconds(30), "post reply") {
                $0.command == "PRIVMSG" && $0.sourceNick == bots[0].0
            }
            #expect(reply.parameters.last?.hasSuffix(link) == true, "\(reply)")
        }
        // Moves while the second instance is paused: on waking it reads them in one round.
        let paused = processes[1].process.processIdentifier
        kill(paused, SIGSTOP)
        for number in 0..<3 {
            let link = "https://shared.example/while-paused-\(number)"
            links.append(link)
            try await users[0].privmsg(bots[0].0, "!post \(["Seattle", "Portland"][number % 2]) | \(link)")
            let reply = try await users[0].waitForMessage(timeout: .seconds(30), "post reply") {
                $0.command == "PRIVMSG" && $0.sourceNick == bots[0].0
            }
            #expect(reply.parameters.last?.hasSuffix(link) == true, "\(reply)")
        }
        kill(paused, SIGCONT)

        // Each channel hears of each post (looked at as each line arrives)…
        let expected = Set(links)
        _ = try? await watcher.waitForLines(timeout: .seconds(30), "every post announced in both channels") {
            let heard = announced(in: $0, bots: bots)
            return bots.allSatisfy { expected.isSubset(of: Set(heard[$0.1] ?? [])) }
        }
        // …once: one more post, announced by each instance in a round that begins after it, so after
        // every round that could still have repeated one (its own line is left out).
        let marker = "https://shared.example/last"
        try await users[0].privmsg(bots[0].0, "!post Paris, France | \(marker)")
        let lines = try await watcher.waitForLines(timeout: .seconds(30), "the last post in both channels") {
            let heard = announced(in: $0, bots: bots)
            return bots.allSatisfy { (heard[$0.1] ?? []).contains(marker) }
        }
        let heard = announced(in: lines, bots: bots).mapValues { $0.filter { $0 != marker } }
        for (_, channel) in bots {
            #expect((heard[channel] ?? []).sorted() == links.sorted(), "\(channel): \(heard[channel] ?? [])")
        }
        for user in users { await user.quit() }
        await watcher.quit()
    }

    /// The links announced by each bot in its channel, in order.
    static func announced(in lines: [String], bots: [(String, String)]) -> [String: [String]] {
        var heard: [String: [String]] = [:]
        for line in lines {
            guard let message = try? IRCMessage(parsing: line, maxLineBytes: 16_384), message.command == "PRIVMSG",
                let channel = message.parameters.first,
                bots.contains(where: { $0.0 == message.sourceNick && $0.1 == channel }),
                let text = message.parameters.last, text.hasPrefix("New pin: ") || text.hasPrefix("Moved pin: "),
                let link = text.components(separatedBy: " — ").last
            else { continue }
            heard[channel, default: []].append(link)
        }
        return heard
    }
}
