import BotKit
import BotTesting
@testable import ClassKit
import Foundation
import OnTheMapApp
import OnTheMapPlugins
import Testing

@testable import OnTheMapService

/// The class map's sign-in in a real browser (headless Chromium driven by Selenium:
/// `Tests/Browser/class_signin.py`) against the served page over SQLite, with the link a student
/// gets from a private `!map` through the real command router. Needs Debian's `chromium`,
/// `chromium-driver` and `python3-selenium` (CI installs them).
@Suite("Class sign-in in Chromium", .tags(.runsAlone), .serialized)
struct ClassSignInBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Browser/class_signin.py").path

    /// Signed out, the page shows no student's name (map, popups, table); Ada logs in on IRC and
    /// asks `!map` privately; her link, after a preview fetch, signs Chromium in once (the names
    /// appear) and is refused the second time, signing nothing in.
    @Test func aPrivateMapLinkSignsChromiumInOnce() async throws {
        try await ServedClassAPI.with(.sqlite, settings: ClassAPI.Settings(readRequiresLogin: true)) { api in
            let page = String(api.baseURL.dropLast("/v1".count))
            api.services.update(
                settings: ClassSettings(webMapURL: page + "/", privacy: PrivacyPolicy(visibility: .class)))
            let bot = TestBot(
                plugins: ClassPlugins.make(enabled: ["login", "map"], services: api.services),
                gate: api.services.logins)
            let welcome = await bot.dm("!login \(api.ada.email) \(api.ada.password)", as: "ada")
            #expect(welcome.first?.text.hasPrefix("Welcome") == true, "\(welcome)")
            let answer = await bot.dm("!map", as: "ada").map(\.text)
            let line = try #require(answer.first { $0.contains("/signin#") }, "\(answer)")
            let link = try #require(line.split(separator: " ").last.map(String.init))
            #expect(link.hasPrefix(page + "/signin#"))

            let (status, output) = try await runProcess(
                "/usr/bin/python3", [Self.script, page, link, "First1", "Last3", "First5"], timeout: .seconds(180))
            #expect(status == 0, "\(output)")
            #expect(output.contains("sign-in scenes passed"), "\(output)")
        }
    }

    /// With passwords off, the page offers no password form; Ada, whose services account is linked
    /// and vouched for by the server's `account` tag, asks `!map` privately with no `!login`, and
    /// her link signs Chromium in once.
    @Test func aLinkedServicesAccountSignsChromiumInWithoutAPassword() async throws {
        try await ServedClassAPI.with(
            .sqlite, settings: ClassAPI.Settings(readRequiresLogin: true, passwords: false)
        ) { api in
            let page = String(api.baseURL.dropLast("/v1".count))
            api.services.update(
                settings: ClassSettings(webMapURL: page + "/", privacy: PrivacyPolicy(visibility: .class)))
            try await api.directory.linkServicesAccount(
                accountKey: api.ada.key, network: ClassSettings.defaultNetworkName, servicesAccount: "ada",
                foldedAccount: "ada")
            let bot = TestBot(
                plugins: ClassPlugins.make(enabled: ["login", "map"], services: api.services),
                gate: api.services.logins)
            bot.transport.setAccountTracking(.tagged)
            let answer = await bot.dm("!map", from: bot.user("ada", account: "ada"), tags: ["account": "ada"])
                .map(\.text)
            let line = try #require(answer.first { $0.contains("/signin#") }, "\(answer)")
            let link = try #require(line.split(separator: " ").last.map(String.init))

            let (status, output) = try await runProcess(
                "/usr/bin/python3", [Self.script, "--no-password-form", page, link, "First1", "Last3", "First5"],
                timeout: .seconds(180))
            #expect(status == 0, "\(output)")
            #expect(output.contains("sign-in scenes passed"), "\(output)")
        }
    }
}
