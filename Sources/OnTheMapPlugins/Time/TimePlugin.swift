import BotKit
import ClassKit
import Foundation
import OnTheMapService
import Localization

/// `!time [name | nick | place]`, `!awake` and `!overlap <name | nick>`: classmates' local times,
/// from the time zone of the place each pin shows (a trip's while it lasts), as the offline
/// gazetteer knows it. Every answer is for the class's clock (the `now` of its `Needs`).
public struct TimePlugin: Plugin {
    public static let registration = ClassPluginRegistration("time", settings: NoSettings.self) { services, _ in
        TimePlugin(services: Needs(services))
    }

    /// What `!time`, `!awake` and `!overlap` use: the lookup rule's needs, the class clock and the
    /// time zones of pins and places.
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

    public let name = "time"
    let services: Needs
    /// The most classmates `!awake` lists in a private answer (a channel gets its line cap).
    static let privateAwakeCount = 10
    /// The most namesakes `!time` lists in a private answer.
    static let privateNamesakeCount = 10

    public init(services: Needs) {
        self.services = services
    }

    public var commands: [Command] {
        let services = self.services
        return [
            Command(
                "time", aliases: ["localtime"],
                rateLimit: .perUser(every: .seconds(2)),
                examples: [
                    CommandExample(
                        "!time Ada", explained: "example.time.classmate",
                        answer: "It is … on … for Ada Lovelace (London, UK, UTC…)", loggedIn: true),
                    CommandExample(
                        "!time Tokyo", explained: "example.time.place", answer: "It is … on … in Tokyo… (UTC+9)"),
                    CommandExample(
                        "!time Zebediahqx", explained: "example.time.unknown",
                        answer:
                            "Nobody called \"Zebediahqx\" is on the map and no place of that name was found; try a classmate's name, a nick or \"City, Country\", e.g. !time Tokyo, Japan",
                        loggedIn: true),
                ]
            ) { call in try await Self.time(call, services) },
            Command(
                "awake", aliases: ["daytime"],
                rateLimit: .perUser(every: .seconds(3)),
                examples: [
                    CommandExample(
                        "!awake", explained: "example.awake.now",
                        answer: ["It is daytime (08:00–22:59) now for … of 31 classmates…", "…"],
                        loggedIn: true)
                ]
            ) { call in try await Self.awake(call, services) },
            Command(
                "overlap",
                rateLimit: .perUser(every: .seconds(2)),
                examples: [
                    CommandExample(
                        "!overlap Ada", explained: "example.overlap.classmate",
                        answer:
                            "You have no pin yet, so I do not know your time: /msg … !post <place> — or ask !time Ada.",
                        loggedIn: true)
                ]
            ) { call in try await Self.overlap(call, services) },
        ]
    }

    // MARK: - !time

    static func time(_ call: Invocation, _ services: Needs) async throws {
        // A stranger may not look classmates up when the map is for the class, but may ask a place.
        let lookup = try await ClassLookup.resolve(
            call, services, accepting: [.nick, .name, .place], anyoneMayAskPlaces: true)
        let audience = lookup.audience
        let argument = call.argument
        let now = services.now()
        let phrases = call.phrases
        let resolution: PlaceResolution
        switch lookup.found {
        case .nothing:
            let pin = try await ownPin(
                call, services, alternative: "\(call.prefix)time " + phrases("time.placeWord"))
            let zone = await zone(of: pin, services, now: now)
            await audience.answer(
                lines: [timeLine(for: pin, zone: zone, now: now, of: .asker, phrases: phrases)], naming: [])
            return
        case .classmates(let nick, let named):
            let pins = try classmates(nick: nick, named: named, call)
            let privately = await audience.answersAskerAlone()
            if pins.count > 1 && !privately {
                // One line in a channel: namesakes are named, and their times sent on request.
                let names = pins.prefix(4).map(Formatting.name).joined(separator: ", ")
                await audience.answer(
                    lines: [
                        phrases(
                            "time.namesakes",
                            [
                                "count": pins.count, "typed": PlaceWording.quoted(argument),
                                "names": names + (pins.count > 4 ? ", …" : ""),
                                "hint":
                                    "/msg \(call.botNick) \(call.prefix)time \(Formatting.clean(argument, maxBytes: 60))",
                            ])
                    ])
                return
            }
            var lines: [String] = []
            for pin in pins.prefix(privateNamesakeCount) {
                let name = Formatting.name(pin)
                lines.append(
                    timeLine(
                        for: pin, zone: await zone(of: pin, services, now: now), now: now, of: .classmate(name),
                        phrases: phrases))
            }
            if pins.count > privateNamesakeCount {
                lines.append(phrases("where.moreTryFuller", ["count": pins.count - privateNamesakeCount]))
            }
            await audience.answer(lines: lines, naming: pins.prefix(privateNamesakeCount).map(Formatting.name))
            return
        case .place(let found):
            resolution = found
        case .nobody:
            resolution = .notFound
        }
        let example = "\(call.prefix)time Tokyo, Japan"
        let place: PlaceCandidate
        var offered: String?
        switch resolution {
        case .found(let found, _):
            place = found
        case .offered(let offers):
            place = offers[0]
            offered = PlaceWording.place(offers[0], phrases: phrases)
        case .notAPlace(let kind):
            throw UserFacingError(
                PlaceWording.notAPlace(kind, typed: argument, example: example, phrases: call.phrases))
        case .notFound:
            throw UserFacingError(
                phrases("time.nobodyNorPlace", ["typed": PlaceWording.quoted(argument), "example": example]))
        }
        var zone = place.timeZone ?? .unknown
        if zone == .unknown {
            zone = await services.timeZones.timeZone(ofPinAt: place.coordinate, named: place.displayName)
        }
        let shown = PlaceWording.place(place, phrases: phrases)
        let line: String
        switch zone {
        case .zone:
            if let timeZone = zone.timeZone {
                let clock = LocalClock(timeZone: timeZone, instant: now)
                line = phrases(
                    "time.inPlace", ["time": clockText(clock, phrases), "place": shown, "offset": clock.offsetText])
            } else {
                line = phrases("time.zoneUnknownPlace", ["place": shown])
            }
        case .several:
            // The example is typed, so it names the place as the gazetteer does.
            line = phrases(
                "time.severalZonesPlace",
                [
                    "place": shown,
                    "example": "\(call.prefix)time \(phrases("time.cityWord")), \(PlaceWording.place(place))",
                ])
        case .unknown:
            line = phrases("time.zoneUnknownPlace", ["place": shown])
        }
        let answer = offered.map { phrases("time.didYouMean", ["place": $0, "answer": line]) } ?? line
        await audience.answer(lines: [answer])
    }

    /// Whose time a line tells.
    enum Subject {
        /// The student who asked.
        case asker
        /// A classmate, by name.
        case classmate(String)
    }

    /// "It is 21:14 on Tuesday for Ada Lovelace (London, UK, UTC+0)", or why it cannot be said.
    static func timeLine(
        for pin: StudentLocation, zone: PlaceTimeZone, now: Date, of subject: Subject, phrases: Phrasebook
    ) -> String {
        let place = Formatting.place(pin.shown(at: now).mapString, phrases: phrases)
        var values: [String: any PhraseValue] = ["place": place]
        let mine: Bool
        switch subject {
        case .asker: mine = true
        case .classmate(let name):
            mine = false
            values["name"] = name
        }
        switch zone {
        case .zone:
            guard let timeZone = zone.timeZone else {
                return phrases(mine ? "time.zoneUnknownYours" : "time.zoneUnknownTheirs", values)
            }
            let clock = LocalClock(timeZone: timeZone, instant: now)
            values["time"] = clockText(clock, phrases)
            values["offset"] = clock.offsetText
            return phrases(mine ? "time.forYou" : "time.forClassmate", values)
        case .several:
            return phrases(mine ? "time.severalZonesYours" : "time.severalZonesTheirs", values)
        case .unknown:
            return phrases(mine ? "time.zoneUnknownYours" : "time.zoneUnknownTheirs", values)
        }
    }

    /// "21:14 on Tuesday", "21:14 el martes".
    static func clockText(_ clock: LocalClock, _ phrases: Phrasebook) -> String {
        phrases(
            "time.clock",
            ["time": phrases.time(hour: clock.hour, minute: clock.minute), "weekday": phrases.weekday(clock.weekday)])
    }

    // MARK: - !awake

    /// A classmate awake now: where their pin is kept, their name and the local clock of their pin.
    struct ClassmateClock {
        var slot: Int32
        var name: String
        var clock: LocalClock
    }

    static func awake(_ call: Invocation, _ services: Needs) async throws {
        let audience = try ClassLookup.classAudience(call, services)
        let now = services.now()
        let phrases = call.phrases
        // The class as kept, one pin made whole at a time: a copy of a class of 100,000 as whole pins
        // would hold 30 MiB for as long as the command runs.
        let store = try await services.call { try await services.classMap.store() }
        let slots = store.liveSlots
        let ownKey = services.session(of: call)?.profile.accountKey
        var ownZone: TimeZone?
        var awake: [ClassmateClock] = []
        var classmates = 0
        var unknown = 0
        for slot in slots {
            let pin = store.pin(at: Int(slot))
            let zone = await zone(of: pin, services, now: now)
            if pin.uniqueKey == ownKey {
                ownZone = zone.timeZone
                continue
            }
            classmates += 1
            guard let timeZone = zone.timeZone else {
                unknown += 1
                continue
            }
            if Daytime.isDaytime(in: timeZone, at: now) {
                awake.append(
                    ClassmateClock(
                        slot: slot, name: Formatting.name(pin), clock: LocalClock(timeZone: timeZone, instant: now)))
            }
        }
        guard classmates > 0 else {
            throw UserFacingError(
                slots.isEmpty
                    ? phrases("near.mapEmpty", ["hint": "/msg \(call.botNick) \(call.prefix)post"])
                    : phrases("near.nobodyElse"))
        }
        // Nearest your time first (the smallest difference of offsets from UTC); without a pin of
        // your own, the earliest in their day first (those with the most daytime left).
        if let ownZone {
            let own = ownZone.secondsFromGMT(for: now)
            awake.sort {
                (abs($0.clock.secondsFromUTC - own), $0.name) < (abs($1.clock.secondsFromUTC - own), $1.name)
            }
        } else {
            awake.sort {
                ($0.clock.hour * 60 + $0.clock.minute, $0.name) < ($1.clock.hour * 60 + $1.clock.minute, $1.name)
            }
        }
        let privately = await audience.answersAskerAlone()
        let count = privately ? privateAwakeCount : max(1, call.channelLineCap - 1)
        let unknownText = unknown == 0 ? "" : phrases("awake.unknown", ["count": unknown])
        let header =
            awake.isEmpty
            ? "awake.header" : ownZone == nil ? "awake.headerEarliestFirst" : "awake.headerNearestFirst"
        var lines = [phrases(header, ["awake": awake.count, "count": classmates, "unknown": unknownText])]
        lines += awake.prefix(count).map {
            Formatting.line([
                $0.name, clockText($0.clock, phrases),
                Formatting.place(store.pin(at: Int($0.slot)).shown(at: now).mapString, phrases: phrases),
            ])
        }
        await audience.answer(lines: lines, naming: awake.prefix(count).map(\.name))
    }

    // MARK: - !overlap

    static func overlap(_ call: Invocation, _ services: Needs) async throws {
        let lookup = try await ClassLookup.resolve(call, services, accepting: [.nick, .name])
        let argument = call.argument
        let phrases = call.phrases
        var found: (nick: ClassLookup.NickMatch?, named: [StudentLocation]) = (nil, [])
        switch lookup.found {
        case .nothing:
            throw UserFacingError(phrases("overlap.withWhom", ["command": call.prefix + "overlap"]))
        case .classmates(let nick, let named):
            found = (nick, named)
        case .nobody, .place:
            break
        }
        let own = try await ownPin(
            call, services, alternative: "\(call.prefix)time \(Formatting.clean(argument, maxBytes: 60))")
        let now = services.now()
        // A channel that hears names only hears no place in a refusal either.
        let withheld = await lookup.audience.withholdsPlaces()
        guard let ownZone = await zone(of: own, services, now: now).timeZone else {
            let hint = "/msg \(call.botNick) \(call.prefix)post"
            throw UserFacingError(
                withheld
                    ? phrases("overlap.ownZoneUnknown", ["hint": hint])
                    : phrases(
                        "overlap.ownZoneUnknownAt",
                        ["hint": hint, "place": Formatting.place(own.shown(at: now).mapString, phrases: phrases)]))
        }
        let matches = try classmates(nick: found.nick, named: found.named, call).filter {
            $0.uniqueKey != own.uniqueKey
        }
        guard !matches.isEmpty else {
            throw UserFacingError(phrases("overlap.nobodyElse", ["typed": PlaceWording.quoted(argument)]))
        }
        guard matches.count == 1 else {
            let names = matches.prefix(4).map(Formatting.name).joined(separator: ", ")
            throw UserFacingError(
                phrases(
                    "overlap.namesakes",
                    [
                        "count": matches.count, "typed": PlaceWording.quoted(argument),
                        "names": names + (matches.count > 4 ? ", …" : ""),
                    ]))
        }
        let other = matches[0]
        let name = Formatting.name(other)
        let otherZone = await zone(of: other, services, now: now)
        guard let theirZone = otherZone.timeZone else {
            throw UserFacingError(
                withheld
                    ? phrases("overlap.askPrivately", ["name": name])
                    : timeLine(for: other, zone: otherZone, now: now, of: .classmate(name), phrases: phrases))
        }
        let shared = Daytime.sharedToday(asker: ownZone, other: theirZone, now: now, includingPast: false)
        let text =
            shared.isEmpty
            ? phrases("overlap.noneToday")
            : shared.map {
                phrases("overlap.window", ["yours": $0.rangeText(in: ownZone), "theirs": $0.rangeText(in: theirZone)])
            }.joined(separator: "; ")
        await lookup.audience.answer(
            lines: [phrases("overlap.shared", ["name": name, "windows": text])], naming: [name])
    }

    // MARK: - Lookups

    /// The zone of the place `pin` shows at `now` (its trip's while the trip lasts).
    static func zone(of pin: StudentLocation, _ services: Needs, now: Date) async -> PlaceTimeZone {
        let shown = pin.shown(at: now)
        return await services.timeZones.timeZone(ofPinAt: shown.coordinate, named: shown.mapString)
    }

    /// The asker's own pin: they must be logged in and have one.
    static func ownPin(_ call: Invocation, _ services: Needs, alternative: String)
        async throws -> StudentLocation
    {
        guard let session = services.session(of: call) else {
            throw UserFacingError(
                call.phrases(
                    "time.logInForOwn",
                    ["hint": "/msg \(call.botNick) \(call.prefix)login", "alternative": alternative]))
        }
        guard
            let pin = try await services.call({
                try await services.directory.location(ofAccount: session.profile.accountKey)
            })
        else {
            throw UserFacingError(
                call.phrases(
                    "time.noPinForOwn", ["hint": "/msg \(call.botNick) \(call.prefix)post", "alternative": alternative])
            )
        }
        return pin
    }

    /// The pins of the classmates a lookup found: the pin of the student logged in under the nick
    /// (who must have one), else the pins of that name.
    static func classmates(nick: ClassLookup.NickMatch?, named: [StudentLocation], _ call: Invocation) throws
        -> [StudentLocation]
    {
        guard let nick else { return named }
        guard let pin = nick.pin else {
            throw UserFacingError(call.phrases("near.nickHasNoPin", ["nick": nick.nick]))
        }
        return [pin]
    }
}
