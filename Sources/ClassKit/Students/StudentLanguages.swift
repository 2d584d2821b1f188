import BotKit
import Foundation
import IRCProtocol
import Localization
import OnTheMapService

/// The language each student chose with `!lang`. A logged-in student's choice is kept with their
/// account: one state-store key (`language/<accountKey>`), shared by every bot instance on the
/// directory, read again at most every ``freshness`` (so a choice made through another instance
/// holds within seconds, and a stream of command lines costs the store one read, not one a line),
/// shown by `!mydata`, exported and erased with the student's data. Without a store (the Udacity
/// backend) it lasts until a restart. Someone not logged in keeps a choice for their nick while the
/// bot runs, never written anywhere. Nobody's language is guessed from their nick or host: without
/// a choice they read the channel's or the default language.
public actor StudentLanguages: LanguageChoices {
    /// The state-store key of one account's language.
    public static func stateKey(accountKey: String) -> String { "language/\(accountKey)" }

    /// The most choices kept for people who are not logged in (the least recent goes first).
    static let connectionCapacity = 10_000

    private let store: (any BotStateStore)?
    private let sessions: SessionBook<StudentLogin>
    /// Accounts' choices, when there is no store.
    private var byAccount: [String: Language] = [:]
    /// What the store said of each account lately, and when (the router's reads).
    private var recent: [String: (language: Language?, readAt: ContinuousClock.Instant)] = [:]
    /// How long a choice read from the store is used before it is read again.
    static let freshness: Duration = .seconds(10)
    /// Choices of people not logged in, by nick key; `connectionOrder` is least recent first.
    private var byConnection: [String: Language] = [:]
    private var connectionOrder: [String] = []

    public init(store: (any BotStateStore)?, sessions: SessionBook<StudentLogin>) {
        self.store = store
        self.sessions = sessions
    }

    public func chosenLanguage(of sender: UserIdentity, caseMapping: CaseMapping) async -> Language? {
        if let account = await sessions.session(for: sender)?.login.profile.accountKey {
            let now = ContinuousClock.now
            if let known = recent[account], known.readAt.duration(to: now) < Self.freshness { return known.language }
            do {
                let language = try await chosen(byAccount: account)
                // A choice made here while the store was being read is newer than what it said.
                if let known = recent[account], known.readAt >= now { return known.language }
                if recent.count >= Self.connectionCapacity { recent.removeAll() }
                recent[account] = (language, now)
                return language
            } catch {
                return nil
            }
        }
        return byConnection[sender.key(by: .nick, caseMapping: caseMapping)]
    }

    /// What the student with `accountKey` chose, or nil. Throws when the store cannot be read.
    public func chosen(byAccount accountKey: String) async throws -> Language? {
        guard let store else { return byAccount[accountKey] }
        return try await store.state(Self.stateKey(accountKey: accountKey)).flatMap { Language(tag: $0) }
    }

    /// Keeps `language` as the choice of the student with `accountKey` (nil: back to the default).
    /// The choice holds at once for the commands this instance admits, even those whose read of the
    /// store began before it was written.
    public func set(_ language: Language?, forAccount accountKey: String) async throws {
        guard let store else {
            byAccount[accountKey] = language
            return
        }
        recent[accountKey] = (language, ContinuousClock.now)
        do {
            try await store.setState(Self.stateKey(accountKey: accountKey), language?.tag)
        } catch {
            recent[accountKey] = nil
            throw error
        }
    }

    /// Keeps `language` for `sender`'s nick while the bot runs (nil: back to the default).
    public func set(_ language: Language?, forConnectionOf sender: UserIdentity, caseMapping: CaseMapping) {
        let key = sender.key(by: .nick, caseMapping: caseMapping)
        connectionOrder.removeAll { $0 == key }
        byConnection[key] = language
        guard language != nil else { return }
        connectionOrder.append(key)
        if connectionOrder.count > Self.connectionCapacity {
            let dropped = connectionOrder.removeFirst()
            byConnection[dropped] = nil
        }
    }

    /// What `sender` chose for their nick while not logged in, or nil.
    public func chosen(forConnectionOf sender: UserIdentity, caseMapping: CaseMapping) -> Language? {
        byConnection[sender.key(by: .nick, caseMapping: caseMapping)]
    }

    /// Forgets the choice of the student with `accountKey` (their data is being erased).
    public func forget(accountKey: String) async throws {
        try await set(nil, forAccount: accountKey)
    }
}
