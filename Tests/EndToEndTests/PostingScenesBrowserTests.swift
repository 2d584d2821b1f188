import BotTesting
import Foundation
import OnTheMapService
import Testing

/// The web map's student scenes in a real browser (headless Chromium driven by Selenium:
/// `Tests/Browser/posting_scenes.py`) against the served page and `/v1` API on SQLite and PostgreSQL.
/// Needs Debian's `chromium`, `chromium-driver` and `python3-selenium` (CI installs them).
@Suite("Posting scenes in Chromium", .tags(.runsAlone), .serialized)
struct PostingScenesBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Browser/posting_scenes.py").path

    /// A student logs in (after an empty form and a wrong password), is refused "online", picks
    /// Seattle from the "did you mean" for "Seatle", is refused a `javascript:` link, posts and sees
    /// her pin's popup; cancels a post at the place step and at the replace step; posts Lisbon and
    /// replaces the Seattle pin only after saying yes; is refused a trip ending in the past, then
    /// posts one to Tokyo (the table shows it); logs out, after which the browser's cookie writes
    /// nothing. The directory then holds one pin of hers, at Lisbon with the last link, and the trip.
    @Test(arguments: ServedBackend.allCases)
    func aStudentLogsInPostsReplacesAndLogsOut(_ backend: ServedBackend) async throws {
        try await ServedClassAPI.with(backend) { api in
            let before = try await api.snapshot()
            let page = String(api.baseURL.dropLast("/v1".count))
            let tokyo = TimeZone(identifier: "Asia/Tokyo")!
            let lastDay = LocalClock(timeZone: tokyo, instant: Date()).localDay.adding(days: 3)
            let (status, output) = try await runProcess(
                "/usr/bin/python3",
                [Self.script, page, api.ada.email, api.ada.password, lastDay.isoText, lastDay.shortText],
                timeout: .seconds(180))
            #expect(status == 0, "\(output)")
            #expect(output.contains("scenes passed"), "\(output)")

            let after = try await api.snapshot()
            let hers = after.filter { $0.uniqueKey == api.ada.key }
            #expect(hers.count == 1, "\(hers)")
            #expect(hers.first?.mapString.hasPrefix("Lisbon") == true, "\(hers)")
            #expect(hers.first?.mediaURL == "https://ada.example/lisbon", "\(hers)")
            let latitude = hers.first?.coordinate.latitude ?? 0
            let longitude = hers.first?.coordinate.longitude ?? 0
            #expect(abs(latitude - 38.72) < 0.2 && abs(longitude + 9.14) < 0.2, "\(hers)")
            #expect(hers.first?.firstName == "Ada" && hers.first?.lastName == "Lovelace")
            // The trip is kept beside the Lisbon pin, to the end of its last day in Tokyo.
            #expect(hers.first?.trip?.mapString.hasPrefix("Tokyo") == true, "\(hers)")
            #expect(hers.first?.trip?.endsAt == lastDay.adding(days: 1).start(in: tokyo), "\(hers)")
            // Nobody else's pin moved, and no pin for the refused places or links was written.
            #expect(after.filter { $0.uniqueKey != api.ada.key } == before)
        }
    }
}
