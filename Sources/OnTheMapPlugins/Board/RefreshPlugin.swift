import BotKit
import ClassKit

/// `!refresh`: downloads the most recent posts again and says how many are new; once per
/// channel every 30 seconds (the router enforces the cooldown and says when to try again). It tells
/// the class's size and activity, so while the class is for the class (`web.visibility: class`) it
/// answers only students logged in, like the lookups.
public struct RefreshPlugin: Plugin {
    /// How often `!refresh` may run in one channel.
    static let cooldown: Duration = .seconds(30)

    public static let registration = ClassPluginRegistration("refresh", settings: NoSettings.self) { services, _ in
        RefreshPlugin(services: services)
    }

    public let name = "refresh"
    let services: ClassServices

    public init(services: ClassServices) {
        self.services = services
    }

    public var commands: [Command] {
        let services = self.services
        return [
            Command(
                "refresh", usage: "!refresh",
                help: "Reads what changed on the map and says how many of the most recent posts are new.",
                rateLimit: .perVenue(every: Self.cooldown),
                examples: [
                    CommandExample(
                        "!refresh", answer: "Refreshed: … posts on the map; none is new since the last refresh.",
                        loggedIn: true)
                ]
            ) { call in
                try ClassLookups.requireClassMember(call, services)
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
