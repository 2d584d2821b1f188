import BotTesting
import Foundation
import SQLiteDirectory
import Testing

@testable import OnTheMapService

/// A student's own data feeds through the built `onthemap-bot` on a real ircd over TLS and a real
/// SQLite file: after `!login`, a pin and a trip, `!mydata links` answers privately with two
/// addresses on the web map, which serve that student's pin as GeoJSON and trip as iCalendar over
/// HTTP, repeatedly, with neither kept by a cache nor sent on as a referrer; after `!logout` both
/// answer 404, and the bot's log, at its most verbose, never held the token.
@Suite(.tags(.startsProcesses), .timeLimit(.minutes(3))) struct DataFeedLiveTests {
    @Test func theFeedAddressesServeTheStudentsDataUntilLogout() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await LiveBotSetup.withServer("ngircd") { port, caFile in
            try await feeds(executable, port: port, caFile: caFile)
        }
    }

    func feeds(_ executable: String, port: Int, caFile: String) async throws {
        let folder = try TemporaryDirectory(prefix: "data-feed-live")
        let database = folder.file("bot.sqlite")
        let email = "zora.feedley@class.test"
        let password = "correct horse battery"
        let directory = try SQLiteStudentDirectory(path: database)
        _ = try await directory.addAccount(email: email, password: password, firstName: "Zora", lastName: "Feedley")
        try directory.close()
        let webPort = try await FreePort.pick()
        let config = try LiveBotSetup.writeConfig(
            in: folder, port: port, caFile: caFile, database: database,
            extra: """
                web:
                  enabled: true
                  listen: 127.0.0.1:\(webPort)
                  public_url: http://127.0.0.1:\(webPort)/
                """)
        // The most verbose log, which holds every line the bot sends.
        let process = try BotProcess(
            executable: executable, config: config, log: folder.file("bot.log"), logLevel: "trace")
        defer { process.kill() }
        try await process.waitForLog("web map listener up", timeout: .seconds(60))

        let student = try await TestIRCUser.connect(port: port, caFile: caFile, nick: "zorafeed")
        try await student.join("#class")
        // The bot is in the channel: it joins after the student, or the channel's names list it.
        _ = try await student.waitForMessage(timeout: .seconds(30), "the bot in #class") {
            ($0.command == "JOIN" && $0.sourceNick == "MapBot")
                || ($0.command == "353"
                    && ($0.parameters.last ?? "").split(separator: " ").contains { $0.hasSuffix("MapBot") })
        }
        _ = try await OperatorErasureLiveTests.ask(student, "!login \(email) \(password)", "Welcome, Zora Feedley!")
        _ = try await OperatorErasureLiveTests.ask(
            student, "!post Seattle, WA | https://example.org/zora", "You are on the map")
        _ = try await OperatorErasureLiveTests.ask(student, "!post Lisbon until in 3 days", "You are in Lisbon")

        let trips = try await OperatorErasureLiveTests.ask(student, "!mydata links", "Your trips as a calendar feed")
        let root = "http://127.0.0.1:\(webPort)/me/"
        let tripsURL = try #require(trips.split(separator: " ").last.map(String.init), "\(trips)")
        #expect(tripsURL.hasPrefix(root) && tripsURL.hasSuffix("/trips.ics"), "\(tripsURL)")
        let token = String(tripsURL.dropFirst(root.count).dropLast("/trips.ics".count))
        let pinsURL = root + token + "/pins.geojson"

        let headers = folder.file("headers.txt")
        let pins = try await LiveBotSetup.curl(["-D", headers, pinsURL])
        #expect(pins.status == 200, "\(pins.text)")
        let pinHeaders = try String(contentsOfFile: headers, encoding: .utf8).lowercased()
        #expect(pinHeaders.contains("content-type: application/geo+json"), "\(pinHeaders)")
        #expect(pinHeaders.contains("cache-control: private, no-store"))
        #expect(pinHeaders.contains("referrer-policy: no-referrer"))
        #expect(pinHeaders.contains("content-disposition: attachment; filename=\"my-pin.geojson\""))
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(pins.text.utf8)) as? [String: Any], "\(pins.text)")
        #expect(document["type"] as? String == "FeatureCollection")
        let features = try #require(document["features"] as? [[String: Any]])
        #expect(features.count == 2, "\(pins.text)")
        let kinds = features.compactMap { ($0["properties"] as? [String: Any])?["kind"] as? String }
        #expect(kinds == ["home", "trip"])
        let home = try #require(features.first?["geometry"] as? [String: Any])
        let point = try #require(home["coordinates"] as? [Double])
        // Seattle, longitude first, kept at the class's default level (the city).
        #expect(point.count == 2 && abs(point[0] + 122.33) < 0.1 && abs(point[1] - 47.61) < 0.1, "\(point)")
        let homeProperties = try #require(features.first?["properties"] as? [String: Any])
        #expect(homeProperties["precision"] as? String == "city", "\(homeProperties)")
        #expect(homeProperties["mediaURL"] as? String == "https://example.org/zora")

        let calendar = try await LiveBotSetup.curl(["-D", headers, tripsURL])
        #expect(calendar.status == 200, "\(calendar.text)")
        let calendarHeaders = try String(contentsOfFile: headers, encoding: .utf8).lowercased()
        #expect(calendarHeaders.contains("content-type: text/calendar; charset=utf-8"), "\(calendarHeaders)")
        #expect(calendarHeaders.contains("cache-control: private, no-store"))
        let text = calendar.text
        #expect(text.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"), "\(text)")
        #expect(text.contains("\r\nBEGIN:VEVENT\r\n") && text.contains("\r\nEND:VCALENDAR\r\n"))
        #expect(text.contains("\r\nLOCATION:Lisbon"), "\(text)")
        #expect(text.contains("\r\nDTSTART;VALUE=DATE:") && text.contains("\r\nDTEND;VALUE=DATE:"))
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "a bare line feed")
        // A calendar app polls the same address again.
        #expect(try await LiveBotSetup.curl([tripsURL]).status == 200)

        let bye = try await OperatorErasureLiveTests.ask(student, "!logout", "You are logged out")
        #expect(bye.contains("your data feed addresses no longer work"), "\(bye)")
        for url in [pinsURL, tripsURL] {
            let gone = try await LiveBotSetup.curl([url])
            #expect(gone.status == 404, "\(url): \(gone.status)")
            #expect(gone.text.hasPrefix("No such feed:"), "\(gone.text)")
        }
        await student.quit()
        process.kill()
        let log = (try? String(contentsOfFile: folder.file("bot.log"), encoding: .utf8)) ?? ""
        // The answer was logged, with the token taken out.
        #expect(log.contains("/me/<redacted>/pins.geojson") && log.contains("/me/<redacted>/trips.ics"))
        #expect(!log.contains(String(token.split(separator: ".").last ?? "")), "the token is in the bot's log")
    }
}
