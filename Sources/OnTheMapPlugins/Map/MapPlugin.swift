import BotKit
import Foundation
import OnTheMapService

/// `!map [place]`: the link to the bot's web map, when it is on; with a place (or
/// `<lat>,<lon>`), a link that centres the map there.
public struct MapPlugin: Plugin {
    public static let registration = ClassPluginRegistration("map", settings: NoSettings.self) { services, _ in
        MapPlugin(services: services)
    }

    public let name = "map"
    let services: ClassServices

    public init(services: ClassServices) {
        self.services = services
    }

    public var commands: [Command] {
        let url = services.settings.webMapURL
        return [
            Command(
                "map", usage: "!map [place]",
                help: "A link to the class map on the web, with every pin; with a place, centred there.",
                examples: [
                    CommandExample("!map", answer: "The class map: http…"),
                    CommandExample("!map Paris", answer: "The class map around Paris: http…?focus=Paris"),
                ]
            ) { call in
                guard let url, !url.isEmpty else {
                    await call.reply(
                        "The web map is not turned on for this class; try \(call.prefix)near, \(call.prefix)where or \(call.prefix)list instead."
                    )
                    return
                }
                let place = call.argument.trimmingCharacters(in: .whitespaces)
                if place.isEmpty {
                    await call.reply("The class map: \(Formatting.clean(url, maxBytes: 300))")
                } else {
                    let link = Self.focusLink(base: url, focus: String(place.prefix(100)))
                    let text = Formatting.clean(link, maxBytes: 400)
                    await call.reply("The class map around \(Formatting.place(place)): \(text)")
                }
            }
        ]
    }

    /// Characters left as they are in a `focus` query value.
    static let queryValueCharacters: CharacterSet = {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&+=#?/ ")
        return allowed
    }()

    /// `base` with `?focus=<text>` (percent-encoded; `&focus=` when `base` has a query already).
    public static func focusLink(base: String, focus: String) -> String {
        let value = focus.addingPercentEncoding(withAllowedCharacters: queryValueCharacters) ?? ""
        let separator = base.contains("?") ? "&" : "?"
        return "\(base)\(separator)focus=\(value)"
    }

    /// The web map centred on `coordinate`, or nil when the web map is off.
    public static func focusLink(base: String?, coordinate: Coordinate) -> String? {
        guard let base, !base.isEmpty else { return nil }
        let latitude = (coordinate.latitude * 10_000).rounded() / 10_000
        let longitude = (coordinate.longitude * 10_000).rounded() / 10_000
        return focusLink(base: base, focus: "\(latitude),\(longitude)")
    }
}
