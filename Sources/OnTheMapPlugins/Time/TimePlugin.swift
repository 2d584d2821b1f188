import BotKit
import ClassKit
import Foundation
import OnTheMapService
import Localization

/// `!time [name | nick | place]`, `!awake` and `!overlap <name | nick>`: classmates' local times,
/// from the time zone of the place each pin shows (a trip's while it lasts), as the offline
/// gazetteer knows it. Every answer is for the class's clock (`ClassServices.now`).
public struct TimePlugin: Plugin {
    public static let registration = ClassPluginRegistration("time", settings: NoSettings.self) { services, _ in
        TimePlugin(services: services)
    }

    public let name = "time"
    let services: ClassServices
    /// The most classmates `!awake` lists in a private answer (a channel gets its line cap).
    static let privateAwakeCount = 10
    /// The most namesakes `!time` lists in a private answer.
    static let privateNamesakeCount = 10

    public init(services: ClassServices) {
        self.services = services
    }

    public var commands: [Command] {
        let services = self.services
        return [
            Command(
                "time", aliases: ["localtime"], usage: "!time [name | nick | place]",
                help: "The local time of a classmate's pin, of a place, or of your own pin.",
                rateLimit: .perUser(every: .seconds(2)),
                examples: [
                    CommandExample(
                        "!time Ada", answer: "It is … on … for Ada Lovelace (London, UK, UTC…)", loggedIn: true),
                    CommandExample("!time Tokyo", answer: "It is … on … in Tokyo… (UTC+9)"),
                    CommandExample(
                        "!time Zebediahqx",
                        answer:
                            "Nobody called \"Zebediahqx\" is on the map and no place of that name was found; try a classmate's name, a nick or \"City, Country\", e.g. !time Tokyo, Japan",
                        loggedIn: true),
                ]
            ) { call in try await Self.time(call, services) },
            Command(
                "awake", aliases: ["daytime"], usage: "!awake",
                help:
                    "How many classmates it is daytime for now (08:00–22:59 their time), and those nearest your time.",
                rateLimit: .perUser(every: .seconds(3)),
                examples: [
                    CommandExample(
                        "!awake", answer: ["It is daytime (08:00–22:59) now for … of 31 classmates…", "…"],
                        loggedIn: true)
                ]
            ) { call in try await Self.awake(call, services) },
            Command(
                "overlap", usage: "!overlap <name | nick>",
                help: "The hours left today (your day) when it is daytime for both you and a classmate.",
                rateLimit: .perUser(every: .seconds(2)),
                examples: [
                    CommandExample(
                        "!overlap Ada",
                        answer:
                            "You have no pin yet, so I do not know your time: /msg … !post <place> — or ask !time Ada.",
                        loggedIn: true)
                ]
            ) { call in try await Self.overlap(call, services) },
        ]
    }

    // MARK: - !time

    static func time(_ call: Invocation, _ services: ClassServices) async throws {
        let argument = call.argument
        let now = services.now()
        if argument.isEmpty {
            let pin = try await ownPin(call, services, command: "time", alternative: "\(call.prefix)time <place>")
            let zone = await zone(of: pin, services, now: now)
            await ClassLookups.answer(
                call, services, lines: [timeLine(for: pin, zone: zone, now: now, who: "you", whose: "your")],
                naming: [])
            return
        }
        // A stranger may not look classmates up when the map is for the class, but may ask a place.
        let mayLookUp = !services.settings.privacy.classOnly || services.session(of: call) != nil
        let pins = mayLookUp ? try await classmates(matching: argument, call, services) : []
        if !pins.isEmpty {
            let privately = await ClassLookups.answersAskerAlone(call, services)
            if pins.count > 1 && !privately {
                // One line in a channel: namesakes are named, and their times sent on request.
                let names = pins.prefix(4).map(Formatting.name).joined(separator: ", ")
                await ClassLookups.answer(
                    call, services,
                    lines: [
                        "\(pins.count) classmates match \(PlaceWording.quoted(argument)) (\(names)\(pins.count > 4 ? ", …" : "")): /msg \(call.botNick) \(call.prefix)time \(Formatting.clean(argument, maxBytes: 60)) for each one's time."
                    ])
                return
            }
            var lines: [String] = []
            for pin in pins.prefix(privateNamesakeCount) {
                let name = Formatting.name(pin)
                lines.append(
                    timeLine(
                        for: pin, zone: await zone(of: pin, services, now: now), now: now, who: name,
                        whose: "\(name)'s"))
            }
            if pins.count > privateNamesakeCount {
                lines.append("\(pins.count - privateNamesakeCount) more; try a fuller name.")
            }
            await ClassLookups.answer(
                call, services, lines: lines, naming: pins.prefix(privateNamesakeCount).map(Formatting.name))
            return
        }
        let example = "\(call.prefix)time Tokyo, Japan"
        let place: PlaceCandidate
        var prefix = ""
        switch try await services.resolvePlace(argument) {
        case .found(let found, _):
            place = found
        case .offered(let offers):
            // A stranger's inexact word may be a classmate's name they may not look up: no guess.
            guard mayLookUp else { throw UserFacingError(ClassLookups.signInSentence(call)) }
            place = offers[0]
            prefix = "Did you mean \(PlaceWording.place(offers[0]))? "
        case .notAPlace(let kind):
            guard mayLookUp else { throw UserFacingError(ClassLookups.signInSentence(call)) }
            throw UserFacingError(
                PlaceWording.notAPlace(kind, typed: argument, example: example, phrases: call.phrases))
        case .notFound:
            guard mayLookUp else { throw UserFacingError(ClassLookups.signInSentence(call)) }
            throw UserFacingError(
                "Nobody called \(PlaceWording.quoted(argument)) is on the map and no place of that name was found; try a classmate's name, a nick or \"City, Country\", e.g. \(example)"
            )
        }
        var zone = place.timeZone ?? .unknown
        if zone == .unknown {
            zone = await services.timeZones.timeZone(ofPinAt: place.coordinate, named: place.displayName)
        }
        let shown = PlaceWording.place(place)
        let line: String
        switch zone {
        case .zone:
            if let timeZone = zone.timeZone {
                let clock = LocalClock(timeZone: timeZone, instant: now)
                line = "It is \(clock.timeAndWeekdayText) in \(shown) (\(clock.offsetText))"
            } else {
                line = "I do not know the time zone of \(shown)."
            }
        case .several:
            line = "\(shown) has several time zones: ask for a city in it, e.g. \(call.prefix)time <city>, \(shown)"
        case .unknown:
            line = "I do not know the time zone of \(shown)."
        }
        await ClassLookups.answer(call, services, lines: [prefix + line])
    }

    /// "It is 21:14 on Tuesday for Ada Lovelace (London, UK, UTC+0)", or why it cannot be said.
    /// `who` is the student as the sentence names them, `whose` the possessive.
    static func timeLine(for pin: StudentLocation, zone: PlaceTimeZone, now: Date, who: String, whose: String)
        -> String
    {
        let place = Formatting.place(pin.shown(at: now).mapString)
        switch zone {
        case .zone:
            guard let timeZone = zone.timeZone else { return "I do not know the time zone of \(whose) pin (\(place))." }
            let clock = LocalClock(timeZone: timeZone, instant: now)
            return "It is \(clock.timeAndWeekdayText) for \(who) (\(place), \(clock.offsetText))"
        case .several:
            return
                "\(whose.prefix(1).uppercased() + whose.dropFirst()) pin is at \(place), a country with several time zones, so I cannot tell the time there."
        case .unknown:
            return "I do not know the time zone of \(whose) pin (\(place))."
        }
    }

    // MARK: - !awake

    /// A classmate and the local clock of their pin now.
    struct ClassmateClock {
        var pin: StudentLocation
        var clock: LocalClock
    }

    static func awake(_ call: Invocation, _ services: ClassServices) async throws {
        try ClassLookups.requireClassMember(call, services)
        let now = services.now()
        let pins = try await services.call { try await services.classMap.all() }
        let ownKey = services.session(of: call)?.profile.accountKey
        var ownZone: TimeZone?
        var awake: [ClassmateClock] = []
        var classmates = 0
        var unknown = 0
        for pin in pins {
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
                awake.append(ClassmateClock(pin: pin, clock: LocalClock(timeZone: timeZone, instant: now)))
            }
        }
        guard classmates > 0 else {
            throw UserFacingError(
                pins.isEmpty
                    ? "Nobody is on the map yet. Be the first: /msg \(call.botNick) \(call.prefix)post <place>"
                    : "Nobody else is on the map yet.")
        }
        // Nearest your time first (the smallest difference of offsets from UTC); without a pin of
        // your own, the earliest in their day first (those with the most daytime left).
        if let ownZone {
            let own = ownZone.secondsFromGMT(for: now)
            awake.sort {
                (abs($0.clock.secondsFromUTC - own), Formatting.name($0.pin))
                    < (abs($1.clock.secondsFromUTC - own), Formatting.name($1.pin))
            }
        } else {
            awake.sort {
                ($0.clock.hour * 60 + $0.clock.minute, Formatting.name($0.pin))
                    < ($1.clock.hour * 60 + $1.clock.minute, Formatting.name($1.pin))
            }
        }
        let privately = await ClassLookups.answersAskerAlone(call, services)
        let count = privately ? privateAwakeCount : max(1, call.channelLineCap - 1)
        let unknownText = unknown == 0 ? "" : " (\(unknown) more whose time I cannot tell)"
        let order =
            awake.isEmpty
            ? "."
            : ownZone == nil ? "; earliest in their day first:" : "; nearest your time first:"
        var lines = [
            "It is daytime (08:00–22:59) now for \(awake.count) of \(classmates) classmates\(unknownText)\(order)"
        ]
        lines += awake.prefix(count).map {
            Formatting.line([
                Formatting.name($0.pin), $0.clock.timeAndWeekdayText, Formatting.place($0.pin.shown(at: now).mapString),
            ])
        }
        await ClassLookups.answer(
            call, services, lines: lines, naming: awake.prefix(count).map { Formatting.name($0.pin) })
    }

    // MARK: - !overlap

    static func overlap(_ call: Invocation, _ services: ClassServices) async throws {
        try ClassLookups.requireClassMember(call, services)
        let argument = call.argument
        guard !argument.isEmpty else {
            throw UserFacingError("With whom? \(call.prefix)overlap <first, last or full name | nick>")
        }
        let own = try await ownPin(
            call, services, command: "overlap",
            alternative: "\(call.prefix)time \(Formatting.clean(argument, maxBytes: 60))")
        let now = services.now()
        // A channel that hears names only hears no place in a refusal either.
        let withheld = await ClassLookups.withholdsPlaces(call, services)
        guard let ownZone = await zone(of: own, services, now: now).timeZone else {
            let place = withheld ? "" : " (\(Formatting.place(own.shown(at: now).mapString)))"
            throw UserFacingError(
                "I do not know the time zone of your pin\(place): post a city with /msg \(call.botNick) \(call.prefix)post <city, country>."
            )
        }
        let matches = try await classmates(matching: argument, call, services).filter { $0.uniqueKey != own.uniqueKey }
        guard !matches.isEmpty else {
            throw UserFacingError(
                "Nobody else called \(PlaceWording.quoted(argument)) is on the map (and no one logged in uses that nick)."
            )
        }
        guard matches.count == 1 else {
            let names = matches.prefix(4).map(Formatting.name).joined(separator: ", ")
            throw UserFacingError(
                "\(matches.count) classmates match \(PlaceWording.quoted(argument)) (\(names)\(matches.count > 4 ? ", …" : "")): try a fuller name or their nick."
            )
        }
        let other = matches[0]
        let name = Formatting.name(other)
        let otherZone = await zone(of: other, services, now: now)
        guard let theirZone = otherZone.timeZone else {
            throw UserFacingError(
                withheld
                    ? "I cannot tell \(name)'s time: ask me privately."
                    : timeLine(for: other, zone: otherZone, now: now, who: name, whose: "\(name)'s"))
        }
        let shared = Daytime.sharedToday(asker: ownZone, other: theirZone, now: now, includingPast: false)
        let text =
            shared.isEmpty
            ? "none today" : shared.map { $0.text(asker: ownZone, other: theirZone) }.joined(separator: "; ")
        await ClassLookups.answer(
            call, services, lines: ["Daytime you and \(name) still share today: \(text)"], naming: [name])
    }

    // MARK: - Lookups

    /// The zone of the place `pin` shows at `now` (its trip's while the trip lasts).
    static func zone(of pin: StudentLocation, _ services: ClassServices, now: Date) async -> PlaceTimeZone {
        let shown = pin.shown(at: now)
        return await services.timeZones.timeZone(ofPinAt: shown.coordinate, named: shown.mapString)
    }

    /// The asker's own pin: they must be logged in and have one.
    static func ownPin(_ call: Invocation, _ services: ClassServices, command: String, alternative: String)
        async throws -> StudentLocation
    {
        guard let session = services.session(of: call) else {
            throw UserFacingError(
                "For your own time, log in first: /msg \(call.botNick) \(call.prefix)login <email> <password> — or ask \(alternative)."
            )
        }
        guard
            let pin = try await services.call({
                try await services.directory.location(ofAccount: session.profile.accountKey)
            })
        else {
            throw UserFacingError(
                "You have no pin yet, so I do not know your time: /msg \(call.botNick) \(call.prefix)post <place> — or ask \(alternative)."
            )
        }
        return pin
    }

    /// The pins `query` names: the pin of the student logged in with that nick, else the pins
    /// whose first, last or full name it is. Looking up classmates follows the class's
    /// visibility (`web.visibility`).
    static func classmates(matching query: String, _ call: Invocation, _ services: ClassServices) async throws
        -> [StudentLocation]
    {
        try ClassLookups.requireClassMember(call, services)
        if let owner = await NickLookup.session(ofNick: query, call: call, services: services) {
            guard
                let pin = try await services.call({
                    try await services.directory.location(ofAccount: owner.profile.accountKey)
                })
            else {
                throw UserFacingError("\(Formatting.clean(query, maxBytes: 40)) is logged in but has no pin yet.")
            }
            return [pin]
        }
        return try await services.call { try await services.classMap.pins(named: query) }
    }
}
