import BotKit
import ClassKit
import Foundation
import OnTheMapService
import Localization

/// `!map [place]`: the link to the bot's web map, when it is on, and the address of its picture
/// (`/map.png`); with a place (or `<lat>,<lon>`), a link that centres the map there.
///
/// When the class map is for the class (`web.visibility: class`), `!map` said privately by a
/// student logged in with `!login` also answers with a personal sign-in link (``SignInLinks``):
/// it signs the browser that opens it in as that student, once, within ten minutes. Said in a
/// channel, `!map` answers with the plain address only.
public struct MapPlugin: Plugin {
    public static let registration = ClassPluginRegistration("map", settings: NoSettings.self) { services, _ in
        MapPlugin(services: Needs(services))
    }

    /// What `!map` uses: the web map's address and the privacy rules, who is logged in, and the
    /// state store its sign-in links are kept in (on a directory that keeps its own accounts).
    public struct Needs: ReadsClassSettings, ReadsSessions {
        public let settingsInForce: SettingsInForce
        public let logins: LoginGate<StudentLogin>
        public let accounts: (any AccountDirectory)?
        public let stateStore: (any BotStateStore)?
        public let now: @Sendable () -> Date
        public let call = ServiceCalls()

        public init(
            settingsInForce: SettingsInForce, logins: LoginGate<StudentLogin>, accounts: (any AccountDirectory)?,
            stateStore: (any BotStateStore)?, now: @escaping @Sendable () -> Date
        ) {
            self.settingsInForce = settingsInForce
            self.logins = logins
            self.accounts = accounts
            self.stateStore = stateStore
            self.now = now
        }
    }

    public let name = "map"
    let services: Needs

    public init(services: Needs) {
        self.services = services
    }

    public var commands: [Command] {
        let url = services.settings.webMapURL
        return [
            Command(
                "map",
                examples: [
                    CommandExample(
                        "!map", explained: "example.map.link",
                        answer: "The class map: http… — as a picture: http…/map.png"),
                    CommandExample(
                        "!map Paris", explained: "example.map.place",
                        answer: "The class map around Paris: http…?focus=Paris"),
                ]
            ) { call in
                guard let url, !url.isEmpty else {
                    await call.reply(call.phrases("map.off", ["prefix": call.prefix]))
                    return
                }
                let place = call.argument.trimmingCharacters(in: .whitespaces)
                let first: String
                if place.isEmpty {
                    first = call.phrases(
                        "map.link",
                        [
                            "link": Formatting.clean(url, maxBytes: 300),
                            "picture": Formatting.clean(Self.pictureLink(base: url), maxBytes: 300),
                        ])
                } else {
                    let link = Self.focusLink(base: url, focus: String(place.prefix(100)))
                    let text = Formatting.clean(link, maxBytes: 400)
                    first = call.phrases(
                        "map.linkAround", ["place": Formatting.place(place, phrases: call.phrases), "link": text])
                }
                guard call.isPrivate, services.settings.privacy.classOnly else {
                    await call.reply(first)
                    return
                }
                await call.reply(lines: [first, try await Self.signInLine(call, services, base: url)])
            }
        ]
    }

    /// The second line of a private `!map` in a class-only class: the student's sign-in link, or
    /// the sentence saying why there is none.
    static func signInLine(_ call: Invocation, _ services: Needs, base: String) async throws -> String {
        guard let bound = services.session(of: call) else {
            return call.phrases(
                "map.logInForPins",
                ["hint": "/msg \(call.botNick) \(call.prefix)login", "command": call.prefix + "map"])
        }
        guard services.accounts != nil, let store = services.stateStore else {
            return call.phrases("map.noSignIn", ["prefix": call.prefix])
        }
        let links = SignInLinks(store: store, now: services.now)
        let token = try await services.call { try await links.issue(accountKey: bound.profile.accountKey) }
        return call.phrases("map.signInLink", ["link": signInLink(base: base, token: token)])
    }

    /// The page that opens a sign-in link: `<base>/signin#<token>`. The token is in the fragment,
    /// which browsers never send to a server: a chat client's link preview that fetches the page
    /// gets a button, not a session, and no access log ever holds the token.
    public static func signInLink(base: String, token: String) -> String {
        "\(root(of: base))/signin#\(token)"
    }

    /// The map as a picture, `<base>/map.png`: a PNG that a chat client shows, and that the page's
    /// link preview shows too.
    public static func pictureLink(base: String) -> String {
        "\(root(of: base))/map.png"
    }

    /// The web map's address without its query or fragment and without a trailing slash.
    public static func root(of base: String) -> String {
        var root = base
        if let cut = root.firstIndex(where: { $0 == "?" || $0 == "#" }) { root = String(root[..<cut]) }
        while root.hasSuffix("/") { root.removeLast() }
        return root
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
