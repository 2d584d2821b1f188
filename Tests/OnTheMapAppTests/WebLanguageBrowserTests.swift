import BotTesting
import Foundation
import Localization
import Testing

/// The web map in the reader's language, through the built `onthemap-bot` (its IRC side on a real
/// ngircd over TLS, its web listener with the v1 API) and headless Chromium driven by Selenium
/// (`Tests/Browser/web_language.py`). Needs Debian's `chromium`, `chromium-driver` and
/// `python3-selenium` (CI installs them).
@Suite(.tags(.runsAlone), .serialized, .timeLimit(.minutes(4))) struct WebLanguageBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Browser/web_language.py").path

    /// A browser that asks for Spanish reads the page, the class map's sign-in note and the log-in
    /// scene in Spanish; its language menu switches to Japanese, which holds after a reload (and
    /// the log-in scene's refusal is Japanese). Jane says `!lang fr` on IRC and opens the link of
    /// her private `!map` in a Spanish browser: signed in, she reads the map and its posting scene
    /// in French. A browser asking for each of the six languages reads the page, the log-in, table
    /// and posting scenes in it. The API's error texts follow `Accept-Language`, its statuses and
    /// shapes unchanged.
    @Test func thePageFollowsTheBrowserTheMenuAndTheStudentsLanguage() async throws {
        try await NgircdServer.withRunning { server in
            let folder = try TemporaryDirectory(prefix: "web-language")
            let database = folder.file("class.sqlite")
            try await BotFaultLiveTests.makeDatabase(database)
            let webPort = try await FreePort.pick()
            let base = "http://127.0.0.1:\(webPort)"
            let jane = try await TestIRCUser.connect(
                port: server.tlsPort, caFile: server.certificate.certificatePath, nick: "jane")
            try await jane.join("#class")
            let bot = try BotFaultLiveTests.startBot(
                config: """
                    irc:
                      server: 127.0.0.1
                      port: \(server.tlsPort)
                      tls_ca_file: \(server.certificate.certificatePath)
                      nick: MapBot
                      channels: ["#class"]
                      flood: {enabled: false}
                    service:
                      database: \(database)
                      api: {enabled: true}
                    web:
                      enabled: true
                      listen: 127.0.0.1:\(webPort)
                      public_url: \(base)
                      visibility: class
                    """, in: folder)
            defer { if bot.process.isRunning { bot.process.terminate() } }
            _ = try await jane.waitForMessage(timeout: .seconds(30), "the bot joins #class") {
                $0.command == "JOIN" && $0.sourceNick == "MapBot"
            }
            // The web listener logs when it is up.
            try await bot.waitForLog("web map listener up", timeout: .seconds(30))
            #expect(try await BotFaultLiveTests.get(base + "/").0 == 200, "the web listener answers\n\(bot.log)")

            // The served page and the API, by header.
            let page = try await runCommand(
                "/usr/bin/curl", ["-s", "-D", "-", "-H", "Accept-Language: es-ES,es;q=0.9,en;q=0.3", base + "/"])
            #expect(page.contains("<html lang=\"es\">"))
            #expect(page.lowercased().contains("content-language: es\r\n"), "\(page.prefix(600))")
            #expect(page.lowercased().contains("vary: accept-language, cookie\r\n"))
            let catalogs = try Catalogs(folder: Catalogs.bundledFolder())
            for (header, language) in [("de", Language.german), ("", .english)] {
                let answer = try await runCommand(
                    "/usr/bin/curl",
                    [
                        "-s", "-X", "POST", "-H", "Content-Type: application/json", "-H", "Accept-Language: \(header)",
                        "--data", "{\"udacity\": {}}", base + "/v1/session",
                    ])
                let body = try #require(answer.split(separator: "\n").last.map(String.init), "\(answer)")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
                #expect(object["status"] as? Int == 400)
                #expect(object["error"] as? String == catalogs.phrasebook(language)("web.api.badJSON"), "\(answer)")
            }
            let refused = try await runCommand(
                "/usr/bin/curl", ["-s", "-H", "Accept-Language: ja", base + "/v1/StudentLocation?limit=-1"])
            let refusal = try #require(try JSONSerialization.jsonObject(with: Data(refused.utf8)) as? [String: Any])
            #expect(refusal["code"] as? Int == 102)
            #expect(refusal["error"] as? String == catalogs.phrasebook(.japanese)("web.api.invalidLimit"))

            // Jane chooses French on IRC, then asks for her sign-in link.
            try await BotFaultLiveTests.logIn(jane, BotFaultLiveTests.jane, to: "MapBot")
            try await jane.privmsg("MapBot", "!lang fr")
            let set = try await BotFaultLiveTests.reply(from: "MapBot", to: jane)
            #expect(set.contains("français"), "\(set)")
            try await jane.privmsg("MapBot", "!map")
            let line = try await jane.waitForMessage(timeout: .seconds(10), "the sign-in link") {
                $0.sourceNick == "MapBot" && ($0.parameters.last ?? "").contains("/signin#")
            }
            let link = try #require(
                (line.parameters.last ?? "").split(separator: " ").first { $0.contains("/signin#") }.map(String.init))

            let (status, output) = try await runProcess(
                "/usr/bin/python3", [Self.script, base, link, "Jane Doe"], timeout: .seconds(180))
            #expect(status == 0, "\(output)\n\(bot.log.suffix(3000))")
            #expect(output.contains("language scenes passed"), "\(output)")
            try await bot.stop()
        }
    }
}
