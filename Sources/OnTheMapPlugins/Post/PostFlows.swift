import BotKit
import Foundation
import OnTheMapService

/// One unfinished `!post`: a place was found (or is offered), the link is still to come.
public struct PostDraft: Sendable {
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

/// The open `!post` flows, one per logged-in identity, each expiring after `lifetime`.
public actor PostFlows {
    public enum Lookup: Sendable {
        case open(PostDraft)
        case expired
        case none
    }

    private let lifetime: TimeInterval
    private let now: @Sendable () -> Date
    private var drafts: [SessionOwner: PostDraft] = [:]

    init(lifetime: Duration, now: @escaping @Sendable () -> Date) {
        self.lifetime = Double(lifetime.components.seconds) + Double(lifetime.components.attoseconds) / 1e18
        self.now = now
    }

    /// The open flow of `owner`; an expired one is removed and reported once.
    public func draft(of owner: SessionOwner) -> Lookup {
        guard let draft = drafts[owner] else { return .none }
        if now().timeIntervalSince(draft.startedAt) > lifetime {
            drafts[owner] = nil
            return .expired
        }
        return .open(draft)
    }

    /// Opens (or restarts) the flow of `owner`.
    func open(_ draft: PostDraft, for owner: SessionOwner) {
        drafts[owner] = draft
    }

    /// Ends the flow of `owner`; returns whether one was open.
    @discardableResult
    public func close(_ owner: SessionOwner) -> Bool {
        guard let draft = drafts.removeValue(forKey: owner) else { return false }
        return now().timeIntervalSince(draft.startedAt) <= lifetime
    }

    /// The time a new flow starts at.
    var currentTime: Date { now() }

    /// The lifetime in whole minutes (for messages).
    var lifetimeMinutes: Int { max(1, Int((lifetime / 60).rounded())) }
}
