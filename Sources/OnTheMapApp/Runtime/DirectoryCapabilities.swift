/// What a class directory keeps beyond pins. A stack finds it once, from the backend it opened
/// (``ServiceStack/capabilities``), and it is said once: in `!status`, `check-config` and the
/// start-up log. Nothing asks a directory at run time whether it can do something.
public struct DirectoryCapabilities: Sendable, Equatable {
    /// Keeps its own accounts: `!register`, the operator's `accounts` and `pins` commands, the
    /// served API.
    public var accounts: Bool
    /// Keeps trips beside pins (`!post <place> until <date>`).
    public var trips: Bool
    /// Keeps the bot's state across restarts (what was announced, sessions, open posts).
    public var botState: Bool
    /// Tells every instance at once when a pin is saved; without it other instances' pins are
    /// read at the announcer's next poll.
    public var instantChanges: Bool

    /// What the backend `backend` keeps, before it is opened (`check-config`); the stack a config
    /// opens finds the same (a test holds them together).
    public static func declared(for backend: BotConfiguration.ServiceSection.Backend) -> DirectoryCapabilities {
        switch backend {
        case .local: DirectoryCapabilities(accounts: true, trips: true, botState: true, instantChanges: false)
        case .postgres: DirectoryCapabilities(accounts: true, trips: true, botState: true, instantChanges: true)
        case .udacity: DirectoryCapabilities(accounts: false, trips: false, botState: false, instantChanges: false)
        }
    }

    /// In words: "keeps pins, accounts of its own, trips and the bot's state across restarts;
    /// other instances' pins are read at each poll", or for the Udacity-compatible API "keeps pins
    /// only: no accounts of its own, no trips (one pin per student), …".
    public var sentence: String {
        var kept: [String] = []
        var missing: [String] = []
        if accounts { kept.append("accounts of its own") } else { missing.append("no accounts of its own") }
        if trips { kept.append("trips") } else { missing.append("no trips (one pin per student)") }
        if botState {
            kept.append("the bot's state across restarts")
        } else {
            missing.append("no bot state across restarts")
        }
        var text = "keeps pins"
        if !kept.isEmpty { text += ", " + Self.list(kept) }
        if kept.isEmpty { text += " only" }
        if !missing.isEmpty { text += (kept.isEmpty ? ": " : "; ") + missing.joined(separator: ", ") }
        text +=
            instantChanges
            ? "; every instance hears of a saved pin at once" : "; other instances' pins are read at each poll"
        return text
    }

    private static func list(_ items: [String]) -> String {
        guard items.count > 1, let last = items.last else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + last
    }
}
