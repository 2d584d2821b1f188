import BotKit
import ClassKit
import Foundation
import FuzzingSupport
import IRCProtocol
import Logging
import NIOConcurrencyHelpers
import OnTheMapPlugins
import OnTheMapService

/// One chat line through the real router and class plugins, from a logged-in student, in a
/// private message and in a channel. Afterwards: every reply is printable (CTCP delimiters
/// aside) and every saved pin has a valid place and an acceptable link.
enum RouterRun {
    static let botNick = "OnTheMapBot"
    static let student = UserIdentity(nick: "student", user: "s", host: "school.example")
    static let quiet = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })

    static func run(_ text: String) {
        let directory = MemoryDirectory()
        let transport = RecordingTransport()
        let services = ClassServices(
            directory: directory, trips: nil, geocoder: ArgumentProperties.geocoder,
            places: ArgumentProperties.geocoder,
            settings: ClassSettings(announceChannels: ["#class"]))
        let plugins = ClassPlugins.make(
            enabled: ["login", "where", "near", "post", "list"], services: services)
        let router = CommandRouter(
            plugins: plugins + [CorePlugin()],
            settings: CommandRouter.Settings(floodGuard: CommandFloodGuard(maxCommands: 1_000)),
            transport: transport, gate: services.logins, logger: quiet)
        blocking {
            let profile = StudentProfile(
                accountKey: MemoryDirectory.session.accountKey, firstName: "Ada", lastName: "Lovelace")
            await services.sessions.bind(
                StudentLogin(session: MemoryDirectory.session, profile: profile), to: Self.student)
            await router.handle(IRCUserMessage(sender: Self.student, origin: .privateMessage, text: text))
            await router.handle(IRCUserMessage(sender: Self.student, origin: .channel("#class"), text: text))
            await router.waitUntilIdle()
        }
        for line in transport.sent {
            fuzzRequire([student.nick, "#class"].contains(line.target), "reply to \(line.target)")
            var reply = Substring(line.text)
            if line.kind == .notice, reply.hasPrefix("\u{01}"), reply.hasSuffix("\u{01}"), reply.count > 1 {
                reply = reply.dropFirst().dropLast()
            }
            fuzzRequire(!reply.isEmpty, "empty reply")
            ArgumentProperties.requireSafeReply(String(reply))
        }
        for pin in directory.saved {
            ArgumentProperties.checkAcceptedLink(pin.mediaURL)
            fuzzRequire(
                !DirectoryInput.containsControlCharacters(pin.mapString), "pin place has control characters")
            fuzzRequire(pin.coordinate.isValid, "pin off the globe")
        }
    }

    /// Waits for async work from libFuzzer's synchronous callback (never from a task).
    static func blocking(_ body: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await body()
            done.signal()
        }
        done.wait()
    }
}

/// Records the router's replies.
final class RecordingTransport: BotTransport {
    private let lines = NIOLockedValueBox<[OutgoingText]>([])
    var sent: [OutgoingText] { lines.withLockedValue { $0 } }

    func send(_ line: OutgoingText) async { lines.withLockedValue { $0.append(line) } }
    func currentNick() async -> String { RouterRun.botNick }
    func identity(ofNick nick: String) async -> UserIdentity? { nil }

    // A recorder has no network to ask: lines go out at once, nobody is looked up or watched.
    func send(lines: [OutgoingText]) async {
        for line in lines { await send(line) }
    }
    func waitUntilSent() async -> Bool { true }
    func hasNothingQueued() async -> Bool { true }
    func lookUpConnection(ofNick nick: String) async -> ConnectionLookup { .notAsked }
    func watchPresence(ofNick nick: String) async -> Bool { false }
    func unwatchPresence(ofNick nick: String) async {}
    func sharesChannel(withNick nick: String) async -> Bool { false }
    func accountTracking() async -> AccountTracking { .none }
    func isOpenChannel(_ channel: String) async -> Bool { false }
}

/// An in-memory class directory for the fuzzer: two classmates' pins, the student's login, and
/// the same input checks (``DirectoryInput``) as the local directories.
final class MemoryDirectory: StudentDirectory {
    static let session = DirectorySession(
        accountKey: "acct-ada", sessionId: "fuzz-session", expiresAt: Date(timeIntervalSinceNow: 86_400))
    private let pins: NIOLockedValueBox<[StudentLocation]>
    private let changed = NIOLockedValueBox<[StudentLocation]>([])

    init() {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        pins = NIOLockedValueBox([
            StudentLocation(
                objectId: "p1", uniqueKey: "acct-grace", firstName: "Grace", lastName: "Hopper",
                mapString: "Arlington, VA", mediaURL: "https://grace.example/",
                coordinate: .init(latitude: 38.88, longitude: -77.1),
                createdAt: date, updatedAt: date),
            StudentLocation(
                objectId: "p2", uniqueKey: "acct-alan", firstName: "Alan", lastName: "Turing",
                mapString: "Wilmslow, England", mediaURL: "https://alan.example/",
                coordinate: .init(latitude: 53.33, longitude: -2.23),
                createdAt: date, updatedAt: date),
        ])
    }

    /// Pins created or updated during the run.
    var saved: [StudentLocation] { changed.withLockedValue { $0 } }

    var backendName: String { "fuzz-memory" }
    var signUpURL: String? { nil }

    func logIn(email: String, password: String) async throws -> DirectorySession {
        try DirectoryInput.requireCredentials(email: email, password: password)
        _ = try DirectoryInput.normalizedEmail(email)
        throw ServiceError.invalidCredentials
    }
    func logOut(_ session: DirectorySession) async throws {}
    func profile(accountKey: String, session: DirectorySession?) async throws -> StudentProfile {
        StudentProfile(accountKey: accountKey, firstName: "Ada", lastName: "Lovelace")
    }
    func recentLocations(limit: Int, skip: Int) async throws -> [StudentLocation] {
        pins.withLockedValue { Array($0.dropFirst(skip).prefix(limit)) }
    }
    func locationChanges(after revision: Int64, limit: Int) async throws -> PinChangePage? { nil }
    func location(ofAccount accountKey: String) async throws -> StudentLocation? {
        pins.withLockedValue { $0.first { $0.uniqueKey == accountKey } }
    }
    func createLocation(_ pin: KeptPin, session: DirectorySession?) async throws -> StudentLocation {
        try save(pin.draft, objectId: "p\(pins.withLockedValue { $0.count } + 1)")
    }
    func updateLocation(objectId: String, with pin: KeptPin, session: DirectorySession?) async throws
        -> StudentLocation
    {
        try save(pin.draft, objectId: objectId)
    }
    func checkHealth() async throws {}

    private func save(_ draft: PinDraft, objectId: String) throws -> StudentLocation {
        try DirectoryInput.validatePin(draft)
        let now = Date()
        let pin = StudentLocation(
            objectId: objectId, uniqueKey: draft.uniqueKey, firstName: draft.firstName,
            lastName: draft.lastName,
            mapString: draft.mapString, mediaURL: draft.mediaURL, coordinate: draft.coordinate,
            createdAt: now,
            updatedAt: now)
        pins.withLockedValue { pins in
            pins.removeAll { $0.objectId == objectId }
            pins.insert(pin, at: 0)
        }
        changed.withLockedValue { $0.append(pin) }
        return pin
    }
}
