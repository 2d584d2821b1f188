import BotKit
import Foundation
import OnTheMapService

/// Kilometres or miles, for distances shown to students.
public enum UnitSystem: String, Sendable, Hashable, CaseIterable {
    case km, mi
}

/// What the operator configured for the class commands (read from the bot's config file).
public struct ClassSettings: Sendable {
    /// The default distance unit (a student may choose another with `!units`).
    public var units: UnitSystem
    /// How often the announcer looks for posts made elsewhere.
    public var pollInterval: Duration
    /// The channels that hear about new pins.
    public var announceChannels: [String]
    /// Whether `!register` may create accounts (only on backends that keep accounts).
    public var allowRegistration: Bool
    /// How long an unfinished `!post` waits for its link.
    public var postFlowLifetime: Duration
    /// The public address of the web map, or nil when the web map is off.
    public var webMapURL: String?
    /// How many recent pins the class map keeps (the seeds' table: 100).
    public var recentLimit: Int
    /// Rows of `!list` per page.
    public var listPageSize: Int
    /// How often `!refresh` may run in one channel.
    public var refreshCooldown: Duration
    /// Failed logins from one identity before it must wait.
    public var loginFailureLimit: Int
    /// How long an identity waits after too many failed logins (doubling with each lockout).
    public var loginLockout: Duration
    /// Failed logins for one email, from anyone, before that email must wait.
    public var loginEmailFailureLimit: Int
    /// Failed logins per minute on the whole bot before every new attempt must wait.
    public var loginGlobalFailureLimit: Int
    /// New pins announced one by one in a round; more than this becomes a summary line.
    public var announceBurstLimit: Int
    /// The command prefix, for hints in announcements.
    public var commandPrefix: String

    public init(
        units: UnitSystem = .km, pollInterval: Duration = .seconds(300), announceChannels: [String] = [],
        allowRegistration: Bool = false, postFlowLifetime: Duration = .seconds(600), webMapURL: String? = nil,
        recentLimit: Int = 100, listPageSize: Int = 10, refreshCooldown: Duration = .seconds(30),
        loginFailureLimit: Int = 5, loginLockout: Duration = .seconds(15 * 60), announceBurstLimit: Int = 3,
        commandPrefix: String = "!", loginEmailFailureLimit: Int = 10, loginGlobalFailureLimit: Int = 60
    ) {
        self.units = units
        self.pollInterval = pollInterval
        self.announceChannels = announceChannels
        self.allowRegistration = allowRegistration
        self.postFlowLifetime = postFlowLifetime
        self.webMapURL = webMapURL
        self.recentLimit = recentLimit
        self.listPageSize = listPageSize
        self.refreshCooldown = refreshCooldown
        self.loginFailureLimit = loginFailureLimit
        self.loginLockout = loginLockout
        self.announceBurstLimit = announceBurstLimit
        self.commandPrefix = commandPrefix
        self.loginEmailFailureLimit = loginEmailFailureLimit
        self.loginGlobalFailureLimit = loginGlobalFailureLimit
    }
}

/// Everything the class plugins share: the service layer, the settings, and the state kept
/// between commands (the cached class map, unit choices, open posts, what was announced).
/// Build one per bot and hand it to every plugin.
public final class ClassServices: Sendable {
    public let directory: any StudentDirectory
    /// The directory's own accounts (`!register`), when the backend keeps them.
    public let accounts: (any AccountDirectory)?
    /// Where announced pins and trusted logins are remembered across restarts, when the backend has it.
    public let stateStore: (any BotStateStore)?
    /// Instant news of pins saved elsewhere (PostgreSQL), when the backend has it.
    public let pinChanges: (any PinChangeNotifying)?
    public let geocoder: any Geocoder
    public let settings: ClassSettings
    /// The wall clock ("how long ago", post expiry, login throttle).
    public let now: @Sendable () -> Date

    public let classMap: ClassMap
    public let units: UnitPreferences
    public let ledger: AnnouncementLedger
    let postFlows: PostFlows
    /// Slows down password guessing (`!login`).
    public let loginThrottle: LoginThrottle

    public init(
        directory: any StudentDirectory, accounts: (any AccountDirectory)? = nil,
        stateStore: (any BotStateStore)? = nil, pinChanges: (any PinChangeNotifying)? = nil,
        geocoder: any Geocoder, settings: ClassSettings = ClassSettings(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.directory = directory
        self.accounts = accounts
        self.stateStore = stateStore
        self.pinChanges = pinChanges
        self.geocoder = geocoder
        self.settings = settings
        self.now = now
        self.classMap = ClassMap(directory: directory, limit: settings.recentLimit)
        self.units = UnitPreferences(defaultUnit: settings.units)
        self.ledger = AnnouncementLedger(store: stateStore)
        self.postFlows = PostFlows(lifetime: settings.postFlowLifetime, now: now)
        self.loginThrottle = LoginThrottle(
            policy: LoginThrottle.Policy(
                identityFailureLimit: settings.loginFailureLimit,
                emailFailureLimit: settings.loginEmailFailureLimit,
                globalFailureLimit: settings.loginGlobalFailureLimit, lockout: settings.loginLockout),
            store: stateStore, now: now)
    }

    /// Geocodes `query`, turning a `ServiceError` into the place finder's sentence (it is not the
    /// class directory that failed).
    func geocode(_ query: String, limit: Int) async throws -> [PlaceCandidate] {
        do {
            return try await geocoder.geocode(query, limit: limit)
        } catch let error as ServiceError {
            throw UserFacingError(ServiceErrorWording.geocoderSentence(for: error))
        }
    }

    /// Runs a service call, turning a `ServiceError` into the one sentence the user sees.
    func call<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ServiceError {
            throw ServiceErrorWording.error(for: error)
        }
    }
}
