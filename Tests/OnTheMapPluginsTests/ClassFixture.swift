import BotKit
import BotTesting
@testable import ClassKit
import Foundation
import IRCProtocol
import Logging
import OnTheMapPlugins
import SQLiteDirectory
import NIOConcurrencyHelpers
import Testing

@testable import OnTheMapService

/// The offline gazetteer, loaded once for the whole test process.
enum SharedGazetteer {
    static let geocoder: GazetteerGeocoder = {
        do { return try GazetteerGeocoder.loadBundled() } catch { fatalError("gazetteer: \(error)") }
    }()

    /// The coordinate the bot will use for `place` (the first candidate).
    static func coordinate(of place: String) async throws -> Coordinate {
        try #require(try await geocoder.geocode(place, limit: 1).first).coordinate
    }
}

/// A wall clock the test moves by hand, for the login throttle on its own.
final class TestWallClock: Sendable {
    private let current = NIOLockedValueBox(Date())
    var now: Date { current.withLockedValue { $0 } }
    func advance(seconds: TimeInterval) { current.withLockedValue { $0 = $0.addingTimeInterval(seconds) } }
}

/// A directory in front of the SQLite one that can be made to fail like an unreachable backend.
final class SwitchableDirectory: StudentDirectory, TripDirectory {
    let base: SQLiteStudentDirectory
    private let fault = NIOLockedValueBox<ServiceError?>(nil)
    private let injected = NIOLockedValueBox<[StudentLocation]>([])

    init(base: SQLiteStudentDirectory) { self.base = base }

    /// Adds pins the SQLite directory would refuse (messy shared data, as on the Udacity API).
    func inject(_ pin: StudentLocation) { injected.withLockedValue { $0.insert(pin, at: 0) } }

    func setFault(_ error: ServiceError?) { fault.withLockedValue { $0 = error } }
    private func check() throws { if let error = fault.withLockedValue({ $0 }) { throw error } }

    var backendName: String { base.backendName }
    var signUpURL: String? { base.signUpURL }
    func logIn(email: String, password: String) async throws -> DirectorySession {
        try check()
        return try await base.logIn(email: email, password: password)
    }
    func logOut(_ session: DirectorySession) async throws {
        try check()
        try await base.logOut(session)
    }
    func profile(accountKey: String, session: DirectorySession?) async throws -> StudentProfile {
        try check()
        return try await base.profile(accountKey: accountKey, session: session)
    }
    func recentLocations(limit: Int, skip: Int) async throws -> [StudentLocation] {
        try check()
        let extra = injected.withLockedValue { $0 }
        let stored = try await base.recentLocations(limit: limit + skip, skip: 0)
        return Array((extra + stored).dropFirst(skip).prefix(limit))
    }
    /// The SQLite change feed; none once messy pins were injected (like the Udacity API, which has
    /// none), so the class map reads the injected pins through ``recentLocations(limit:skip:)``.
    func locationChanges(after revision: Int64, limit: Int) async throws -> PinChangePage? {
        try check()
        if !injected.withLockedValue({ $0.isEmpty }) { return nil }
        return try await base.locationChanges(after: revision, limit: limit)
    }
    func location(ofAccount accountKey: String) async throws -> StudentLocation? {
        try check()
        return try await base.location(ofAccount: accountKey)
    }
    func createLocation(_ draft: KeptPin, session: DirectorySession?) async throws -> StudentLocation {
        try check()
        return try await base.createLocation(draft, session: session)
    }
    func updateLocation(objectId: String, with draft: KeptPin, session: DirectorySession?) async throws
        -> StudentLocation
    {
        try check()
        return try await base.updateLocation(objectId: objectId, with: draft, session: session)
    }
    func checkHealth() async throws {
        try check()
        try await base.checkHealth()
    }
    func setTrip(_ trip: KeptTrip, ofAccount uniqueKey: String, session: DirectorySession?) async throws
        -> StudentLocation
    {
        try check()
        return try await base.setTrip(trip, ofAccount: uniqueKey, session: session)
    }
    func endTrip(ofAccount uniqueKey: String, session: DirectorySession?) async throws -> Trip? {
        try check()
        return try await base.endTrip(ofAccount: uniqueKey, session: session)
    }
}

/// A class: a temporary SQLite directory and the class plugins on the real router, with one clock
/// the test moves by hand (the router's rate limits, and the plugins' and directory's wall clock).
struct ClassFixture {
    static let password = "correct horse battery"

    let folder: TemporaryDirectory
    let sqlite: SQLiteStudentDirectory
    let directory: SwitchableDirectory
    let services: ClassServices
    let plugins: [any Plugin]
    let bot: TestBot<StudentLogin>
    /// What the bot logged (every level), unless the test gave a logger of its own: a test waits
    /// here for a line the plugins log (the announcer's "announcer round finished").
    let log = WaitableLines()

    /// The class plugins named in `plugins` with their default settings, except those that
    /// `replacing` builds (with the settings a test needs), plus help/ping. The per-user limits
    /// (flood guard, cooldowns) are on only with `userLimits`.
    ///
    /// `visibility` replaces the one in `settings`: public unless a test asks for `.class` (the
    /// product's default), because most tests here are about what a command answers, not about
    /// who may ask; the class rules have their own tests (`ClassVisibilityTests`).
    init(
        settings: ClassSettings = ClassSettings(announceChannels: ["#class"]),
        visibility: PrivacyPolicy.Visibility = .public,
        signUpURL: String? = "https://signup.example/join", folder: TemporaryDirectory? = nil,
        plugins: [String] = ClassPlugins.names, replacing: (ClassServices) -> [any Plugin] = { _ in [] },
        userLimits: Bool = false, trips: Bool = true, logger: Logger? = nil,
        passwordHasher: PasswordHasher = PasswordHasher(uncheckedRounds: 1_000),
        loginThrottlePolicy: LoginThrottle.Policy = .init()
    ) throws {
        let folder = try folder ?? TemporaryDirectory(prefix: "plugins")
        let clock = ManualBotClock()
        let now = clock.wallClock()
        let sqlite = try SQLiteStudentDirectory(
            path: folder.file("class.sqlite"),
            options: LocalDirectoryOptions(signUpURL: signUpURL, passwordHasher: passwordHasher, clock: now))
        let directory = SwitchableDirectory(base: sqlite)
        var settings = settings
        settings.privacy.visibility = visibility
        let services = ClassServices(
            directory: directory, trips: trips ? directory : nil, accounts: sqlite, stateStore: sqlite,
            geocoder: SharedGazetteer.geocoder, places: SharedGazetteer.geocoder,
            settings: settings, loginThrottlePolicy: loginThrottlePolicy, now: now)
        self.folder = folder
        self.sqlite = sqlite
        self.directory = directory
        self.services = services
        let replaced = replacing(services)
        let plugins =
            ClassPlugins.make(enabled: plugins, services: services).map { plugin in
                replaced.first { $0.name == plugin.name } ?? plugin
            } + [CorePlugin(conversationCommands: [LanguageCommand(services: .init(services)).command])]
        self.plugins = plugins
        // Many commands from one test user: no flood ignore (tested in BotKit).
        self.bot = TestBot(
            plugins: plugins,
            settings: userLimits
                ? CommandRouter.Settings(floodGuard: CommandFloodGuard(maxCommands: 10_000))
                : CommandRouter.Settings.unlimited,
            gate: services.logins, logger: logger ?? WaitableLogHandler.logger(log), clock: clock,
            languageChoices: services.languages)
    }

    /// The wall clock of the class (the bot's clock as a date).
    var now: Date { bot.now() }

    /// Moves the one clock forward.
    func advance(seconds: Double) {
        bot.clock.advance(by: .milliseconds(Int64((seconds * 1000).rounded())))
    }

    /// The plugin of type `P` (there is one of each).
    func plugin<P: Plugin>(_ type: P.Type) throws -> P {
        try #require(plugins.lazy.compactMap { $0 as? P }.first)
    }

    /// Adds an account with the shared test password.
    @discardableResult
    func addStudent(_ email: String, _ first: String, _ last: String) async throws -> LocalAccount {
        try await sqlite.addAccount(email: email, password: Self.password, firstName: first, lastName: last)
    }

    /// Puts a pin for an account straight into the directory (as if posted elsewhere).
    @discardableResult
    func addPin(
        email: String, first: String, last: String, place: String, at coordinate: Coordinate,
        link: String = "https://example.org/me"
    ) async throws -> StudentLocation {
        let account = try await addStudent(email, first, last)
        let session = try await sqlite.logIn(email: email, password: Self.password)
        let pin = try await sqlite.createLocation(
            asTyped: PinDraft(
                uniqueKey: account.accountKey, firstName: first, lastName: last, mapString: place,
                mediaURL: link,
                coordinate: coordinate),
            session: session)
        try await sqlite.logOut(session)
        return pin
    }

    /// Logs `nick` in privately; returns the bot's answer texts.
    @discardableResult
    func logIn(_ nick: String, email: String, password: String = ClassFixture.password) async -> [String] {
        await dm("!login \(email) \(password)", as: nick)
    }

    /// Like ``dm(_:as:)`` but with every line (targets included).
    func dmLines(_ text: String, as nick: String) async -> [OutgoingText] {
        await bot.dm(text, as: nick)
    }

    func dm(_ text: String, as nick: String) async -> [String] {
        await bot.dm(text, as: nick).map(\.text)
    }

    func say(_ text: String, in channel: String = "#class", as nick: String) async -> [OutgoingText] {
        await bot.say(text, in: channel, as: nick)
    }
}

/// Expected distance text, computed independently of the plugin's formatter.
func expectedDistance(_ a: Coordinate, _ b: Coordinate, miles: Bool = false) -> String {
    var value = GreatCircle.distanceKilometres(a, b)
    if miles { value /= 1.609_344 }
    let number = Int(value.rounded())
    let formatter = NumberFormatter()
    formatter.numberStyle = .decimal
    formatter.groupingSeparator = ","
    formatter.usesGroupingSeparator = true
    formatter.groupingSize = 3
    formatter.locale = Locale(identifier: "en_US_POSIX")
    let text = formatter.string(from: NSNumber(value: number)) ?? String(number)
    return "\(text) \(miles ? "mi" : "km")"
}
