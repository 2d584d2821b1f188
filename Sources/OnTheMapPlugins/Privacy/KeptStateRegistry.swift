import ClassKit
import Foundation
import IRCProtocol
import Localization
import OnTheMapService

/// Every kind of value the bot keeps in the directory's state store, and what each holds about a
/// student: the one list that erasure (``StudentErasure``) and export (``StudentDataExport``) read.
/// A value that holds something about a student says how an erasure takes it out and how an
/// export shows it; one that holds nothing about any student says why. A key of the store that no
/// entry claims is a test failure (`KeptStateRegistryTests`), so a part of the bot that starts
/// keeping something new must say here how it is erased and exported.
public enum KeptStateRegistry {
    /// Which keys an entry covers.
    public enum Keys: Sendable {
        /// One key per account: `prefix` + the account key.
        case perAccount(prefix: String)
        /// One value per bot instance (`base`, or `base@instance`; see `StateKey.of`), holding many
        /// students' entries.
        case perInstance(base: String)
        /// One value for the whole class.
        case single(String)

        /// Whether `key` is one of these.
        public func covers(_ key: String) -> Bool {
            switch self {
            case .perAccount(let prefix): key.hasPrefix(prefix) && key.count > prefix.count
            case .perInstance(let base): key == base || key.hasPrefix(base + "@")
            case .single(let name): key == name
            }
        }
    }

    /// What an entry keeps about students, and how erasure and export deal with it.
    public enum Holding: Sendable {
        /// Something about the student whose account key ends the key: erased by deleting the key,
        /// exported by `export`.
        case theAccount(export: @Sendable (_ text: String, _ into: inout StudentDataExport) -> Void)
        /// Entries of many students: erased by `scrub` (the value without the student's entries; nil
        /// when it holds none), exported by `export`.
        case entries(
            scrub: @Sendable (_ text: String, _ student: StudentInState) -> String?,
            export:
                @Sendable (
                    _ text: String, _ instance: String, _ student: inout StudentInState,
                    _ into: inout StudentDataExport
                ) -> Void)
        /// Nothing about any student (the reason, for the reader).
        case nothingAboutStudents(because: String)
    }

    /// One kind of kept value.
    public struct Entry: Sendable {
        /// What it is, for the reader ("the pin precision a student chose").
        public let what: String
        public let keys: Keys
        public let holding: Holding
    }

    /// A student as erasure and export find them in the store: their account and email, and the
    /// IRC identities known to have used the account (filled as the kept sessions are read, which
    /// come first).
    public struct StudentInState: Sendable {
        public var accountKey: String
        public var email: String
        public var identities: [UserIdentity]
        /// The keys unit choices of `identities` are kept under.
        var unitKeys: Set<String> { UnitPreferences.keys(of: identities) }
    }

    /// Every kind of value in the store. Kept sessions come first: the identities they name find
    /// the student's unit choices.
    public static let entries: [Entry] = [
        Entry(
            what: "the IRC sessions kept across restarts",
            keys: .perInstance(base: SessionArchive.stateKey(instance: nil)),
            holding: .entries(
                scrub: { SessionArchive.scrub($0, accountKey: $1.accountKey) },
                export: { text, instance, student, export in
                    for identity in SessionArchive.identities(in: text, accountKey: student.accountKey) {
                        student.identities.append(identity)
                        export.keptSessions.append(
                            StudentDataExport.KeptSession(
                                instance: instance, nick: identity.nick, servicesAccount: identity.loggedInAccount,
                                userAndHost: identity.host.map { "\(identity.user ?? "")@\($0)" }))
                    }
                })),
        Entry(
            what: "the open step of a two-step !post", keys: .perInstance(base: PostFlows.stateKey(instance: nil)),
            holding: .entries(
                scrub: { PostFlows.scrub($0, accountKey: $1.accountKey) },
                export: { text, instance, student, export in
                    for draft in PostFlows.drafts(in: text, accountKey: student.accountKey) {
                        export.openPosts.append(
                            StudentDataExport.OpenPost(
                                instance: instance, place: draft.typedPlace, startedAt: draft.startedAt))
                    }
                })),
        Entry(
            what: "the unit each nick chose with !units",
            keys: .perInstance(base: UnitPreferences.stateKey(instance: nil)),
            holding: .entries(
                scrub: { UnitPreferences.scrub($0, keys: $1.unitKeys) },
                export: { text, instance, student, export in
                    let keys = student.unitKeys
                    for choice in UnitPreferences.kept(in: text) where keys.contains(choice.key) {
                        export.unitChoices.append(
                            StudentDataExport.UnitChoice(
                                instance: instance, unit: choice.unit.rawValue,
                                chosenAt: choice.at.map(Date.init(timeIntervalSince1970:))))
                    }
                })),
        Entry(
            what: "the hosts and services accounts trusted after a good login", keys: .single(LoginThrottle.stateKey),
            holding: .entries(
                scrub: { LoginThrottle.scrub($0, email: $1.email) },
                export: { text, _, student, export in
                    export.trustedHosts = LoginThrottle.trusted(in: text, email: student.email).map {
                        StudentDataExport.TrustedHost(identity: $0.identity, lastLogin: $0.at)
                    }
                })),
        Entry(
            what: "the pin precision a student chose with !privacy",
            keys: .perAccount(prefix: PrivacyChoices.stateKey(accountKey: "")),
            holding: .theAccount(export: { text, export in export.chosenPrecision = PinPrecision(word: text)?.rawValue }
            )),
        Entry(
            what: "how a student's name shows to others, chosen with !privacy name",
            keys: .perAccount(prefix: PrivacyChoices.nameKey(accountKey: "")),
            holding: .theAccount(export: { text, export in export.chosenNameForm = NameForm(word: text)?.rawValue })),
        Entry(
            what: "the language a student chose with !lang",
            keys: .perAccount(prefix: StudentLanguages.stateKey(accountKey: "")),
            holding: .theAccount(export: { text, export in export.chosenLanguage = Language(tag: text)?.tag })),
        Entry(
            what: "the unused sign-in link of the class map (a digest and its expiry)",
            keys: .perAccount(prefix: SignInLinks.stateKey(accountKey: "")),
            holding: .theAccount(export: { text, export in
                export.signInLinkExpiresAt = SignInLinks.unusedExpiry(in: text)
            })),
        Entry(
            what: "the private address of a student's own pin and trips feed (a digest and when it was issued)",
            keys: .perAccount(prefix: DataFeedLinks.stateKey(accountKey: "")),
            holding: .theAccount(export: { text, export in
                export.dataFeedIssuedAt = DataFeedLinks.issuedAt(in: text)
            })),
        Entry(
            what: "the pins each instance has announced", keys: .perInstance(base: AnnouncementLedger.stateKey),
            holding: .nothingAboutStudents(
                because: "pin objectIds only, which an erased pin's tombstone keeps as well")),
        Entry(
            what: "the networks' STS policies", keys: .single("irc.sts"),
            holding: .nothingAboutStudents(because: "server names, ports and durations")),
        Entry(
            what: "the key of the log's pseudonyms", keys: .single(LogPseudonyms.stateKey),
            holding: .nothingAboutStudents(because: "one random key for the whole class")),
    ]

    /// The entry that claims `key`, or nil when none does.
    public static func entry(claiming key: String) -> Entry? {
        entries.first { $0.keys.covers(key) }
    }

    /// The keys of `store` an entry covers: the student's own key, or every instance's copy.
    static func keys(of entry: Entry, accountKey: String, in store: any BotStateStore) async throws -> [String] {
        switch entry.keys {
        case .perAccount(let prefix): [prefix + accountKey]
        case .perInstance(let base):
            try await store.stateKeys(prefix: base).filter { $0 == base || $0.hasPrefix(base + "@") }
        case .single(let name): [name]
        }
    }

    /// The instance part of a key (`base@instance`), or "" for the unnamed one and other keys.
    static func instance(of key: String, in entry: Entry) -> String {
        guard case .perInstance(let base) = entry.keys, key != base else { return "" }
        return String(key.dropFirst(base.count + 1))
    }
}
