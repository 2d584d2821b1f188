import BotKit
import Foundation
import NIOConcurrencyHelpers
import OnTheMapService

// The capabilities a class plugin or the web layer may be given, each on its own. A plugin names
// the ones it uses in its `Needs` (a struct of exactly those), and the assembly (`ClassServices`,
// one per network) builds it; a test builds only the capabilities the command under test uses.
//
// Most capabilities are values or small actors that exist on their own (`ClassMap`,
// `AnnouncementLedger`, `PinTimeZones`, `LoginGate`, a directory protocol, the clock). The types
// below are the ones that were parts of `ClassServices` before. The protocols only say which stored
// capability a `Needs` holds; their extensions add the words the commands use on it, and none of
// their requirements has a default body.

/// Runs a service call, turning a `ServiceError` into the one sentence the user sees
/// (`services.call { … }`). It holds nothing: any plugin may make one.
public struct ServiceCalls: Sendable {
    public init() {}

    public func callAsFunction<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ServiceError {
            throw ServiceErrorWording.error(for: error)
        }
    }
}

/// The shared settings in force: a config reload replaces them, and every reader sees the new ones
/// at its next read.
public final class SettingsInForce: Sendable {
    private let box: NIOLockedValueBox<ClassSettings>

    public init(_ settings: ClassSettings = ClassSettings()) {
        self.box = NIOLockedValueBox(settings)
    }

    /// The settings now.
    public var current: ClassSettings { box.withLockedValue { $0 } }

    /// Takes new settings (a config reload).
    public func update(_ settings: ClassSettings) {
        box.withLockedValue { $0 = settings }
    }
}

/// Finds the places users type, with the place finder's sentences for its failures.
public struct PlaceFinder: Sendable {
    /// Tells places from what is not one, and offers rather than assumes inexact matches.
    public let resolver: PlaceResolver

    public init(geocoder: any Geocoder) {
        self.resolver = PlaceResolver(geocoder: geocoder)
    }

    /// Resolves a typed place, turning a `ServiceError` into the place finder's sentence.
    public func resolve(_ query: String) async throws -> PlaceResolution {
        do {
            return try await resolver.resolve(query)
        } catch let error as ServiceError {
            throw ServiceErrorWording.geocoderError(for: error)
        }
    }
}

/// Makes the ``PrivacyGate`` with the privacy rules in force at each use (a reload changes them at
/// once): the one way a pin or trip goes to the directory.
public struct PrivacyGates: Sendable {
    /// The offline gazetteer's levels, which pins are coarsened to (nil: a grid).
    let places: (any PlaceLevelFinder)?
    let settings: SettingsInForce
    /// Each student's choice of precision (`!privacy`).
    public let choices: PrivacyChoices

    public init(places: (any PlaceLevelFinder)?, settings: SettingsInForce, choices: PrivacyChoices) {
        self.places = places
        self.settings = settings
        self.choices = choices
    }

    /// The gate with the rules in force now.
    public var current: PrivacyGate {
        PrivacyGate(places: places, policy: settings.current.privacy, choices: choices)
    }
}

/// What the plugins keep about students outside the directory, for `!mydata`, `!forget` and the
/// account events of other processes, and who hears of a `!logout`: each plugin registers here
/// when it is made. One per network.
public final class StudentKeepers: Sendable {
    private let keepers = NIOLockedValueBox<[StudentKeeper]>([])
    private let keyListers = NIOLockedValueBox<[String: @Sendable () async -> Set<String>]>([:])
    private let logoutListeners = NIOLockedValueBox<[@Sendable (SessionOwner) async -> Void]>([])

    public init() {}

    /// Registers what the plugin called `plugin` keeps about students outside the directory:
    /// `describe` lists it for `!mydata`, `erase` forgets it (and returns what it forgot, in words:
    /// "your unit choice"), both in the language of the reference's `phrases`. A plugin made afresh
    /// (a config reload) replaces its earlier registration.
    public func keepsAboutStudents(
        plugin: String, describe: @escaping @Sendable (StudentReference) async -> [KeptItem],
        erase: @escaping @Sendable (StudentReference) async -> [String]
    ) {
        let keeper = StudentKeeper(plugin: plugin, describe: describe, erase: erase)
        keepers.withLockedValue { keepers in
            if let index = keepers.firstIndex(where: { $0.plugin == plugin }) {
                keepers[index] = keeper
            } else {
                keepers.append(keeper)
            }
        }
    }

    /// Registers how the plugin called `plugin` lists the account keys it keeps something about
    /// (so that an erasure made elsewhere, known by a digest of the key, finds them).
    public func keepsAccounts(plugin: String, list: @escaping @Sendable () async -> Set<String>) {
        keyListers.withLockedValue { $0[plugin] = list }
    }

    /// The listers of ``keepsAccounts(plugin:list:)``.
    func accountKeyListers() -> [@Sendable () async -> Set<String>] {
        keyListers.withLockedValue { Array($0.values) }
    }

    /// What the registered plugins keep about `student`.
    public func keptItems(about student: StudentReference) async -> [KeptItem] {
        var items: [KeptItem] = []
        for keeper in keepers.withLockedValue({ $0 }) { items += await keeper.describe(student) }
        return items
    }

    /// Has the registered plugins forget `student`; returns what they forgot.
    public func eraseKept(about student: StudentReference) async -> [String] {
        var erased: [String] = []
        for keeper in keepers.withLockedValue({ $0 }) { erased += await keeper.erase(student) }
        return erased
    }

    /// Calls `listener` each time a student logs out with `!logout` (a plugin ends what the student
    /// left open).
    public func onLogout(_ listener: @escaping @Sendable (SessionOwner) async -> Void) {
        logoutListeners.withLockedValue { $0.append(listener) }
    }

    /// Tells every ``onLogout(_:)`` listener that `owner` logged out.
    public func loggedOut(_ owner: SessionOwner) async {
        for listener in logoutListeners.withLockedValue({ $0 }) { await listener(owner) }
    }
}

/// Where a plugin's `KeptState` lives: the directory's state store (nil when the backend has
/// none), the instance name it is filed under, and the write hook that first brings the memory up
/// to date with the accounts erased elsewhere.
public struct KeptStateHome: Sendable {
    public let store: (any BotStateStore)?
    public let instance: String?
    public let beforeWrite: (@Sendable () async -> Void)?

    public init(
        store: (any BotStateStore)?, instance: String? = nil, beforeWrite: (@Sendable () async -> Void)? = nil
    ) {
        self.store = store
        self.instance = instance
        self.beforeWrite = beforeWrite
    }
}

/// A `Needs` that reads the shared settings in force.
public protocol ReadsClassSettings: Sendable {
    var settingsInForce: SettingsInForce { get }
}

extension ReadsClassSettings {
    /// The shared settings in force (a config reload may change them).
    public var settings: ClassSettings { settingsInForce.current }

    /// The IRC network these plugins serve, as links and account events name it.
    public var networkName: String { settings.networkName ?? ClassSettings.defaultNetworkName }
}

/// A `Needs` that reads who is logged in on its network.
public protocol ReadsSessions: Sendable {
    var logins: LoginGate<StudentLogin> { get }
}

extension ReadsSessions {
    /// The session the sender of `call` runs it with, when they are logged in.
    public func session(of call: Invocation) -> StudentSession? { logins.session(of: call) }

    /// Every student's session on this network.
    public var sessions: SessionBook<StudentLogin> { logins.book }
}

/// A `Needs` that finds the places users type.
public protocol FindsPlaces: Sendable {
    var placeFinder: PlaceFinder { get }
}

extension FindsPlaces {
    /// Resolves a typed place, turning a `ServiceError` into the place finder's sentence.
    public func resolvePlace(_ query: String) async throws -> PlaceResolution {
        try await placeFinder.resolve(query)
    }
}

/// A `Needs` that places pins or trips, or reads them at their students' level, through the
/// privacy gate.
public protocol PassesPrivacyGate: Sendable {
    var privacyGates: PrivacyGates { get }
}

extension PassesPrivacyGate {
    /// The privacy gate with the rules in force.
    public var privacyGate: PrivacyGate { privacyGates.current }
}

/// Takes a pin saved outside the IRC commands (the HTTP API): every command sees it at once, and
/// the announcers look for new pins now rather than at their next poll.
public struct OutsidePins: Sendable {
    let classMap: ClassMap
    let wakeups: PinWakeups

    public init(classMap: ClassMap, wakeups: PinWakeups) {
        self.classMap = classMap
        self.wakeups = wakeups
    }

    /// Records `pin`, saved outside IRC, and wakes the announcers.
    public func saved(_ pin: StudentLocation) async {
        await classMap.record(pin)
        wakeups.wakeAll()
    }
}
