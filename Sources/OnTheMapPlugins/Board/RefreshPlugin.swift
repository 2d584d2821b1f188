import BotKit

/// `!refresh`: downloads the most recent posts again and says how many are new; once per
/// channel every 30 seconds (the router enforces the cooldown and says when to try again).
public struct RefreshPlugin: Plugin {
    /// How often `!refresh` may run (not in the config).
    public struct Settings: ClassPluginSettings {
        /// How often `!refresh` may run in one channel.
        public var cooldown: Duration = .seconds(30)

        public init() {}

        public init(cooldown: Duration) {
            self.cooldown = cooldown
        }

        public func read(_ section: inout SettingsSection) {}
    }

    public static let registration = ClassPluginRegistration("refresh", settings: Settings.self) {
        RefreshPlugin(services: $0, settings: $1)
    }

    public let name = "refresh"
    let services: ClassServices
    let settings: Settings

    public init(services: ClassServices, settings: Settings = Settings()) {
        self.services = services
        self.settings = settings
    }

    public var commands: [Command] {
        let services = self.services
        return [
            Command(
                "refresh", usage: "!refresh",
                help: "Reads what changed on the map and says how many of the most recent posts are new.",
                rateLimit: .perVenue(every: settings.cooldown),
                examples: [
                    CommandExample(
                        "!refresh", answer: "Refreshed: … posts on the map; none is new since the last refresh.")
                ]
            ) { call in
                let result = try await services.call { try await services.classMap.refresh() }
                let total = result.pins.count
                let fresh = result.fresh.count
                let pins = total == 1 ? "1 post" : "\(total) posts"
                let new = fresh == 0 ? "none is new" : fresh == 1 ? "1 is new" : "\(fresh) are new"
                await call.reply("Refreshed: \(pins) on the map; \(new) since the last refresh.")
            }
        ]
    }
}
