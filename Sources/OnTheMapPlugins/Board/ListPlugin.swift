import BotKit
import ClassKit
import Foundation
import Localization

/// `!list [page]`: the table of the most recent posts, 10 a page, always sent privately.
public struct ListPlugin: Plugin {
    /// How `!list` pages (not in the config).
    public struct Settings: ClassPluginSettings {
        /// Rows of `!list` per page.
        public var pageSize = 10

        public init() {}

        public func read(_ section: inout SettingsSection) {}
    }

    public static let registration = ClassPluginRegistration("list", settings: Settings.self) {
        ListPlugin(services: Needs($0), settings: $1)
    }

    public let name = "list"
    /// What `!list` uses: who may look and where the answer goes, the class map and the clock.
    public struct Needs: ClassLookup.AudienceNeeds {
        public let settingsInForce: SettingsInForce
        public let logins: LoginGate<StudentLogin>
        public let classMap: ClassMap
        public let now: @Sendable () -> Date
        public let call = ServiceCalls()

        public init(
            settingsInForce: SettingsInForce, logins: LoginGate<StudentLogin>, classMap: ClassMap,
            now: @escaping @Sendable () -> Date
        ) {
            self.settingsInForce = settingsInForce
            self.logins = logins
            self.classMap = classMap
            self.now = now
        }
    }

    let services: Needs
    let settings: Settings

    public init(services: Needs, settings: Settings = Settings()) {
        self.services = services
        self.settings = settings
    }

    public var commands: [Command] {
        let services = self.services
        let pageSize = settings.pageSize
        return [
            Command(
                "list", aliases: ["table"],
                rateLimit: .perUser(every: .seconds(2)),
                examples: [
                    CommandExample(
                        "!list", explained: "example.list.recent",
                        answer: [
                            "The … most recent posts, page 1 of … (newest first):",
                            "1. Jane Doe — Bellevue, WA — https://example.org/jane — …", "…",
                        ], loggedIn: true)
                ]
            ) { call in try await Self.list(call, services, pageSize: pageSize) }
        ]
    }

    static func list(_ call: Invocation, _ services: Needs, pageSize: Int) async throws {
        _ = try ClassLookup.classAudience(call, services)
        let phrases = call.phrases
        var page = 1
        if let word = call.words.first {
            guard call.words.count == 1, let number = Int(word), number >= 1 else {
                throw UserFacingError(phrases("list.pageIsANumber", ["command": call.prefix + "list"]))
            }
            page = number
        }
        let pins = try await services.call { try await services.classMap.recent() }
        let size = max(1, pageSize)
        guard !pins.isEmpty else {
            throw UserFacingError(phrases("near.mapEmpty", ["hint": "/msg \(call.botNick) \(call.prefix)post"]))
        }
        let pages = (pins.count + size - 1) / size
        guard page <= pages else {
            throw UserFacingError(phrases("list.onlyPages", ["count": pages, "command": call.prefix + "list"]))
        }
        let now = services.now()
        let first = (page - 1) * size
        let rows = pins[first..<min(pins.count, first + size)].enumerated().map { offset, pin in
            "\(first + offset + 1). " + Formatting.student(pin, now: now, phrases: phrases)
        }
        var lines = [phrases("list.header", ["count": pins.count, "page": page, "pages": pages])] + rows
        if page < pages { lines.append(phrases("list.more", ["command": "\(call.prefix)list \(page + 1)"])) }
        await call.replyPrivately(lines: lines)
        if !call.isPrivate {
            await call.reply(phrases("list.sentPrivately", ["page": page, "pages": pages]))
        }
    }
}
