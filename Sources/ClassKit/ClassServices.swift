import BotKit
import Foundation
import Localization
import IRCProtocol
import NIOConcurrencyHelpers
import OnTheMapService

/// What the bot's config says that several class plugins read. Each plugin's own options are in
/// its `Settings` (its `plugins.<name>:` section).
public struct ClassSettings: Sendable {
    /// The name of the one network of a bot configured with `irc:`.
    public static let defaultNetworkName = "default"
    /// The channels that hear about new pins (none when the announce plugin is off).
    public var announceChannels: [String]
    /// The public address of the web map, or nil when the web map is off.
    public var webMapURL: String?
    /// How many recent pins the class map keeps (the seeds' table: 100).
    public var recentLimit: Int
    /// The command prefix, for hints in announcements.
    public var commandPrefix: String
    /// The most pins the class map pages through at start in a directory without a change feed
    /// (the Udacity API); the local and PostgreSQL directories are read whole.
    public var pagingCap: Int
    /// The name of this bot instance (its network and announcement channels): its announcement
    /// ledger is its own, so instances sharing a directory each announce every pin.
    public var instanceName: String?
    /// The IRC network these plugins serve, when the bot serves several: logins are throttled per
    /// network (an account or host on one network is not the same person on another) and the
    /// metrics name it.
    public var networkName: String?
    /// The operator's privacy rules: pin precision, who may look, where answers go.
    public var privacy: PrivacyPolicy
    /// How the network's staff reach whoever runs the bot (`irc.contact`), for `!help about`.
    public var contact: String?
    /// The language of each channel (announcements) and the default one (the web map's pages for
    /// a browser that asks for none the bot has).
    public var languages: ChannelLanguages

    public init(
        announceChannels: [String] = [], webMapURL: String? = nil, recentLimit: Int = 100, commandPrefix: String = "!",
        pagingCap: Int = 10_000, instanceName: String? = nil, networkName: String? = nil,
        privacy: PrivacyPolicy = PrivacyPolicy(), contact: String? = nil,
        languages: ChannelLanguages = ChannelLanguages()
    ) {
        self.languages = languages
        self.announceChannels = announceChannels
        self.webMapURL = webMapURL
        self.recentLimit = recentLimit
        self.commandPrefix = commandPrefix
        self.pagingCap = pagingCap
        self.instanceName = instanceName
        self.networkName = networkName
        self.privacy = privacy
        self.contact = contact
    }
}

/// The assembly of one network's class: the service layer, the shared settings, and the state kept
/// between commands that several plugins read (the cached class map, what was announced). Build
/// one per network; it is handed whole to no plugin and no web handler: each gets the capabilities
/// its `Needs` names, built from these (see `Capabilities/`), and keeps its own state itself. A bot on several
/// IRC networks builds one per network, each `sharing` the first: they have one class map, one
/// login throttle and one set of announcer wake-ups, and each its own settings, announcement
/// ledger and kept sessions.
public final class ClassServices: Sendable {
    public let directory: any StudentDirectory
    /// The directory's trips (`!post … until`, `!unpost trip`, the served API's `until`), when it
    /// keeps them; nil for one that keeps one pin per student (the Udacity-compatible API).
    public let trips: (any TripDirectory)?
    /// The directory's own accounts (`!register`), when the backend keeps them.
    public let accounts: (any AccountDirectory)?
    /// Where announced pins, trusted logins, sessions, open posts and unit choices are remembered
    /// across restarts, when the backend has it.
    public let stateStore: (any BotStateStore)?
    /// Instant news of pins saved elsewhere (PostgreSQL), when the backend has it.
    public let pinChanges: (any PinChangeNotifying)?
    /// Follows the accounts erased or unlinked by other processes (the operator's tools, other
    /// instances), when the backend keeps accounts: one per bot, shared by every network.
    public let accountEvents: AccountEventWatch?
    public let geocoder: any Geocoder
    /// Finds the places users type: tells places from what is not one, and offers rather than
    /// assumes inexact matches.
    public let placeFinder: PlaceFinder
    /// The place finder without its sentences (the served API words its own failures).
    public var placeResolver: PlaceResolver { placeFinder.resolver }
    /// Makes the privacy gate with the rules in force.
    public let privacyGates: PrivacyGates
    /// The one way a pin or trip goes to the directory: made no more precise than its student
    /// chose, with the privacy rules in force (a config reload changes them at once).
    public var privacyGate: PrivacyGate { privacyGates.current }
    /// The offline gazetteer's levels, which pins are coarsened to (nil: a grid).
    private let placeLevels: (any PlaceLevelFinder)?
    /// Each student's choice of precision (`!privacy`).
    public var privacyChoices: PrivacyChoices { privacyGates.choices }
    /// The time zones of pins and places (`!time`, `!awake`, `!overlap`): the offline gazetteer's
    /// (`places`), whatever geocoder finds places; every zone is unknown without it.
    public let timeZones: PinTimeZones
    /// The shared settings in force (a config reload may change them).
    public var settings: ClassSettings { settingsInForce.current }
    /// The shared settings in force, as plugins read them.
    public let settingsInForce: SettingsInForce
    /// The wall clock ("how long ago", post expiry, login throttle).
    public let now: @Sendable () -> Date

    public let classMap: ClassMap
    public let ledger: AnnouncementLedger
    /// Slows down password guessing for every way in (`!login`, the HTTP API): one count per
    /// identity and email, whichever way the guesses come.
    public let loginThrottle: LoginThrottle
    /// How many `!register` attempts each host may make.
    public let registrations: RegistrationAllowance
    /// Who is logged in on this network, and the gate its router admits them through: a command's
    /// session is `logins.session(of:)`.
    public let logins: LoginGate<StudentLogin>
    /// The language each student of this network chose (`!lang`): the router reads it for every
    /// command, the web for a signed-in student's pages.
    public let languages: StudentLanguages
    /// The students' sessions kept across restarts (on directories that keep their own accounts).
    public let sessionArchive: SessionArchive
    /// The instance name the state kept across restarts is filed under: the one at start, so a
    /// reload that changes the announcement channels finds what was kept.
    public let keptStateInstance: String?
    /// What this network's plugins keep about students, and who hears of a `!logout`.
    public let keepers = StudentKeepers()
    /// The announcers' wake-ups, shared by every network: a pin saved outside IRC, or announced on
    /// one network, wakes them all.
    public let pinWakeups: PinWakeups
    /// The services of every network of this bot (this one's and those sharing it).
    private let networks: ClassNetworks
    /// Retention runs once per bot, whichever network's privacy plugin starts it.
    public let retentionStarted: NIOLockedValueBox<Bool>

    /// `trips`: the directory's trips, nil when it keeps none. `places`: the offline gazetteer's
    /// levels and zones, which pins are coarsened to and local times read from (nil: pins are kept
    /// as found and every zone is unknown).
    public init(
        directory: any StudentDirectory, trips: (any TripDirectory)?, accounts: (any AccountDirectory)? = nil,
        stateStore: (any BotStateStore)? = nil, pinChanges: (any PinChangeNotifying)? = nil,
        accountEvents feed: (any AccountEventFeed)? = nil, geocoder: any Geocoder, places: (any PlaceFacts)?,
        settings: ClassSettings = ClassSettings(),
        loginThrottlePolicy: LoginThrottle.Policy = .init(), now: @escaping @Sendable () -> Date = { Date() },
        sharing first: ClassServices? = nil
    ) {
        self.directory = directory
        self.trips = trips
        self.accounts = accounts
        self.stateStore = stateStore
        self.pinChanges = pinChanges
        self.geocoder = geocoder
        self.placeFinder = PlaceFinder(geocoder: geocoder)
        let placeLevels = first?.placeLevels ?? places
        self.placeLevels = placeLevels
        let settingsInForce = SettingsInForce(settings)
        self.settingsInForce = settingsInForce
        self.privacyGates = PrivacyGates(
            places: placeLevels, settings: settingsInForce,
            choices: first?.privacyChoices ?? PrivacyChoices(store: stateStore))
        self.timeZones = first?.timeZones ?? PinTimeZones(finder: places)
        self.now = now
        self.classMap =
            first?.classMap
            ?? ClassMap(directory: directory, limit: settings.recentLimit, pagingCap: settings.pagingCap)
        self.ledger = AnnouncementLedger(store: stateStore, instance: settings.instanceName)
        self.loginThrottle =
            first?.loginThrottle ?? LoginThrottle(policy: loginThrottlePolicy, store: stateStore, now: now)
        self.registrations = first?.registrations ?? RegistrationAllowance(now: now)
        self.pinWakeups = first?.pinWakeups ?? PinWakeups()
        self.keptStateInstance = settings.instanceName
        let networks = first?.networks ?? ClassNetworks()
        let watch = first?.accountEvents ?? feed.map { AccountEventWatch(feed: $0, networks: networks) }
        self.accountEvents = watch
        let catchUp = Self.catchUp(watch)
        self.logins = LoginGate(catchUp: catchUp)
        self.languages = StudentLanguages(store: stateStore, sessions: logins.book)
        self.sessionArchive = SessionArchive(
            accounts: accounts, store: stateStore, instance: settings.instanceName, now: now, beforeWrite: catchUp)
        self.networks = networks
        self.retentionStarted = first?.retentionStarted ?? NIOLockedValueBox(false)
        networks.add(self)
    }

    /// Every student's session on this network.
    public var sessions: SessionBook<StudentLogin> { logins.book }

    /// The services of every network of this bot, this one first.
    public var everyNetwork: [ClassServices] {
        [self] + networks.all.filter { $0 !== self }
    }

    /// The listers of ``StudentKeepers/keepsAccounts(plugin:list:)``.
    func accountKeyListers() -> [@Sendable () async -> Set<String>] {
        keepers.accountKeyListers()
    }

    /// The write hook of state kept about students: brings the memory up to date with the
    /// accounts erased elsewhere first (see ``AccountEventWatch``); nil without account events.
    public var beforeKeptWrite: (@Sendable () async -> Void)? { Self.catchUp(accountEvents) }

    /// Where the plugins' `KeptState` lives on this network.
    public var keptStateHome: KeptStateHome {
        KeptStateHome(store: stateStore, instance: keptStateInstance, beforeWrite: beforeKeptWrite)
    }

    /// The longest a command or a write of kept state waits for the directory's account events
    /// (read in milliseconds when the directory answers).
    static let catchUpLimit: Duration = .seconds(1)

    private static func catchUp(_ watch: AccountEventWatch?) -> (@Sendable () async -> Void)? {
        guard let watch else { return nil }
        let catchUp: @Sendable () async -> Void = { await watch.catchUp(waitingAtMost: catchUpLimit) }
        return catchUp
    }

    /// What this network's plugins keep about `student`.
    public func keptItems(about student: StudentReference) async -> [KeptItem] {
        await keepers.keptItems(about: student)
    }

    /// Has this network's plugins forget `student`; returns what they forgot.
    public func eraseKept(about student: StudentReference) async -> [String] {
        await keepers.eraseKept(about: student)
    }

    /// Takes a pin saved outside the IRC commands (the HTTP API): every command sees it at once,
    /// and the announcer looks for new pins now rather than at its next poll.
    public func pinSavedOutsideIRC(_ pin: StudentLocation) async {
        await outsidePins.saved(pin)
    }

    /// What takes the pins saved outside IRC.
    public var outsidePins: OutsidePins { OutsidePins(classMap: classMap, wakeups: pinWakeups) }

    /// Takes new shared settings (a config reload): announcements and hints follow them at once.
    public func update(settings: ClassSettings) {
        settingsInForce.update(settings)
    }

    /// Tells every plugin listening (``StudentKeepers/onLogout(_:)``) that `owner` logged out.
    public func loggedOut(_ owner: SessionOwner) async {
        await keepers.loggedOut(owner)
    }
}

/// The announcers' wake-ups for a pin saved in this process, shared by every network's services.
public final class PinWakeups: Sendable {
    private let listeners = NIOLockedValueBox<[UUID: AsyncStream<Void>.Continuation]>([:])

    public init() {}

    /// Wakes every announcer listening.
    public func wakeAll() {
        for listener in listeners.withLockedValue({ $0.values }) { listener.yield() }
    }

    /// A wake-up each time ``wakeAll()`` is called.
    public func stream() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        listeners.withLockedValue { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.listeners.withLockedValue { $0[id] = nil } }
        return stream
    }
}

/// One thing the bot keeps about a student outside the directory, as `!mydata` lists it.
public struct KeptItem: Sendable, Hashable {
    /// Which kind of thing it is, the same in every language ("units").
    public var id: String
    /// What it is, in the asker's language ("unit choice").
    public var what: String
    /// Its value, in words ("mi").
    public var detail: String
    /// When it last changed, when known.
    public var changedAt: Date?

    public init(id: String, what: String, detail: String, changedAt: Date?) {
        self.id = id
        self.what = what
        self.detail = detail
        self.changedAt = changedAt
    }
}

/// The student a plugin is asked about (``StudentKeepers/keepsAboutStudents(plugin:describe:erase:)``).
public struct StudentReference: Sendable {
    /// Their account key.
    public var accountKey: String
    /// The IRC user asking (`!mydata`, `!forget`), when there is one.
    public var sender: UserIdentity?
    /// The network's case mapping.
    public var caseMapping: CaseMapping
    /// Every IRC identity known to have used the account (the sender, the owners of its sessions).
    public var identities: [UserIdentity]
    /// The language what is kept, or was erased, is described in (the asker's; English for the
    /// operator's tools).
    public var phrases: Phrasebook

    public init(
        accountKey: String, sender: UserIdentity?, caseMapping: CaseMapping, identities: [UserIdentity],
        phrases: Phrasebook = .english
    ) {
        self.accountKey = accountKey
        self.sender = sender
        self.caseMapping = caseMapping
        self.identities = identities
        self.phrases = phrases
    }
}

/// A plugin's description and eraser of what it keeps about students.
struct StudentKeeper: Sendable {
    let plugin: String
    let describe: @Sendable (StudentReference) async -> [KeptItem]
    let erase: @Sendable (StudentReference) async -> [String]
}

/// The services of every network of one bot, held weakly (a network's services live as long as
/// its `BotControl` holds them).
final class ClassNetworks: Sendable {
    private final class Entry: Sendable {
        weak let services: ClassServices?
        init(_ services: ClassServices) { self.services = services }
    }

    private let entries = NIOLockedValueBox<[Entry]>([])

    func add(_ services: ClassServices) {
        entries.withLockedValue { list in
            list.removeAll { $0.services == nil }
            list.append(Entry(services))
        }
    }

    var all: [ClassServices] { entries.withLockedValue { $0.compactMap(\.services) } }
}
