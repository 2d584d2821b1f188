import Localization

/// Sentences for the bot's owners about something only they can fix (a channel that admits the bot
/// only when invited). Each reaches every owner once: at once when the bot sees them in a channel,
/// else with the next command they send it. `!status` lists the ones still standing.
///
/// A pure value kept by ``CommandRouter``; owners are keyed by their folded nick. Each alert is
/// kept as a message of the catalogues with its values, and said in the language of whoever reads it.
public struct OwnerAlerts: Sendable, Equatable {
    private struct Alert: Sendable, Equatable {
        var key: String
        var alert: OwnerAlert
        var told: Set<String> = []
    }

    /// The most alerts kept (the oldest goes first): each is about one configured channel.
    static let capacity = 32

    private var alerts: [Alert] = []

    public init() {}

    /// The alerts standing now, oldest first.
    public var standing: [OwnerAlert] { alerts.map(\.alert) }

    /// Raises `alert` under `key` (one alert per key: raising it again changes nothing, so it is
    /// told once however often its cause comes back); true when it is new.
    @discardableResult
    public mutating func raise(_ alert: OwnerAlert, key: String) -> Bool {
        guard !alerts.contains(where: { $0.key == key }) else { return false }
        if alerts.count >= Self.capacity { alerts.removeFirst() }
        alerts.append(Alert(key: key, alert: alert))
        return true
    }

    /// The cause of the alert under `key` is gone.
    public mutating func clear(key: String) {
        alerts.removeAll { $0.key == key }
    }

    /// The alerts not yet told to the owner `ownerKey`, now marked as told.
    public mutating func untold(to ownerKey: String) -> [OwnerAlert] {
        var untold: [OwnerAlert] = []
        for index in alerts.indices where alerts[index].told.insert(ownerKey).inserted {
            untold.append(alerts[index].alert)
        }
        return untold
    }
}

/// One sentence for the owners: a message of the catalogues and the values of its placeholders
/// (channel names, nicks: said as they are in every language).
public struct OwnerAlert: Sendable, Equatable {
    /// The key of the message in the catalogues.
    public var message: String
    public var values: [String: String]

    public init(message: String, values: [String: String] = [:]) {
        self.message = message
        self.values = values
    }

    /// The sentence in `phrases`' language.
    public func text(in phrases: Phrasebook) -> String {
        phrases(message, values)
    }
}
