import BotKit
import ClassKit
import Localization

/// `!refresh`: downloads the most recent posts again and says how many are new; once per
/// channel every 30 seconds (the router enforces the cooldown and says when to try again). It tells
/// the class's size and activity, so while the class is for the class (`web.visibility: class`) it
/// answers only students logged in, like the lookups.
public struct RefreshPlugin: Plugin {
    /// How often `!refresh` may run in one channel.
    static let cooldown: Duration = .seconds(30)

    public static let registration = ClassPluginRegistration("refresh", settings: NoSettings.self) { services, _ in
        RefreshPlugin(services: Needs(services))
    }

    /// What `!refresh` uses: who may look, and the class map.
    public struct Needs: ClassLookup.AudienceNeeds {
        public let settingsInForce: SettingsInForce
        public let logins: LoginGate<StudentLogin>
        public let classMap: ClassMap
        public let call = ServiceCalls()

        public init(settingsInForce: SettingsInForce, logins: LoginGate<StudentLogin>, classMap: ClassMap) {
            self.settingsInForce = settingsInForce
            self.logins = logins
            self.classMap = classMap
        }
    }

    public let name = "refresh"
    let services: Needs

    public init(services: Needs) {
        self.services = services
    }

    public var commands: [Command] {
        let services = self.services
        return [
            Command(
                "refresh",
                rateLimit: .perVenue(every: Self.cooldown),
                examples: [
                    CommandExample(
                        "!refresh", explained: "example.refresh.map",
                        answer: "Refreshed: … posts on the map; none is new since the last refresh.",
                        loggedIn: true)
                ]
            ) { call in
                _ = try ClassLookup.classAudience(call, services)
                let result = try await services.call { try await services.classMap.refresh() }
                let total = result.pins.count
                let fresh = result.fresh.count
                let pins = call.phrases("refresh.posts", ["count": total])
                let new = fresh == 0 ? call.phrases("refresh.noneNew") : call.phrases("refresh.new", ["count": fresh])
                await call.reply(call.phrases("refresh.done", ["posts": pins, "new": new]))
            }
        ]
    }
}
