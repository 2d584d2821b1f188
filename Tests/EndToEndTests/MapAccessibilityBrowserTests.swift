import BotTesting
import Foundation
import OnTheMapApp
import Testing

/// The class map's accessibility in a real browser (headless Chromium driven by Selenium:
/// `Tests/Browser/map_accessibility.py`, with axe-core from PyPI's `axe-selenium-python`) against
/// the served page and `/v1` API of a class map on SQLite. Needs Debian's `chromium`,
/// `chromium-driver` and `python3-selenium`, and `axe-selenium-python` (`scripts/install-deps.sh`).
/// It measures nothing against the clock (every step waits for what it checks), so it runs beside
/// other suites that start processes rather than alone.
@Suite("Map accessibility in Chromium", .tags(.startsProcesses), .serialized, .timeLimit(.minutes(5)))
struct MapAccessibilityBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Browser/map_accessibility.py").path

    /// axe-core finds no violation on the signed-out map, the log-in scene (with its error), the
    /// map with the class's five pins, its list and a popup, the Table tab, each step of the
    /// posting scene (place, link with an error, done, replace) and the sign-in link's page, and
    /// no target under 24 px crowds another; the keyboard alone tabs to the list, whose Show on map moves the map until a
    /// pin's popup opens with the focus in it, every focus shown; each zoom and pan button moves
    /// the view with one press, and the live region follows.
    @Test func everySceneIsCleanAndTheMapWorksByKeyboardAndButtons() async throws {
        try await ServedClassAPI.with(.sqlite, settings: ClassAPI.Settings(readRequiresLogin: true)) { api in
            let page = String(api.baseURL.dropLast("/v1".count))
            let (status, output) = try await runProcess(
                "/usr/bin/python3", [Self.script, page, api.ada.email, api.ada.password, "\(api.pins.count)"],
                timeout: .seconds(240))
            #expect(status == 0, "\(output)")
            #expect(output.contains("accessibility passed"), "\(output)")
        }
    }
}
