import BotKit

/// `!map`: the link to the bot's web map, when it is on.
public struct MapPlugin: Plugin {
    public let name = "map"
    let services: ClassServices

    public init(services: ClassServices) {
        self.services = services
    }

    public var commands: [Command] {
        let url = services.settings.webMapURL
        return [
            Command("map", usage: "!map", help: "A link to the class map on the web, with every pin.") {
                call in
                guard let url, !url.isEmpty else {
                    await call.reply(
                        "The web map is not turned on for this class; try \(call.prefix)near, \(call.prefix)where or \(call.prefix)list instead."
                    )
                    return
                }
                await call.reply("The class map: \(Formatting.clean(url, maxBytes: 300))")
            }
        ]
    }
}
