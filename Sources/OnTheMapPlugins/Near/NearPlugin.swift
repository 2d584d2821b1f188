import BotKit
import ClassKit
import Foundation
import OnTheMapService

/// `!near [place | nick]`: the nearest classmates with distances (from your own pin, a place,
/// or the pin of someone logged in), and `!units km|mi`.
public struct NearPlugin: RestoringPlugin {
    /// What `plugins.near:` can set.
    public struct Settings: ClassPluginSettings {
        /// The distance unit of a student who has not chosen one with `!units`.
        public var units: UnitSystem = .km

        public init() {}

        public init(units: UnitSystem) {
            self.units = units
        }

        public mutating func read(_ section: inout SettingsSection) {
            section.choice("units", into: &units)
        }
    }

    public static let registration = ClassPluginRegistration("near", settings: Settings.self) {
        NearPlugin(services: Needs($0), settings: $1)
    }

    /// What `!near` and `!units` use: the lookup rule's needs, the class clock, the privacy gate
    /// (distances at each student's level), and where the unit choices are kept.
    public struct Needs: ClassLookup.Needs, PassesPrivacyGate {
        public let settingsInForce: SettingsInForce
        public let logins: LoginGate<StudentLogin>
        public let placeFinder: PlaceFinder
        public let directory: any StudentDirectory
        public let classMap: ClassMap
        public let privacyGates: PrivacyGates
        public let keptState: KeptStateHome
        public let keepers: StudentKeepers
        public let now: @Sendable () -> Date
        public let call = ServiceCalls()

        public init(
            settingsInForce: SettingsInForce, logins: LoginGate<StudentLogin>, placeFinder: PlaceFinder,
            directory: any StudentDirectory, classMap: ClassMap, privacyGates: PrivacyGates,
            keptState: KeptStateHome, keepers: StudentKeepers, now: @escaping @Sendable () -> Date
        ) {
            self.settingsInForce = settingsInForce
            self.logins = logins
            self.placeFinder = placeFinder
            self.directory = directory
            self.classMap = classMap
            self.privacyGates = privacyGates
            self.keptState = keptState
            self.keepers = keepers
            self.now = now
        }
    }

    public let name = "near"
    let services: Needs
    /// Each student's choice of unit.
    public let units: UnitPreferences
    static let channelCount = 3
    static let privateCount = 10

    public init(services: Needs, settings: Settings = Settings()) {
        self.services = services
        let units = UnitPreferences(
            defaultUnit: settings.units, store: services.keptState.store, instance: services.keptState.instance,
            now: services.now, beforeWrite: services.keptState.beforeWrite)
        self.units = units
        services.keepers.keepsAboutStudents(
            plugin: "near",
            describe: { student in
                guard let sender = student.sender,
                    let choice = await units.choice(of: sender, caseMapping: student.caseMapping)
                else { return [] }
                return [
                    KeptItem(
                        id: "units", what: student.phrases("kept.unitChoice"), detail: choice.unit.rawValue,
                        changedAt: choice.at)
                ]
            },
            erase: { student in
                let forgotten = await units.forget(keys: UnitPreferences.keys(of: student.identities))
                return forgotten > 0 ? [student.phrases("kept.erased.unitChoice")] : []
            })
    }

    /// Reads back the unit choices kept before a restart.
    public func restore(context: PluginContext) async {
        await units.restore(logger: context.logger)
    }

    public var commands: [Command] {
        let services = self.services
        let units = self.units
        return [
            Command(
                "near", aliases: ["nearby", "nearest"],
                rateLimit: .perUser(every: .seconds(3)),
                examples: [
                    CommandExample(
                        "!near Paris", explained: "example.near.place",
                        answer: [
                            "Nearest to Paris, Île-de-France, France (another one? e.g. !near Paris, Texas, United States):",
                            "Ada Lovelace — 344 km — London, UK — https://example.org/ada",
                            "Edsger Dijkstra — 373 km — Rotterdam, Netherlands — https://example.org/edsger",
                        ], loggedIn: true)
                ]
            ) { call in try await Self.near(call, services, units) },
            UnitsCommand(units: units).command,
        ]
    }

    /// Where distances are measured from, and whose pin to leave out.
    struct StartPoint {
        var coordinate: Coordinate
        var excludedKey: String?
        var description: String
        /// How precise the start is: a pin's level; a place typed is taken as exact.
        var precision: PinPrecision = .exact
        /// The first line, anywhere: which place or pin was understood (nil for your own pin,
        /// which says it only privately).
        var header: String?
    }

    static func near(_ call: Invocation, _ services: Needs, _ units: UnitPreferences) async throws {
        let lookup = try await ClassLookup.resolve(call, services, accepting: [.nick, .place])
        let origin = try await origin(for: lookup, call, services)
        let index = try await services.call { try await services.classMap.nearestIndex() }
        // The line that says where from (a place or a nick) comes first, in a channel too, and
        // counts against the channel's three lines (not when the answer goes to the asker alone).
        let privately = await lookup.audience.answersAskerAlone()
        let phrases = call.phrases
        let header = origin.header ?? (privately ? phrases("near.nearestTo", ["start": origin.description]) : nil)
        let count = privately ? privateCount : channelCount - (header == nil ? 0 : 1)
        let now = services.now()
        let nearest = index.nearest(to: origin.coordinate, k: count, excludingKey: origin.excludedKey, at: now)
        guard !nearest.isEmpty else {
            throw UserFacingError(
                index.count == 0
                    ? phrases("near.mapEmpty", ["hint": "/msg \(call.botNick) \(call.prefix)post"])
                    : phrases("near.nobodyElse"))
        }
        let unit = await units.unit(for: call.sender, caseMapping: call.caseMapping, language: call.language)
        // Each distance is no finer than the coarser of the two pins, so that no number of
        // questions from other places locates anyone more precisely than they chose.
        var lines: [String] = []
        for found in nearest {
            // A student on a trip is where the trip is, as precise as their home pin.
            var shown = found.payload
            let place = shown.shown(at: now)
            (shown.mapString, shown.coordinate) = (place.mapString, place.coordinate)
            let precision = max(origin.precision, await services.privacyGate.precision(of: shown))
            lines.append(
                Formatting.neighbour(
                    shown, kilometres: found.distanceKilometres, unit: unit, precision: precision, phrases: phrases))
        }
        if let header { lines.insert(header, at: 0) }
        await lookup.audience.answer(lines: lines, naming: nearest.map { Formatting.name($0.payload) })
    }

    /// Where `lookup` measures from: the asker's own pin (no argument), the pin of the student
    /// logged in under a nick, or a place.
    static func origin(for lookup: ClassLookup, _ call: Invocation, _ services: Needs) async throws
        -> StartPoint
    {
        let argument = call.argument
        let phrases = call.phrases
        let resolution: PlaceResolution
        switch lookup.found {
        case .nothing:
            guard let bound = services.session(of: call) else {
                throw UserFacingError(
                    phrases(
                        "near.nearWhat",
                        ["command": call.prefix + "near", "hint": "/msg \(call.botNick) \(call.prefix)login …"]))
            }
            guard
                let pin = try await services.call({
                    try await services.directory.location(ofAccount: bound.profile.accountKey)
                })
            else {
                throw UserFacingError(
                    phrases(
                        "near.noPinYet",
                        ["hint": "/msg \(call.botNick) \(call.prefix)post", "command": call.prefix + "near"]))
            }
            // From where the pin is shown now: a trip's place while it lasts.
            let shown = pin.shown(at: services.now())
            return StartPoint(
                coordinate: shown.coordinate, excludedKey: pin.uniqueKey,
                description: phrases("near.yourPin", ["place": Formatting.place(shown.mapString, phrases: phrases)]),
                precision: await services.privacyGate.precision(of: shown.coordinate, named: shown.mapString))
        case .classmates(let nick?, _):
            guard let pin = nick.pin else {
                throw UserFacingError(phrases("near.nickHasNoPin", ["nick": nick.nick]))
            }
            let shown = pin.shown(at: services.now())
            let description = phrases(
                "near.nicksPin", ["nick": nick.nick, "place": Formatting.place(shown.mapString, phrases: phrases)])
            return StartPoint(
                coordinate: shown.coordinate, excludedKey: pin.uniqueKey, description: description,
                precision: await services.privacyGate.precision(of: shown.coordinate, named: shown.mapString),
                header: phrases("near.nearestTo", ["start": description]))
        case .place(let found):
            resolution = found
        case .classmates(nil, _), .nobody:
            // `!near` takes no names: the resolver gives a place whenever no nick matched.
            resolution = .notFound
        }
        let example = "\(call.prefix)near Lyon, France"
        let place: PlaceCandidate
        let header: String
        switch resolution {
        case .found(let found, let namesakes):
            place = found
            if let other = namesakes.first {
                header = phrases(
                    "near.nearestToPlaceOrOther",
                    [
                        "place": PlaceWording.place(found, phrases: phrases),
                        "example": "\(call.prefix)near \(PlaceWording.place(other))",
                    ])
            } else {
                header = phrases("near.nearestTo", ["start": PlaceWording.place(found, phrases: phrases)])
            }
        case .offered(let offers):
            place = offers[0]
            header = phrases("near.didYouMean", ["place": PlaceWording.place(offers[0], phrases: phrases)])
        case .notAPlace(let kind):
            throw UserFacingError(PlaceWording.notAPlace(kind, typed: argument, example: example, phrases: phrases))
        case .notFound:
            throw UserFacingError(PlaceWording.notFound(argument, example: example, phrases: phrases))
        }
        return StartPoint(
            coordinate: place.coordinate, excludedKey: services.session(of: call)?.profile.accountKey,
            description: PlaceWording.place(place, phrases: phrases), header: header)
    }
}
