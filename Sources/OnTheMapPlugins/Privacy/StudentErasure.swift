import BotKit
import ClassKit
import Foundation
import Localization
import IRCProtocol
import OnTheMapService

/// Erases one student: the one way in for `!forget confirm` and the operator's `accounts forget`.
///
/// What goes, in this order:
/// 1. in this process, on every network: the student's IRC sessions end (their kept copies too),
///    and each plugin forgets what it keeps about them (``StudentKeepers/keepsAboutStudents(plugin:describe:erase:)``:
///    open post step, unit choice); the login throttle forgets their email and trusted hosts;
/// 2. in the directory, in one transaction: the pin (its tombstone keeps the objectId alone), the
///    sessions and the account row; the class map and the web map forget the pin at once;
/// 3. in the state store: what ``KeptStateRegistry`` lists as holding something about students,
///    of every bot instance: the student's own keys deleted, their entries in shared values taken out;
/// 4. the directory flushes the erasure out of its files where it can (SQLite: a checkpoint that
///    truncates the write-ahead log; deleted content is already zeroed by `secure_delete`).
///
/// Another process on the same directory finds the account, its sessions and its pin gone at once
/// (its class map reads the tombstone); the erasure's account event (``AccountEventFeed``) has its
/// ``AccountEventWatch`` end the student's sessions and drop what it keeps about them in memory
/// before its next write or logged-in command.
public struct StudentErasure: Sendable {
    /// What an erasure removed.
    public struct Report: Sendable {
        /// The account as it was, with its pin and sessions.
        public var record: AccountRecord
        /// The IRC sessions ended in this process (every network).
        public var ircSessionsEnded: Int
        /// How many hosts were trusted for the account's email.
        public var trustedHosts: Int
        /// What else was forgotten, in words ("your unit choice"), without repeats.
        public var keptState: [String]
        /// How many state-store values were deleted or rewritten.
        public var storeEntries: Int
    }

    /// What the running bot holds about students beyond the directory and its state store.
    public struct InBot: Sendable {
        /// The networks' sessions and what their plugins keep.
        public let networks: EveryNetwork
        /// The hosts trusted for an email.
        public let loginThrottle: LoginThrottle
        /// The precision choices (kept in memory by a bot without a state store).
        public let privacyChoices: PrivacyChoices
        /// The class map, which forgets the pin at once.
        public let classMap: ClassMap

        public init(
            networks: EveryNetwork, loginThrottle: LoginThrottle, privacyChoices: PrivacyChoices, classMap: ClassMap
        ) {
            self.networks = networks
            self.loginThrottle = loginThrottle
            self.privacyChoices = privacyChoices
            self.classMap = classMap
        }
    }

    let accounts: any AccountDirectory
    let store: (any BotStateStore)?
    let services: InBot?

    /// `services`: the running bot's (nil for the operator's tool, which has no IRC sessions).
    public init(accounts: any AccountDirectory, store: (any BotStateStore)?, services: InBot? = nil) {
        self.accounts = accounts
        self.store = store
        self.services = services
    }

    /// Erases the account with `accountKey`; nil when there is none. `requester` is the IRC user who
    /// asked (`!forget confirm`), whose session in `book` (their network's) ends too.
    public func erase(
        accountKey: String, requester: UserIdentity? = nil, caseMapping: CaseMapping = .rfc1459,
        book: SessionBook<StudentLogin>? = nil, phrases: Phrasebook = .english
    ) async throws -> Report? {
        guard let record = try await accounts.accountRecord(.key(accountKey)) else { return nil }
        // Who used the account: the requester, and every owner of a session of it, live or kept.
        var identities: [UserIdentity] = requester.map { [$0] } ?? []
        // The requester's network is the first of `everyNetwork`.
        let networks = services?.networks.all ?? []
        var ended: [[StudentSession]] = []
        for (index, network) in networks.enumerated() {
            var here = await network.sessionArchive.endSessions(ofAccount: accountKey)
            if index == 0, let book { here += await book.unbindAll { $0.session.accountKey == accountKey } }
            ended.append(here)
        }
        identities += ended.joined().map { SessionArchive.identity(owner: $0.owner, nick: $0.nick) }
        if let store {
            let kept = KeptStateRegistry.Keys.perInstance(base: SessionArchive.stateKey(instance: nil))
            for key in try await store.stateKeys(prefix: SessionArchive.stateKey(instance: nil)).filter(kept.covers) {
                guard let text = try await store.state(key) else { continue }
                identities += SessionArchive.identities(in: text, accountKey: accountKey)
            }
        }
        var keptState: [String] = []
        var trustedHosts = 0
        if let services {
            let student = StudentReference(
                accountKey: accountKey, sender: requester, caseMapping: caseMapping, identities: identities,
                phrases: phrases)
            for (network, endedHere) in zip(networks, ended) {
                for item in await network.keepers.eraseKept(about: student) where !keptState.contains(item) {
                    keptState.append(item)
                }
                for owner in Set(endedHere.map(\.owner)) { await network.keepers.loggedOut(owner) }
            }
            trustedHosts = await services.loginThrottle.forget(email: record.account.email)
            // The precision choice (its state-store key, or the memory of a bot without a store).
            try await services.privacyChoices.forget(accountKey)
        }
        if trustedHosts == 0, let store, let text = try await store.state(LoginThrottle.stateKey) {
            trustedHosts = LoginThrottle.trusted(in: text, email: record.account.email).count
        }
        let erased = try await accounts.eraseAccount(accountKey: accountKey) ?? record
        if let pin = erased.pin, let services { await services.classMap.forget(pin) }
        let student = KeptStateRegistry.StudentInState(
            accountKey: accountKey, email: record.account.email, identities: identities)
        let storeEntries = try await scrubStore(student)
        try await accounts.flushErasures(pins: erased.pin.map { [$0.objectId] } ?? [])
        return Report(
            record: erased, ircSessionsEnded: ended.joined().count, trustedHosts: trustedHosts, keptState: keptState,
            storeEntries: storeEntries)
    }

    /// Deletes the student's own keys and takes their entries out of the shared values; returns
    /// how many changed.
    private func scrubStore(_ student: KeptStateRegistry.StudentInState) async throws -> Int {
        guard let store else { return 0 }
        var changed = 0
        for entry in KeptStateRegistry.entries {
            if case .nothingAboutStudents = entry.holding { continue }
            for key in try await KeptStateRegistry.keys(of: entry, accountKey: student.accountKey, in: store) {
                guard let text = try await store.state(key) else { continue }
                switch entry.holding {
                case .theAccount:
                    try await store.setState(key, nil)
                case .entries(let scrub, _):
                    guard let scrubbed = scrub(text, student) else { continue }
                    try await store.setState(key, scrubbed)
                case .nothingAboutStudents:
                    continue
                }
                changed += 1
            }
        }
        return changed
    }
}
