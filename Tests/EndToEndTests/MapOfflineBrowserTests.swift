import BotTesting
import Foundation
import OnTheMapApp
import Testing

/// The class map as an installed, offline-capable app in a real browser (headless Chromium driven
/// by Selenium: `Tests/Browser/map_offline.py`, which puts a relay it can stop between the browser
/// and the served page and `/v1` API of a class map on SQLite). Needs Debian's `chromium`,
/// `chromium-driver` and `python3-selenium`.
@Suite("Map offline in Chromium", .tags(.runsAlone), .serialized)
struct MapOfflineBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Browser/map_offline.py").path

    /// The manifest is served and valid, with its icons; the service worker controls the page;
    /// signed in, with the network gone, a reload shows the five kept pins and "Offline: 5 pins as
    /// of HH:MM"; back online the status is live; after the logout the pins' cache is empty and an
    /// offline reload shows none of the class's names.
    @Test func theMapInstallsShowsItsKeptPinsOfflineAndForgetsThemAtLogout() async throws {
        try await ServedClassAPI.with(.sqlite, settings: ClassAPI.Settings(readRequiresLogin: true)) { api in
            let page = String(api.baseURL.dropLast("/v1".count))
            let names = api.pins.flatMap { [$0.firstName, $0.lastName] }
            let (status, output) = try await runProcess(
                "/usr/bin/python3",
                [Self.script, page, api.ada.email, api.ada.password, "\(api.pins.count)"] + names,
                timeout: .seconds(240))
            #expect(status == 0, "\(output)")
            #expect(output.contains("offline passed"), "\(output)")
        }
    }
}
