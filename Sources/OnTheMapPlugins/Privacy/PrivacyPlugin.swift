import BotKit
import ClassKit
import Foundation
import IRCProtocol
import Localization
import Logging
import NIOConcurrencyHelpers
import OnTheMapService

/// The students' privacy: `!privacy` (what the class sees of you, and the precision your pin is
/// kept at), `!mydata` (what the bot keeps about you), `!forget` and `!forget confirm` (erase it
/// all, see ``StudentErasure``), and the retention of pins (`privacy.pin_days`: a pin not updated
/// for that many days leaves the map, see ``PinRetention``).
public struct PrivacyPlugin: BackgroundPlugin {
    public static let registration = ClassPluginRegistration("privacy", settings: NoSettings.self) { services, _ in
        PrivacyPlugin(services: Needs(services))
    }

    /// What `!privacy`, `!mydata`, `!forget` and the retention of pins use: the settings, who is
    /// logged in, the privacy gate and the students' choices, the directory (pins, trips, accounts)
    /// and the state store, the class map, the login throttle (trusted hosts), what every network's
    /// plugins keep, and the clock.
    public struct Needs: ReadsClassSettings, ReadsSessions, PassesPrivacyGate {
        public let settingsInForce: SettingsInForce
        public let logins: LoginGate<StudentLogin>
        public let privacyGates: PrivacyGates
        public let directory: any StudentDirectory
        public let trips: (any TripDirectory)?
        public let accounts: (any AccountDirectory)?
        public let stateStore: (any BotStateStore)?
        public let classMap: ClassMap
        public let loginThrottle: LoginThrottle
        public let keepers: StudentKeepers
        public let networks: EveryNetwork
        /// Whether this bot's retention of pins has started (once per bot, on any network).
        public let retentionStarted: NIOLockedValueBox<Bool>
        public let now: @Sendable () -> Date
        public let call = ServiceCalls()

        public init(
            settingsInForce: SettingsInForce, logins: LoginGate<StudentLogin>, privacyGates: PrivacyGates,
            directory: any StudentDirectory, trips: (any TripDirectory)?, accounts: (any AccountDirectory)?,
            stateStore: (any BotStateStore)?, classMap: ClassMap, loginThrottle: LoginThrottle,
            keepers: StudentKeepers, networks: EveryNetwork, retentionStarted: NIOLockedValueBox<Bool>,
            now: @escaping @Sendable () -> Date
        ) {
            self.settingsInForce = settingsInForce
            self.logins = logins
            self.privacyGates = privacyGates
            self.directory = directory
            self.trips = trips
            self.accounts = accounts
            self.stateStore = stateStore
            self.classMap = classMap
            self.loginThrottle = loginThrottle
            self.keepers = keepers
            self.networks = networks
            self.retentionStarted = retentionStarted
            self.now = now
        }

        /// Each student's choice of precision and name form.
        var privacyChoices: PrivacyChoices { privacyGates.choices }

        /// The erasure of a student in this bot; nil when the directory keeps no accounts.
        var erasure: StudentErasure? {
            accounts.map {
                StudentErasure(
                    accounts: $0, store: stateStore,
                    services: StudentErasure.InBot(
                        networks: networks, loginThrottle: loginThrottle, privacyChoices: privacyChoices,
                        classMap: classMap))
            }
        }
    }

    /// How long a `!forget` waits for its `!forget confirm`.
    static let confirmWindow: TimeInterval = 5 * 60

    public let name = "privacy"
    let services: Needs
    /// When each account last asked `!forget` (waiting for its confirmation).
    let askedToForget = NIOLockedValueBox<[String: Date]>([:])

    public init(services: Needs) {
        self.services = services
    }

    public var commands: [Command] {
        let plugin = self
        let services = self.services
        return [
            Command(
                "privacy",
                allowed: .privateMessage,
                examples: [
                    CommandExample(
                        "!privacy", explained: "example.privacy.rules",
                        answer: [
                            "Pins are kept at city level (the town) unless a student chooses otherwise: never the street typed; a place of fewer than 15,000 people shows as the nearest town of at least that size in its region.",
                            "Who sees them: …",
                            "Change yours: !privacy city|region|country|exact; your name in full or as first name and last initial: !privacy name full|first. What is kept about you: !mydata; erase it all: !forget.",
                        ]),
                    CommandExample(
                        "!privacy region", explained: "example.privacy.region",
                        answer: "OK: your pin …region level (state or province)…",
                        loggedIn: true),
                    CommandExample(
                        "!privacy name first", explained: "example.privacy.firstName",
                        answer: "OK: others … as …",
                        loggedIn: true),
                    CommandExample(
                        "!privacy street", explained: "example.privacy.badLevel",
                        answer: "The levels are city, region, country or exact: !privacy region, for example.",
                        loggedIn: true),
                ]
            ) { call in try await PrivacyLevels.privacy(call, services) },
            Command(
                "mydata",
                allowed: .privateMessage, requiresLogin: true,
                examples: [
                    CommandExample(
                        "!mydata", explained: "example.mydata.all",
                        answer: [
                            "Account: alice@demo.local, Alice Martin (created …); others see your name in full.", "…",
                        ], loggedIn: true),
                    CommandExample(
                        "!mydata links", explained: "example.mydata.links",
                        answer: [
                            "Your pin as GeoJSON: http…/me/…/pins.geojson",
                            "Your trips as a calendar feed (subscribe to it in your calendar app): http…/me/…/trips.ics",
                            "Keep these addresses to yourself: whoever has them reads your pin and trips.…",
                        ], loggedIn: true),
                ]
            ) { call in
                switch call.words.map({ $0.lowercased() }) {
                case []: try await plugin.myData(call)
                case ["links"]: try await plugin.feedLinks(call)
                default:
                    throw UserFacingError(
                        call.phrases(
                            "mydata.usage", ["mydata": call.prefix + "mydata", "links": call.prefix + "mydata links"]))
                }
            },
            Command(
                "forget",
                allowed: .privateMessage, requiresLogin: true,
                examples: [
                    CommandExample(
                        "!forget", explained: "example.forget.all",
                        answer: [
                            "This erases for good: your account (alice@demo.local, Alice Martin)…", "…",
                        ], loggedIn: true)
                ]
            ) { call in try await plugin.forget(call) },
        ]
    }

    /// Takes pins past `privacy.pin_days` off the map while the bot runs (once per bot, whichever
    /// network's plugin starts first).
    public func run(context: PluginContext) async {
        guard services.accounts != nil else { return }
        let first = services.retentionStarted.withLockedValue { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        // Pins finer than the class's rules are worth an operator's look at every start.
        if let count = try? await services.privacyGates.finerPinCount(in: services.classMap),
            let sentence = count.sentence(default: services.settings.privacy.defaultPrecision)
        {
            context.logger.warning("\(sentence)")
        }
        await PinRetention(
            settings: services.settingsInForce, accounts: services.accounts, classMap: services.classMap,
            now: services.now
        ).run(logger: context.logger)
    }

    // MARK: - !mydata

    func myData(_ call: Invocation) async throws {
        guard let bound = services.session(of: call) else { return }
        let phrases = call.phrases
        let key = bound.profile.accountKey
        let reference = StudentReference(
            accountKey: key, sender: call.sender, caseMapping: call.caseMapping, identities: [call.sender],
            phrases: phrases)
        let kept = await services.keepers.keptItems(about: reference)
        let forget = call.prefix + "forget"
        var lines: [String] = []
        guard let accounts = services.accounts else {
            lines.append(
                phrases(
                    "mydata.remoteService",
                    [
                        "date": Self.day(bound.session.expiresAt),
                        "name": Formatting.displayName(bound.profile),
                    ]))
            lines.append(Self.keptLine(kept, phrases: phrases))
            lines.append(phrases("mydata.nothingElse", ["forget": forget]))
            lines.append(Self.logSentence(services.settings.privacy, phrases))
            await call.reply(lines: lines)
            return
        }
        guard let record = try await services.call({ try await accounts.accountRecord(.key(key)) }) else {
            throw UserFacingError(phrases("privacy.accountGone"))
        }
        let account = record.account
        let name = Formatting.clean(
            "\(account.firstName) \(account.lastName)", maxBytes: 100, fallback: phrases("mydata.noName"))
        let form = try await services.call { try await services.privacyGate.nameForm(of: key) }
        let others =
            form == .full
            ? phrases("mydata.nameInFull")
            : phrases("mydata.nameShortened", ["name": PrivacyNames.shown(bound.profile, form)])
        lines.append(
            phrases(
                "mydata.account",
                [
                    "email": Formatting.clean(account.email, maxBytes: 254), "name": name,
                    "created": Self.time(account.createdAt), "others": others,
                ]))
        let precision = try await precisionWords(key, phrases)
        if let pin = record.pin {
            let kept = await services.privacyGate.precision(of: pin)
            lines.append(
                phrases(
                    "mydata.pin",
                    [
                        "place": Formatting.place(pin.mapString, phrases: phrases),
                        "coordinate": Formatting.coordinate(pin.coordinate),
                        "kept": kept.rawValue, "posted": Self.time(pin.createdAt),
                        "changed": Self.time(pin.updatedAt), "level": precision,
                    ]))
            if let trip = pin.trip {
                let active = trip.isActive(at: services.now())
                lines.append(
                    phrases(
                        active ? "mydata.tripUntil" : "mydata.tripEnded",
                        [
                            "place": Formatting.place(trip.mapString, phrases: phrases),
                            "coordinate": Formatting.coordinate(trip.coordinate), "time": Self.time(trip.endsAt),
                            "command": call.prefix + "unpost trip",
                        ]))
            }
        } else {
            lines.append(phrases("mydata.noPin", ["level": precision]))
        }

        var access = [phrases("mydata.sessions", ["count": record.sessions.count])]
        if let latest = record.sessions.map(\.createdAt).max() {
            access[0] += " " + phrases("mydata.latestSession", ["time": Self.time(latest)])
        }
        let trusted = await services.loginThrottle.trusted(email: account.email)
        var hosts = phrases("mydata.trustedHosts", ["count": trusted.count])
        if let last = trusted.map(\.at).max() { hosts += " " + phrases("mydata.lastLogin", ["time": Self.time(last)]) }
        access.append(hosts)
        if !record.servicesLinks.isEmpty {
            let links = record.servicesLinks.map {
                phrases(
                    "mydata.servicesAccount",
                    [
                        "account": Formatting.clean($0.servicesAccount, maxBytes: 64),
                        "network": Formatting.clean($0.network, maxBytes: 64),
                    ])
            }
            access.append(phrases("mydata.servicesLinks", ["links": links.joined(separator: ", ")]))
        }
        if let store = services.stateStore,
            let expiry = try? await SignInLinks(store: store).unusedLinkExpiry(accountKey: key)
        {
            access.append(phrases("mydata.signInLink", ["time": Self.time(expiry)]))
        }
        if let store = services.stateStore {
            // Whether a feed address works, never the address itself: this line may be read aloud
            // or pasted; the address is only in the answer to `!mydata links`.
            let links = call.prefix + "mydata links"
            if let issued = try await services.call({ try await DataFeedLinks(store: store).issuedAt(accountKey: key) })
            {
                access.append(
                    phrases(
                        "mydata.feedLive",
                        ["time": Self.time(issued), "links": links, "logout": call.prefix + "logout"]))
            } else {
                access.append(phrases("mydata.feedNone", ["links": links]))
            }
        }
        lines.append(phrases("mydata.list", ["items": access.joined(separator: "; ")]))
        lines.append(Self.keptLine(kept, phrases: phrases))
        lines.append(phrases("mydata.noSecrets", ["forget": forget]))
        lines.append(Self.logSentence(services.settings.privacy, phrases))
        await call.reply(lines: lines)
    }

    // MARK: - !mydata links

    /// `!mydata links`: new private addresses of the student's pin (GeoJSON) and trips (an
    /// iCalendar feed) on the web map, replacing the ones given before. Private only (the command
    /// runs in private messages alone), and only where the bot serves them: a web map with a public
    /// address, and a directory of its own with a state store.
    func feedLinks(_ call: Invocation) async throws {
        guard let bound = services.session(of: call) else { return }
        let phrases = call.phrases
        guard let base = services.settings.webMapURL, !base.isEmpty else {
            throw UserFacingError(phrases("mydata.links.noWeb"))
        }
        guard services.accounts != nil, let store = services.stateStore else {
            throw UserFacingError(phrases("mydata.links.noAccounts"))
        }
        let token = try await services.call {
            try await DataFeedLinks(store: store, now: services.now).issue(accountKey: bound.profile.accountKey)
        }
        let links = Self.feedLinks(base: base, token: token)
        await call.reply(lines: [
            phrases("mydata.links.pins", ["link": links.pins]),
            phrases("mydata.links.trips", ["link": links.trips]),
            phrases(
                "mydata.links.keepPrivate",
                ["links": call.prefix + "mydata links", "logout": call.prefix + "logout"]),
        ])
    }

    /// The addresses of a feed token on the web map at `base`: `<base>/me/<token>/pins.geojson` and
    /// `<base>/me/<token>/trips.ics`.
    public static func feedLinks(base: String, token: String) -> (pins: String, trips: String) {
        let root = MapPlugin.root(of: base)
        return ("\(root)/me/\(token)/pins.geojson", "\(root)/me/\(token)/trips.ics")
    }

    /// The level the student's pins are kept at, in words ("city (the class default)").
    func precisionWords(_ accountKey: String, _ phrases: Phrasebook) async throws -> String {
        let chosen = try await services.call { try await services.privacyChoices.chosen(by: accountKey) }
        let level = services.settings.privacy.allowed(chosen)
        return phrases(
            chosen == nil ? "mydata.levelByDefault" : "mydata.levelChosen",
            ["level": level.rawValue])
    }

    /// What the plugins keep about the student: the open post step and the unit choice always
    /// (said to be none), then anything else.
    static func keptLine(_ items: [KeptItem], phrases: Phrasebook) -> String {
        func since(_ item: KeptItem) -> String {
            item.changedAt.map { " " + phrases("mydata.since", ["time": time($0)]) } ?? ""
        }
        func entry(_ item: KeptItem) -> String {
            phrases("mydata.keptItem", ["what": item.what, "detail": item.detail]) + since(item)
        }
        var parts: [String] = []
        parts.append(
            items.first { $0.id == "post" }.map(entry)
                ?? phrases("mydata.keptItem", ["what": phrases("kept.postStep"), "detail": phrases("mydata.none")]))
        parts.append(
            items.first { $0.id == "units" }.map(entry)
                ?? phrases(
                    "mydata.keptItem", ["what": phrases("kept.unitChoice"), "detail": phrases("mydata.unitByDefault")]))
        for item in items where item.id != "post" && item.id != "units" {
            parts.append(entry(item))
        }
        let line = phrases("mydata.list", ["items": parts.joined(separator: "; ")])
        return line.prefix(1).uppercased() + line.dropFirst()
    }

    /// What the operator's log may still hold about a student, for `!mydata` and `!forget`.
    static func logSentence(_ policy: PrivacyPolicy, _ phrases: Phrasebook) -> String {
        phrases(policy.studentDataInLog ? "privacy.log.typed" : "privacy.log.codeName")
    }

    // MARK: - !forget

    func forget(_ call: Invocation) async throws {
        guard let bound = services.session(of: call) else { return }
        let phrases = call.phrases
        let commands: [String: any PhraseValue] = [
            "forget": call.prefix + "forget", "confirm": call.prefix + "forget confirm",
        ]
        let words = call.words.map { $0.lowercased() }
        guard words.isEmpty || words == ["confirm"] else {
            throw UserFacingError(phrases("forget.usage", commands))
        }
        let key = bound.profile.accountKey
        let now = services.now()
        guard words == ["confirm"] else {
            try await describeErasure(call, bound: bound)
            askedToForget.withLockedValue { asked in
                asked = asked.filter { now.timeIntervalSince($0.value) <= Self.confirmWindow }
                asked[key] = now
            }
            return
        }
        let asked = askedToForget.withLockedValue { $0.removeValue(forKey: key) }
        guard let asked, now.timeIntervalSince(asked) <= Self.confirmWindow, now >= asked else {
            throw UserFacingError(phrases("forget.notAsked", commands))
        }
        guard let erasure = services.erasure else {
            try await forgetOnRemoteService(call, bound: bound)
            return
        }
        let report = try await services.call {
            try await erasure.erase(
                accountKey: key, requester: call.sender, caseMapping: call.caseMapping, book: services.sessions,
                phrases: phrases)
        }
        guard let report else {
            await services.sessions.unbind(call.sender)
            throw UserFacingError(phrases("forget.accountGone"))
        }
        await call.reply(lines: [
            Self.erasedSentence(report, phrases: phrases), Self.logSentence(services.settings.privacy, phrases),
        ])
    }

    /// What `!forget confirm` would erase (the answer to `!forget`).
    func describeErasure(_ call: Invocation, bound: StudentSession) async throws {
        let phrases = call.phrases
        let confirm = phrases("forget.confirmWithin", ["confirm": call.prefix + "forget confirm"])
        guard let accounts = services.accounts else {
            await call.reply(lines: [
                phrases("forget.remoteWhatGoes"),
                phrases("forget.remoteKeptThere") + " " + confirm,
            ])
            return
        }
        guard let record = try await services.call({ try await accounts.accountRecord(.key(bound.profile.accountKey)) })
        else { throw UserFacingError(phrases("privacy.accountGone")) }
        let account = record.account
        let name = Formatting.clean(
            "\(account.firstName) \(account.lastName)", maxBytes: 100, fallback: phrases("mydata.noName"))
        let pin =
            record.pin.map { phrases("forget.yourPin", ["place": Formatting.place($0.mapString, phrases: phrases)]) }
            ?? phrases("forget.noPin")
        await call.reply(lines: [
            phrases(
                "forget.whatGoes",
                [
                    "email": Formatting.clean(account.email, maxBytes: 254), "name": name, "pin": pin,
                    "count": record.sessions.count,
                ]),
            phrases("forget.newAccount") + " " + confirm,
        ])
    }

    /// `!forget confirm` on the Udacity-compatible API: the bot erases what it holds itself.
    func forgetOnRemoteService(_ call: Invocation, bound: StudentSession) async throws {
        let phrases = call.phrases
        let key = bound.profile.accountKey
        var ended = await services.sessions.unbindAll { $0.session.accountKey == key }
        let networks = services.networks.all
        for network in networks.dropFirst() {
            ended += await network.sessionArchive.endSessions(ofAccount: key)
        }
        var erased = [phrases("forget.erased.session")]
        let student = StudentReference(
            accountKey: key, sender: call.sender, caseMapping: call.caseMapping, identities: [call.sender],
            phrases: phrases)
        for network in networks {
            for item in await network.keepers.eraseKept(about: student) where !erased.contains(item) {
                erased.append(item)
            }
        }
        for owner in Set(ended.map(\.owner)) { await services.keepers.loggedOut(owner) }
        try? await services.directory.logOut(bound.session)
        await call.reply(phrases("forget.remoteDone", ["items": erased.joined(separator: ", ")]))
    }

    /// The answer to a done erasure.
    static func erasedSentence(_ report: StudentErasure.Report, phrases: Phrasebook) -> String {
        var parts = [phrases("forget.erased.account")]
        if let pin = report.record.pin {
            parts.append(phrases("forget.yourPin", ["place": Formatting.place(pin.mapString, phrases: phrases)]))
        }
        parts.append(phrases("forget.erased.directorySessions", ["count": report.record.sessions.count]))
        if report.ircSessionsEnded > 0 {
            parts.append(phrases("forget.erased.ircSessions", ["count": report.ircSessionsEnded]))
        }
        if report.trustedHosts > 0 {
            parts.append(phrases("forget.erased.trustedHosts", ["count": report.trustedHosts]))
        }
        if !report.record.servicesLinks.isEmpty {
            parts.append(phrases("forget.erased.servicesLinks", ["count": report.record.servicesLinks.count]))
        }
        parts += report.keptState
        return phrases("forget.done", ["items": parts.joined(separator: ", ")])
    }

    // MARK: - Wording

    /// A time as "2026-11-26 17:05 UTC" (the same in every language).
    static func time(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date) + " UTC"
    }

    static func day(_ date: Date) -> String { date.formatted(.iso8601.year().month().day()) }
}
