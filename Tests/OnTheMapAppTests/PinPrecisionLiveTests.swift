import BotTesting
import Foundation
import IRCProtocol
import Testing

/// The real `onthemap-bot run` on InspIRCd over TLS, with its web listener and v1 API, geocoding
/// with a Nominatim-compatible server: a street address posted with `!post` and one posted through
/// `POST /v1/StudentLocation` with exact coordinates are both stored at city level — the town's
/// name and point — read back that way over IRC and HTTP, and the street is in no byte of the
/// database file or its WAL.
@Suite(.tags(.startsProcesses), .serialized) struct PinPrecisionLiveTests {
    static let password = "precise-enough-pw-1"
    static let street = "1600 Amphitheatre Parkway"

    @Test(.timeLimit(.minutes(3)))
    func streetAddressesAreStoredAsTheirTown() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built")
        let folder = try TemporaryDirectory(prefix: "pin-precision")
        let nominatim = FakeNominatimServer()
        let nominatimURL = try await nominatim.start()
        defer { Task { await nominatim.stop() } }
        try await InspircdServer.withRunning { server in
            try await Self.scenario(
                executable: executable, folder: folder, server: server, nominatim: nominatimURL.absoluteString)
        }
    }

    static func scenario(executable: String, folder: TemporaryDirectory, server: InspircdServer, nominatim: String)
        async throws
    {
        let webPort = try await FreePort.pick()
        let database = folder.file("class.sqlite")
        let config = folder.file("bot.yaml")
        try """
        irc:
          server: 127.0.0.1
          port: \(server.tlsPort)
          tls_ca_file: \(server.certificate.certificatePath)
          nick: MapBot
          channels: ["#class"]
        service:
          database: \(database)
          api: {enabled: true}
        geocoder:
          kind: nominatim
          nominatim_url: \(nominatim)
          user_agent: "OnTheMapBot-tests/1.0 (tests@class.test)"
        web:
          enabled: true
          listen: 127.0.0.1:\(webPort)
          public_url: http://127.0.0.1:\(webPort)
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let roster = folder.file("roster.csv")
        try """
        email,first_name,last_name,password
        jane@class.test,Jane,Doe,\(password)
        ada@class.test,Ada,Lovelace,\(password)
        """.write(toFile: roster, atomically: true, encoding: .utf8)
        let imported = try await runCommand(executable, ["accounts", "import", "--config", config, roster])
        #expect(imported.contains("2 added"), "\(imported)")

        let bot = try BotProcess(executable: executable, config: config, log: folder.file("bot.log"))
        defer { bot.kill() }
        let jane = try await TestIRCUser.connect(
            port: server.tlsPort, caFile: server.certificate.certificatePath, nick: "jane")
        try await bot.waitForLog("web map listener up", timeout: .seconds(30))
        // A line sent to the bot before it registered would be answered "no such nick" and lost.
        try await bot.waitForLog("Registered on", timeout: .seconds(30))
        try await jane.privmsg("MapBot", "!login jane@class.test \(password)")
        let welcome = try await jane.waitForMessage(timeout: .seconds(30), "welcome") {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBot"
        }
        #expect(welcome.parameters.last?.hasPrefix("Welcome") == true, "\(welcome)")

        try await jane.privmsg("MapBot", "!post \(street), Mountain View, CA | https://jane.example")
        let posted = try await jane.waitForMessage(timeout: .seconds(30), "post reply") {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBot" && $0.parameters.last?.hasPrefix("You are") == true
        }
        #expect(
            posted.parameters.last?.hasPrefix(
                "You are on the map: Jane Doe — Mountain View, California, United States (")
                == true, "\(posted)")

        // Through the API, an app sends the street and its exact point.
        let base = "http://127.0.0.1:\(webPort)"
        let login = try await LiveBotSetup.curl(
            [
                "-X", "POST", "-H", "Content-Type: application/json",
                "-d", #"{"udacity":{"username":"ada@class.test","password":"\#(password)"}}"#, base + "/v1/session",
            ])
        let sessionId = try #require(
            ((login.json["session"] as? [String: Any])?["id"] as? String), "login: \(login.text)")
        let accountKey = try #require((login.json["account"] as? [String: Any])?["key"] as? String)
        let body =
            #"{"uniqueKey":"\#(accountKey)","firstName":"Ada","lastName":"Lovelace","mapString":"\#(street), Mountain View, CA","mediaURL":"https://ada.example","latitude":37.422476,"longitude":-122.084249}"#
        let saved = try await LiveBotSetup.curl(
            [
                "-X", "POST", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(sessionId)",
                "-d", body, base + "/v1/StudentLocation",
            ])
        #expect(saved.status == 200, "\(saved.text)")

        // Hidden characters in the place are refused on the API as on IRC, and change nothing.
        let hidden = body.replacingOccurrences(of: street, with: #"Paris\u202egnp.exe\u200b\u2066"#)
        let refused = try await LiveBotSetup.curl(
            [
                "-X", "POST", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(sessionId)",
                "-d", hidden, base + "/v1/StudentLocation",
            ])
        #expect(refused.status == 400, "\(refused.text)")
        #expect(refused.text.contains("hidden characters"), "\(refused.text)")
        try await jane.privmsg("MapBot", "!post Lis\u{200B}bon")
        let hiddenOnIRC = try await jane.waitForMessage(timeout: .seconds(30), "hidden characters on IRC") {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBot"
        }
        #expect(hiddenOnIRC.parameters.last?.hasPrefix("That place has hidden characters in it") == true)

        let read = try await LiveBotSetup.curl([
            "-H", "Authorization: Bearer \(sessionId)", base + "/v1/StudentLocation?limit=10",
        ])
        let results = try #require(read.json["results"] as? [[String: Any]], "\(read.text)")
        #expect(results.count == 2)
        for pin in results {
            #expect(pin["mapString"] as? String == "Mountain View, California, United States", "\(pin)")
            let latitude = try #require(pin["latitude"] as? Double)
            #expect(abs(latitude - 37.38605) < 0.001, "the town's point, not the street's: \(pin)")
        }
        try await jane.privmsg("MapBot", "!where Ada Lovelace")
        let whereAnswer = try await jane.waitForMessage(timeout: .seconds(30), "!where") {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBot" && $0.parameters.last?.hasPrefix("Ada") == true
        }
        #expect(whereAnswer.parameters.last?.contains("Mountain View, California, United States") == true)
        try await jane.privmsg("MapBot", "!near")
        let near = try await jane.waitForMessage(timeout: .seconds(30), "!near") {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBot" && $0.parameters.last?.hasPrefix("Ada") == true
        }
        #expect(near.parameters.last?.hasPrefix("Ada Lovelace — same city — ") == true, "\(near)")
        await jane.quit()

        // Neither the street nor the exact point was ever written: not in the file, not in its WAL.
        for file in [database, database + "-wal"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
            #expect(bytes.range(of: Data("Amphitheatre".utf8)) == nil, "\(file)")
        }
    }
}
