import BotKit
import Foundation
import OnTheMapService

/// One unfinished `!post`: the place was found, the link is still to come.
public struct PostDraft: Sendable {
    /// The place as the student typed it (it becomes the pin's `mapString`).
    public var typedPlace: String
    var place: PlaceCandidate
    /// Whether saving will replace the student's existing pin.
    var replacesPin: Bool
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
