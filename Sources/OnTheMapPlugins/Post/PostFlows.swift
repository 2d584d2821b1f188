import BotKit
import ClassKit
import Foundation
import Logging
import OnTheMapService

/// One unfinished `!post`: a place was found (or is offered), the link is still to come.
public struct PostDraft: Sendable, Codable {
    /// The place as it becomes the pin's `mapString`: what the student typed, or the name of the
    /// place they chose from a "did you mean" or among namesakes.
    public var typedPlace: String
    var place: PlaceCandidate
    /// The numbered places `!post <n>` picks: the offers of a "did you mean", or the place found
    /// and its namesakes.
    var choices: [PlaceCandidate]
    /// False while a "did you mean" waits for `!post yes` or a number: no link is taken before.
    var isConfirmed: Bool
    /// The link of a one-shot `!post <place> | <link>` whose place waits for a confirmation.
    var pendingLink: String?
    /// The student's current pin, which saving will replace.
    var existingPlace: String?
    var startedAt: Date
}

/// The open `!post` flows, one per logged-in identity, each expiring after `lifetime`. A flow
/// belongs to the account that opened it: someone else who later holds the same identity (nick and
/// user@host) and logs in to another account does not find it. With a state store the flows are
/// kept across restarts (those still open at restore).
public actor PostFlows {
    public enum Lookup: Sendable {
        case open(PostDraft)
        case expired
        case none
    }

    /// One kept flow.
    struct Kept: Codable, Sendable {
        var owner: SessionOwner
        var accountKey: String
        var draft: PostDraft
    }

    /// The state-store key of `instance`'s flows.
    static func stateKey(instance: String?) -> String {
        StateKey.of("post.flows", instance: instance)
    }

    private let lifetime: TimeInterval
    private let now: @Sendable () -> Date
    private var drafts: [SessionOwner: (accountKey: String, draft: PostDraft)] = [:]
    private let kept: KeptState<[Kept]>
    private var restored = false

    init(
        lifetime: Duration, now: @escaping @Sendable () -> Date, store: (any BotStateStore)? = nil,
        instance: String? = nil, beforeWrite: (@Sendable () async -> Void)? = nil
    ) {
        self.lifetime = Double(lifetime.components.seconds) + Double(lifetime.components.attoseconds) / 1e18
        self.now = now
        self.kept = KeptState(key: Self.stateKey(instance: instance), store: store, beforeWrite: beforeWrite)
    }

    /// The accounts with a flow kept (expired or not).
    func accountKeys() -> Set<String> {
        Set(drafts.values.map(\.accountKey))
    }

    /// Reads back the flows kept before a restart (once), dropping those that expired meanwhile;
    /// flows opened meanwhile win.
    public func restore(logger: Logger) async {
        guard !restored else { return }
        restored = true
        do {
            guard case .value(let list) = try await kept.load() else { return }
            for entry in list where drafts[entry.owner] == nil && !isExpired(entry.draft) {
                drafts[entry.owner] = (entry.accountKey, entry.draft)
            }
        } catch {
            logger.warning("kept post steps could not be read", metadata: ["error": "\(error)"])
        }
    }

    /// The open flow of `bound`'s owner, when `bound`'s account opened it; an expired one is
    /// removed and reported once.
    public func draft(of bound: StudentSession) async -> Lookup {
        guard let entry = drafts[bound.owner], entry.accountKey == bound.session.accountKey else { return .none }
        if isExpired(entry.draft) {
            drafts[bound.owner] = nil
            await save()
            return .expired
        }
        return .open(entry.draft)
    }

    /// Opens (or restarts) the flow of `bound`'s owner, for `bound`'s account.
    func open(_ draft: PostDraft, for bound: StudentSession) async {
        drafts[bound.owner] = (bound.session.accountKey, draft)
        await save()
    }

    /// Ends the flow of `owner`; returns whether one was open.
    @discardableResult
    public func close(_ owner: SessionOwner) async -> Bool {
        guard let entry = drafts.removeValue(forKey: owner) else { return false }
        await save()
        return !isExpired(entry.draft)
    }

    /// The open (unexpired) flow of account `accountKey`, whoever opened it.
    func openDraft(ofAccount accountKey: String) -> PostDraft? {
        drafts.values.filter { $0.accountKey == accountKey && !isExpired($0.draft) }.map(\.draft)
            .max { $0.startedAt < $1.startedAt }
    }

    /// Ends every flow of account `accountKey` (expired or not); returns how many there were.
    @discardableResult
    func close(accountKey: String) async -> Int {
        let owners = drafts.filter { $0.value.accountKey == accountKey }.map(\.key)
        guard !owners.isEmpty else { return 0 }
        for owner in owners { drafts[owner] = nil }
        await save()
        return owners.count
    }

    /// The kept flows in `text` of account `accountKey`.
    static func drafts(in text: String, accountKey: String) -> [PostDraft] {
        let list = (try? JSONDecoder().decode([Kept].self, from: Data(text.utf8))) ?? []
        return list.filter { $0.accountKey == accountKey }.map(\.draft)
    }

    /// The kept flows `text` holds without those of account `accountKey`; nil when it holds none
    /// (or cannot be read).
    static func scrub(_ text: String, accountKey: String) -> String? {
        guard let list = try? JSONDecoder().decode([Kept].self, from: Data(text.utf8)),
            list.contains(where: { $0.accountKey == accountKey })
        else { return nil }
        return KeptJSON.encode(list.filter { $0.accountKey != accountKey })
    }

    /// The time a new flow starts at.
    var currentTime: Date { now() }

    /// The lifetime in whole minutes (for messages).
    var lifetimeMinutes: Int { max(1, Int((lifetime / 60).rounded())) }

    private func isExpired(_ draft: PostDraft) -> Bool {
        now().timeIntervalSince(draft.startedAt) > lifetime
    }

    private func save() async {
        await kept.save { await self.keptForm() }
    }

    private func keptForm() -> [Kept] {
        drafts.map { Kept(owner: $0.key, accountKey: $0.value.accountKey, draft: $0.value.draft) }
            .sorted { $0.draft.startedAt < $1.draft.startedAt }
    }
}
