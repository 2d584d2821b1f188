import IRCProtocol
import Localization

extension CommandRouter {
    /// One ignored mask as `!ignores` shows it.
    public struct IgnoredMask: Sendable, Equatable {
        public var mask: String
        /// Time left, nil for "until lifted".
        public var remaining: Duration?
        public var addedBy: String

        public init(mask: String, remaining: Duration?, addedBy: String) {
            self.mask = mask
            self.remaining = remaining
            self.addedBy = addedBy
        }
    }

    /// Whether `sender` may run owner commands.
    public func isOwner(_ sender: UserIdentity) -> Bool {
        settings.owners.contains(sender, caseMapping: caseMapping)
    }

    /// Raises an alert for the owners under `key` (see ``OwnerAlerts``); false when it stands
    /// already (nothing is told again). The host then tells the owners it sees
    /// (``tellStandingAlerts(to:)``); the others hear it with their next command.
    public func raiseOwnerAlert(_ alert: OwnerAlert, key: String) -> Bool {
        ownerAlerts.raise(alert, key: key)
    }

    /// The cause of the alert under `key` is gone (the channel was joined): it is not told any more.
    public func clearOwnerAlert(key: String) {
        ownerAlerts.clear(key: key)
    }

    /// The alerts standing now in `phrases`' language, for `!status`.
    public func standingOwnerAlerts(in phrases: Phrasebook) -> [String] {
        ownerAlerts.standing.map { $0.text(in: phrases) }
    }

    /// Sends the owner `owner` the alerts they have not heard yet, as private notices in the
    /// language they read: the one they chose (`!lang`, kept for their account or nick), else the
    /// network's default (a private notice belongs to no channel).
    public func tellStandingAlerts(to owner: UserIdentity) async {
        let untold = ownerAlerts.untold(to: caseMapping.lowercased(owner.nick))
        guard !untold.isEmpty else { return }
        let phrases = await phrasebook(for: owner, in: nil, caseMapping: caseMapping)
        for alert in untold {
            await transport.send(OutgoingText(.notice, to: owner.nick, text: alert.text(in: phrases)))
        }
    }

    /// Whether the bot ignores `sender`'s commands now (never an owner's).
    func isIgnored(_ sender: UserIdentity) -> Bool {
        let now = clock.now()
        ignores.expire(at: now)
        return ignores.matches(sender, at: now, caseMapping: caseMapping) && !isOwner(sender)
    }

    /// Ignores every command of `mask` (normalized: see ``IgnoreList/normalizedMask(_:)``) for
    /// `duration`, or until ``unignore(_:)`` when nil; false when the list is full.
    public func ignore(_ mask: String, for duration: Duration?, addedBy: String) -> Bool {
        ignores.add(mask, until: duration.map { clock.now() + $0 }, addedBy: addedBy, caseMapping: caseMapping)
    }

    /// Lifts the ignore of `mask`; false when it was not ignored.
    public func unignore(_ mask: String) -> Bool {
        ignores.remove(mask, caseMapping: caseMapping)
    }

    /// The masks ignored now, in the order they were added.
    public func ignoredMasks() -> [IgnoredMask] {
        let now = clock.now()
        ignores.expire(at: now)
        return ignores.entries.map {
            IgnoredMask(mask: $0.mask, remaining: $0.until.map { $0 - now }, addedBy: $0.addedBy)
        }
    }

    /// The settings in force (a reload compares and extends them).
    public var currentSettings: Settings { settings }
}
