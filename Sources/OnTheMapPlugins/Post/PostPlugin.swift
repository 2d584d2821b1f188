import BotKit
import ClassKit
import Foundation
import IRCProtocol
import Logging
import OnTheMapService
import Localization

/// Putting yourself on the map, privately, in two steps: `!post <place>` (geocoded and shown),
/// then `!post <link>` or `!link <link>` (validated and saved). One shot: `!post <place> | <link>`.
/// `!cancel` ends the flow; an open flow expires. `!post <place> until <date>` sets a trip (see
/// PostTrip.swift), `!unpost trip` ends it. A failed save keeps the flow for a retry. Open
/// flows are kept across restarts where the directory has a state store.
public struct PostPlugin: RestoringPlugin {
    /// What `plugins.post:` can set.
    public struct Settings: ClassPluginSettings {
        /// How long an unfinished `!post` waits for its link.
        public var flowLifetime: Duration = .seconds(600)

        public init() {}

        public init(flowLifetime: Duration) {
            self.flowLifetime = flowLifetime
        }

        public mutating func read(_ section: inout SettingsSection) {
            var minutes = Int(flowLifetime.components.seconds / 60)
            section.int("flow_minutes", into: &minutes, range: 1...1440)
            flowLifetime = .seconds(minutes * 60)
        }
    }

    public static let registration = ClassPluginRegistration("post", settings: Settings.self) {
        PostPlugin(services: Needs($0), settings: $1)
    }

    /// What `!post`, its trips and `!unpost` use: the lookup rule's needs, the privacy gate every
    /// pin and trip passes, the directory's trips and accounts, the announcement ledger and the
    /// announcers' wake-ups (a post is announced at once), the time zones (a trip's end), the clock,
    /// and where the open posts are kept.
    public struct Needs: PinRemoval.Needs, PassesPrivacyGate, EndsTrips {
        public let settingsInForce: SettingsInForce
        public let logins: LoginGate<StudentLogin>
        public let placeFinder: PlaceFinder
        public let directory: any StudentDirectory
        public let classMap: ClassMap
        public let privacyGates: PrivacyGates
        public let trips: (any TripDirectory)?
        public let accounts: (any AccountDirectory)?
        public let ledger: AnnouncementLedger
        public let pinWakeups: PinWakeups
        public let timeZones: PinTimeZones
        public let keptState: KeptStateHome
        public let keepers: StudentKeepers
        public let now: @Sendable () -> Date
        public let call = ServiceCalls()

        public init(
            settingsInForce: SettingsInForce, logins: LoginGate<StudentLogin>, placeFinder: PlaceFinder,
            directory: any StudentDirectory, classMap: ClassMap, privacyGates: PrivacyGates,
            trips: (any TripDirectory)?, accounts: (any AccountDirectory)?, ledger: AnnouncementLedger,
            pinWakeups: PinWakeups, timeZones: PinTimeZones, keptState: KeptStateHome, keepers: StudentKeepers,
            now: @escaping @Sendable () -> Date
        ) {
            self.settingsInForce = settingsInForce
            self.logins = logins
            self.placeFinder = placeFinder
            self.directory = directory
            self.classMap = classMap
            self.privacyGates = privacyGates
            self.trips = trips
            self.accounts = accounts
            self.ledger = ledger
            self.pinWakeups = pinWakeups
            self.timeZones = timeZones
            self.keptState = keptState
            self.keepers = keepers
            self.now = now
        }
    }

    public let name = "post"
    let services: Needs
    /// The open `!post` flows.
    public let flows: PostFlows

    /// Also ends a student's open flow when they log out.
    public init(services: Needs, settings: Settings = Settings()) {
        self.services = services
        let flows = PostFlows(
            lifetime: settings.flowLifetime, now: services.now, store: services.keptState.store,
            instance: services.keptState.instance, beforeWrite: services.keptState.beforeWrite)
        self.flows = flows
        services.keepers.keepsAccounts(plugin: "post") { await flows.accountKeys() }
        services.keepers.onLogout { owner in await flows.close(owner) }
        services.keepers.keepsAboutStudents(
            plugin: "post",
            describe: { student in
                guard let draft = await flows.openDraft(ofAccount: student.accountKey) else { return [] }
                let phrases = student.phrases
                return [
                    KeptItem(
                        id: "post", what: phrases("kept.postStep"),
                        detail: phrases(
                            draft.isConfirmed ? "kept.postStep.waitingForLink" : "kept.postStep.waitingForPlace",
                            ["place": Formatting.place(draft.typedPlace, phrases: phrases)]),
                        changedAt: draft.startedAt)
                ]
            },
            erase: { student in
                await flows.close(accountKey: student.accountKey) > 0 ? [student.phrases("kept.erased.postStep")] : []
            })
    }

    /// Reads back the flows kept before a restart.
    public func restore(context: PluginContext) async {
        await flows.restore(logger: context.logger)
    }

    public var commands: [Command] {
        let plugin = self
        let flows = self.flows
        return [
            Command(
                "post",
                allowed: .privateMessage, requiresLogin: true,
                examples: [
                    CommandExample(
                        "!post Paris", explained: "example.post.place",
                        answer: [
                            "Found Paris, Île-de-France, France (48.8530, 2.3490); or Paris, Texas, United States: !post 2.",
                            "Now send your link: !link https://… (or !cancel; this waits 10 minutes).…",
                        ], loggedIn: true),
                    CommandExample(
                        "!post Seatle", explained: "example.post.typo",
                        answer: "Did you mean Seattle, Washington, United States? !post yes, or type the place again.",
                        loggedIn: true),
                    CommandExample(
                        "!post Paris | https://example.org/alice", explained: "example.post.link",
                        answer: [
                            "You are on the map: Alice Martin — Paris, Île-de-France, France (48.8530, 2.3490) — https://example.org/alice",
                            "New pin: Alice Martin — Paris, Île-de-France, France — https://example.org/alice",
                        ], loggedIn: true),
                    CommandExample(
                        "!post Lisbon until tomorrow", explained: "example.post.trip",
                        answer:
                            "A trip shows instead of your home pin, and you have none yet: post your home place first with !post <place>, then !post Lisbon until 24 Dec.",
                        loggedIn: true),
                    CommandExample(
                        "!post Lisbon until 31 Feb", explained: "example.post.badDate",
                        answer: "There is no 31 Feb in the calendar.", loggedIn: true),
                    CommandExample(
                        "!post Lisbon until someday", explained: "example.post.unreadableDate",
                        answer:
                            "I can't read \"someday\" as a date: write 2026-12-24, 24 Dec, Dec 24, a weekday (Sunday), today, tomorrow or in 3 days.",
                        loggedIn: true),
                ]
            ) { call in try await plugin.post(call) },
            Command(
                "link",
                allowed: .privateMessage, requiresLogin: true,
                examples: [
                    CommandExample(
                        "!link https://example.org/alice", explained: "example.link.first",
                        answer: "First tell me where you are: !post <place>, then your link.", loggedIn: true)
                ]
            ) { call in try await plugin.link(call.argument, call) },
            Command(
                "unpost",
                allowed: .privateMessage, requiresLogin: true,
                examples: [
                    CommandExample(
                        "!unpost", explained: "example.unpost.pin",
                        answer: "You have no pin on the map.", loggedIn: true),
                    CommandExample(
                        "!unpost trip", explained: "example.unpost.trip",
                        answer: "You have no pin on the map, so no trip to end.", loggedIn: true),
                ]
            ) { call in
                if call.argument.lowercased() == "trip" {
                    try await plugin.endTrip(call)
                } else {
                    try await PinRemoval.unpost(call, services: plugin.services)
                }
            },
            Command(
                "cancel", allowed: .privateMessage,
                examples: [
                    CommandExample("!cancel", explained: "example.cancel.post", answer: "There is nothing to cancel.")
                ]
            ) { call in
                guard let bound = services.session(of: call), await flows.close(bound.owner) else {
                    await call.reply(call.phrases("post.nothingToCancel"))
                    return
                }
                await call.reply(call.phrases("post.cancelled"))
            },
        ]
    }

    /// "Where are you? !post <place>, e.g. !post Seattle, WA — then your link."
    static func whereAreYou(_ call: Invocation) -> String {
        call.phrases("post.whereAreYou", ["post": call.prefix + "post"])
    }

    func post(_ call: Invocation) async throws {
        guard let bound = services.session(of: call) else { return }
        let argument = call.argument
        if !argument.contains("|"), argument.lowercased().hasSuffix(" until") {
            throw UserFacingError(
                call.phrases(
                    "post.untilWhen",
                    ["post": call.prefix + "post", "forms": TripEndDateParser.acceptedForms(in: call.phrases)]))
        }
        if !argument.contains("|"), PostChoice(argument) == nil, let trip = Self.tripParts(of: argument) {
            try await postTrip(place: trip.place, until: trip.until, bound: bound, call: call)
            return
        }
        if let bar = argument.firstIndex(of: "|") {
            let place = argument[..<bar].trimmingCharacters(in: .whitespaces)
            let link = argument[argument.index(after: bar)...].trimmingCharacters(in: .whitespaces)
            guard !place.isEmpty else {
                throw UserFacingError(call.phrases("post.placeMissing", ["post": call.prefix + "post"]))
            }
            let draft = try await startFlow(place: place, pendingLink: link, bound: bound, call: call)
            if draft.isConfirmed {
                try await finish(draft, link: link, bound: bound, call: call, oneShot: true)
            }
            return
        }
        let lookup = await flows.draft(of: bound)
        if case .open(let draft) = lookup, let choice = PostChoice(argument) {
            try await choose(choice, in: draft, bound: bound, call: call)
            return
        }
        if argument.isEmpty {
            if case .open(let draft) = lookup {
                throw UserFacingError(nextStep(of: draft, call: call))
            }
            throw UserFacingError(Self.whereAreYou(call))
        }
        // Anything that looks like a link is judged as one, never looked up as a place.
        if LinkRules.looksLikeLink(argument) {
            switch lookup {
            case .open(let draft) where draft.isConfirmed:
                try await finish(draft, link: argument, bound: bound, call: call, oneShot: false)
                return
            case .open(let draft):
                throw UserFacingError(nextStep(of: draft, call: call))
            case .expired:
                throw UserFacingError(call.phrases("post.expired", ["post": call.prefix + "post"]))
            case .none:
                throw UserFacingError(call.phrases("post.placeBeforeThisLink", ["post": call.prefix + "post"]))
            }
        }
        var pendingLink: String?
        if case .open(let draft) = lookup {
            // A place is set: a new one needs the flow ended first, so that a mistyped link is
            // never taken for a place.
            guard !draft.isConfirmed else {
                throw UserFacingError(
                    call.phrases(
                        "post.placeIsSet",
                        [
                            "place": PlaceWording.place(draft.place, phrases: call.phrases),
                            "link": call.prefix + "link",
                            "cancel": call.prefix + "cancel", "post": call.prefix + "post",
                        ]))
            }
            pendingLink = draft.pendingLink
        }
        let draft = try await startFlow(place: argument, pendingLink: pendingLink, bound: bound, call: call)
        if draft.isConfirmed, let link = draft.pendingLink {
            // The place of a one-shot post, typed again exactly: the kept link finishes it.
            try await finish(draft, link: link, bound: bound, call: call, oneShot: true)
        }
    }

    func link(_ argument: String, _ call: Invocation) async throws {
        guard let bound = services.session(of: call) else { return }
        switch await flows.draft(of: bound) {
        case .open(let draft) where draft.isConfirmed:
            try await finish(draft, link: argument, bound: bound, call: call, oneShot: false)
        case .open(let draft):
            throw UserFacingError(nextStep(of: draft, call: call))
        case .expired:
            throw UserFacingError(call.phrases("post.expired", ["post": call.prefix + "post"]))
        case .none:
            throw UserFacingError(call.phrases("post.placeBeforeLink", ["post": call.prefix + "post"]))
        }
    }

    /// Validates the link and saves the pin; on failure the flow stays open.
    func finish(
        _ draft: PostDraft, link: String, bound: StudentSession, call: Invocation, oneShot: Bool
    ) async throws {
        let phrases = call.phrases
        let commands: [String: any PhraseValue] = ["link": call.prefix + "link", "cancel": call.prefix + "cancel"]
        let mediaURL: String
        switch LinkRules.validate(link) {
        case .success(let valid): mediaURL = valid
        case .failure(let problem):
            let refusal = problem.sentence(prefix: call.prefix, in: phrases)
            throw UserFacingError(
                oneShot
                    ? [
                        phrases("post.found", ["place": PlaceWording.place(draft.place, phrases: phrases)]), refusal,
                        phrases("post.placeKept", commands),
                    ].joined(separator: " ")
                    : refusal)
        }
        let profile = bound.profile
        let typedDraft = PinDraft(
            uniqueKey: profile.accountKey,
            firstName: profile.namesForPin.first,
            lastName: profile.namesForPin.last, mapString: draft.typedPlace, mediaURL: mediaURL,
            coordinate: draft.place.coordinate)
        let saved: StudentLocation
        let replaced: Bool
        do {
            // Made no more precise than the student chose before anything is stored.
            let pin = try await services.privacyGate.keep(typedDraft, resolved: draft.place).pin
            (saved, replaced) = try await services.directory.savePin(pin, session: bound.session)
        } catch let error as ServiceError {
            if case .sessionExpired = error {
                await flows.close(bound.owner)
                await services.sessions.unbind(call.sender)
                throw ServiceErrorWording.error(for: error)
            }
            let reason: String
            switch error {
            case .networkUnreachable:
                reason = phrases("post.notSavedUnreachable")
            default:
                reason = phrases("post.notSaved", ["reason": ServiceErrorWording.sentence(for: error, in: phrases)])
            }
            throw UserFacingError(reason + " " + phrases("post.keptForRetry", commands))
        }
        await flows.close(bound.owner)
        await services.classMap.record(saved)
        let name = Formatting.name(saved)
        let place = Formatting.place(saved.mapString, phrases: phrases)
        let shownLink = Formatting.link(saved.mediaURL)
        await call.reply(
            phrases(
                replaced ? "post.updated" : "post.saved",
                [
                    "name": name, "place": place, "coordinate": Formatting.coordinate(saved.coordinate),
                    "link": shownLink,
                ]))
        // Announce once: claimed so the announcer does not announce it too; it saves the pin as
        // announced once these lines have left (see AnnouncePlugin).
        if !(await services.ledger.claim([saved]).isEmpty) {
            for channel in services.settings.announceChannels {
                let namesOnly = await NamesOnlyWording.withholdsPlaces(
                    in: channel, services, isOpen: call.isOpenChannel)
                let heard = call.phrases(forChannel: channel)
                let text =
                    namesOnly
                    ? NamesOnlyWording.announcement(saved, moved: replaced, phrases: heard)
                    : Formatting.line([
                        heard(replaced ? "announce.moved" : "announce.new", ["name": name]),
                        Formatting.place(saved.mapString, phrases: heard), shownLink,
                    ])
                await call.say(text, in: channel)
            }
            await services.ledger.handedOver([saved])
        }
        // The bot's other networks announce it too.
        services.pinWakeups.wakeAll()
    }
}
