import BotTesting
import Foundation
import Testing

/// `onthemap-load` end to end: the built tool starts the built bot against a
/// real InspIRCd over TLS, runs a short version of the benchmark and writes its figures as JSON.
@Suite(.tags(.startsProcesses), .serialized, .timeLimit(.minutes(5))) struct LoadToolLiveTests {
    /// The parts of the tool's JSON this test reads.
    private struct Figures: Decodable {
        struct Distribution: Decodable {
            var count: Int
            var median: Double
        }
        struct Run: Decodable {
            var startToJoin: Double?
            var ping: Distribution?
            var floor: Distribution?
            var whereFigures: Distribution?
            var burstAnswer: Double?
            var burstCPU: Double?
            var peakRSSKiB: Int?
        }
        var runs: [Run]
    }

    @Test func theToolTimesTheBotAndTheFloorAndWritesItsFigures() async throws {
        let load = try #require(
            BotLiveTests.builtExecutable("onthemap-load"), "onthemap-load was not built next to the tests")
        let bot = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await InspircdServer.withRunning { server in try await measure(load: load, bot: bot, on: server) }
    }

    private func measure(load: String, bot: String, on server: InspircdServer) async throws {
        let folder = try TemporaryDirectory(prefix: "load-tool")
        let config = folder.file("bot.yaml")
        try """
        irc:
          server: 127.0.0.1
          port: \(server.tlsPort)
          tls_ca_file: \(server.certificate.certificatePath)
          nick: MapBot
          channels: ["#bench"]
          announce_to: []
          flood: {enabled: false}
        plugins:
          user_limits: false
        service:
          database: \(folder.file("bot.sqlite"))
        geocoder:
          kind: nominatim
          nominatim_url: http://127.0.0.1:9/
          user_agent: onthemap-load-test
        """.write(toFile: config, atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: load)
        process.arguments = [
            "--port", "\(server.tlsPort)", "--ca-file", server.certificate.certificatePath, "--channel", "#bench",
            "--bot-nick", "MapBot", "--pings", "40", "--nears", "0", "--wheres", "6", "--where-names", "Nobody Here",
            "--burst", "300", "--runs", "1", "--json", folder.file("figures.json"), "--bot-log", folder.file("bot.log"),
            "--", bot, "run", "--config", config,
        ]
        let output = folder.file("load.out")
        #expect(FileManager.default.createFile(atPath: output, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        if !(await process.waitForExit(timeout: .seconds(180))) { process.terminate() }
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        try #require(process.terminationStatus == 0, "onthemap-load: \(printed)")

        let figures = try JSONDecoder().decode(
            Figures.self, from: Data(contentsOf: URL(fileURLWithPath: folder.file("figures.json"))))
        let run = try #require(figures.runs.first)
        #expect(run.ping?.count == 40 && (run.ping?.median ?? 0) > 0)
        #expect(run.floor?.count == 40 && (run.floor?.median ?? 0) > 0)
        #expect(run.whereFigures?.count == 6)
        #expect((run.startToJoin ?? 0) > 0)
        #expect(run.burstAnswer != nil && run.burstCPU != nil)
        #expect((run.peakRSSKiB ?? 0) > 1_000)
        #expect(printed.contains("!ping median (ms)"))

        // The bot's log: one people-readable line per command, in the text format.
        let log = try String(contentsOfFile: folder.file("bot.log"), encoding: .utf8)
        let commandLines = log.split(separator: "\n").filter { $0.hasSuffix("[BotKit] command") }
        #expect(commandLines.count >= 40 + 6)
        let stamp = try #require(commandLines.first?.split(separator: " ").first)
        #expect(stamp.count == 24 && stamp.dropFirst(10).first == "T", "\(commandLines.first ?? "")")
        #expect(commandLines.first?.contains(" info onthemap: ") == true)
    }
}
