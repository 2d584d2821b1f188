import BotKit
import ClassKit
import Foundation
import IRCProtocol
import Localization
import OnTheMapService

/// `!where <name or nick>`: finds classmates by first, last or full name (case- and
/// accent-insensitive) or by the nick of someone logged in.
public struct WherePlugin: Plugin {
    public static let registration = ClassPluginRegistration("where", settings: NoSettings.self) { services, _ in
        WherePlugin(services: Needs(services))
    }

    /// What `!where` uses: the lookup rule's needs, the class clock and the trips' time zones.
    public struct Needs: ClassLookup.Needs {
        public let settingsInForce: SettingsInForce
        public let logins: LoginGate<StudentLogin>
        public let placeFinder: PlaceFinder
        public let directory: any StudentDirectory
        public let classMap: ClassMap
        public let timeZones: PinTimeZones
        public let now: @Sendable () -> Date
        public let call = ServiceCalls()

        public init(
            settingsInForce: SettingsInForce, logins: LoginGate<StudentLogin>, placeFinder: PlaceFinder,
            directory: any StudentDirectory, classMap: ClassMap, timeZones: PinTimeZones,
            now: @escaping @Sendable () -> Date
        ) {
            self.settingsInForce = settingsInForce
            self.logins = logins
            self.placeFinder = placeFinder
            self.directory = directory
            self.classMap = classMap
            self.timeZones = timeZones
            self.now = now
        }
    }

    public let name = "where"
    let services: Needs
    /// The most lines a private answer lists.
    static let privateLimit = 15

    public init(services: Needs) {
        self.services = services
    }

    public var commands: [Command] {
        let services = self.services
        return [
            Command(
                "where", aliases: ["whereis", "find"],
                rateLimit: .perUser(every: .seconds(2)),
                examples: [
                    CommandExample(
                        "!where Ada", explained: "example.where.classmate",
                        answer: "Ada Lovelace — London, UK — https://example.org/ada — …", loggedIn: true),
                    CommandExample(
                        "!where Nobody", explained: "example.where.unknown",
                        answer: "Nobody called \"Nobody\" is on the map (and no one logged in uses that nick).",
                        loggedIn: true),
                ]
            ) { call in try await Self.where(call, services) }
        ]
    }

    /// The first full name two pins or more of `pins` share (compared without case or accents),
    /// with how many share it.
    static func sharedName(among pins: [StudentLocation]) -> (pin: StudentLocation, count: Int)? {
        var counts: [String: Int] = [:]
        for pin in pins { counts[fold(pin.fullName), default: 0] += 1 }
        guard let pin = pins.first(where: { counts[fold($0.fullName), default: 0] > 1 }) else { return nil }
        return (pin, counts[fold(pin.fullName)] ?? 2)
    }

    static func fold(_ name: String) -> String {
        name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    static func `where`(_ call: Invocation, _ services: Needs) async throws {
        let lookup = try await ClassLookup.resolve(call, services, accepting: [.nick, .name], matching: .every)
        let query = call.argument
        let now = services.now()
        let phrases = call.phrases
        var lines: [String] = []
        var names: [String] = []
        let nickMatch: ClassLookup.NickMatch?
        let matches: [StudentLocation]
        switch lookup.found {
        case .nothing:
            throw UserFacingError(call.phrases("where.usage", ["command": call.prefix + "where"]))
        case .classmates(let nick, let named):
            (nickMatch, matches) = (nick, named)
        case .nobody, .place:
            (nickMatch, matches) = (nil, [])
        }

        // A nick with a session first: their own pin.
        if let owner = nickMatch {
            let nick = owner.nick
            if let pin = owner.pin {
                if let away = await TripWording.away(pin, now: now, zones: services.timeZones, phrases: phrases) {
                    lines.append(Formatting.line(["\(nick): \(away)", Formatting.link(pin.mediaURL)]))
                } else {
                    lines.append(
                        phrases(
                            "where.nickIs",
                            ["nick": nick, "student": Formatting.student(pin, now: now, phrases: phrases)]))
                }
                names.append(Formatting.name(pin))
            } else {
                lines.append(phrases("where.nickHasNoPin", ["nick": nick, "name": owner.name]))
                names.append(owner.name)
            }
        }

        // Namesakes are told apart, never picked between: a name several pins share is said first,
        // then each of them with its place and how long ago it was posted.
        if let shared = Self.sharedName(among: matches) {
            lines.append(phrases("where.namesakes", ["count": shared.count, "name": Formatting.name(shared.pin)]))
        }
        // A student on a trip: "Jane Doe is in Lisbon until 24 Dec".
        for pin in matches {
            names.append(Formatting.name(pin))
            if let away = await TripWording.away(pin, now: now, zones: services.timeZones, phrases: phrases) {
                lines.append(Formatting.line([away, Formatting.link(pin.mediaURL)]))
            } else {
                lines.append(Formatting.student(pin, now: now, phrases: phrases))
            }
        }

        guard !lines.isEmpty else {
            let shown = Formatting.clean(query, maxBytes: 60)
            throw UserFacingError(phrases("where.nobody", ["query": shown]))
        }
        let privately = await lookup.audience.answersAskerAlone()
        let cap = privately ? privateLimit : call.channelLineCap
        if lines.count <= cap {
            await lookup.audience.answer(lines: lines, naming: names)
            return
        }
        let keep = max(1, cap - 1)
        let more = lines.count - keep
        let hint =
            privately
            ? phrases("where.moreTryFuller", ["count": more])
            : phrases(
                "where.moreAskPrivately",
                [
                    "count": more,
                    "hint": "/msg \(call.botNick) \(call.prefix)where \(Formatting.clean(query, maxBytes: 60))",
                ])
        await lookup.audience.answer(lines: Array(lines.prefix(keep)) + [hint], naming: names)
    }
}
