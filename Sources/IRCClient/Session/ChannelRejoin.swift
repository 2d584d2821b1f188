/// The channels the client wants to be in, and when to try again to join one it is not in: after a
/// KICK (``IRCClientConfiguration/Retry/rejoinAfterKick``) or a refused JOIN
/// (``IRCClientConfiguration/Retry/rejoinAfterRefusal``). Every wanted channel is joined again after
/// each registration.
///
/// A pure value kept by ``ConnectionStateMachine``; the wanted channels outlive connections, the
/// retries do not.
struct ChannelRejoin: Sendable, Equatable {
    typealias Join = IRCClientConfiguration.ChannelJoin

    /// Lower-cased name → the channel as configured or asked for.
    private(set) var wanted: [String: Join] = [:]
    /// Lower-cased name → when to try joining again.
    private(set) var retries: [String: ContinuousClock.Instant] = [:]

    init(_ channels: [Join]) {
        for join in channels { wanted[join.name.lowercased()] = join }
    }

    /// The JOINs to send after registration, by name.
    var joinsAfterRegistration: [Join] { wanted.values.sorted { $0.name < $1.name } }

    func isWanted(_ channel: String) -> Bool { wanted[channel.lowercased()] != nil }

    /// Joins `join` from now on (again after every reconnect).
    mutating func want(_ join: Join) {
        wanted[join.name.lowercased()] = join
    }

    /// Stops wanting `channel` (and retrying it).
    mutating func forget(_ channel: String) {
        wanted.removeValue(forKey: channel.lowercased())
        retries.removeValue(forKey: channel.lowercased())
    }

    /// The client is in `channel`: no retry is due.
    mutating func joined(_ channel: String) {
        retries.removeValue(forKey: channel.lowercased())
    }

    /// Tries `channel` again at `time` if it is wanted.
    mutating func retry(_ channel: String, at time: ContinuousClock.Instant) {
        guard isWanted(channel) else { return }
        retries[channel.lowercased()] = time
    }

    /// The wanted channels whose retry is due at `now` and that the client is not in (per `isIn`).
    mutating func due(at now: ContinuousClock.Instant, isIn: (String) -> Bool) -> [Join] {
        var joins: [Join] = []
        for (key, time) in retries where time <= now {
            retries.removeValue(forKey: key)
            if let join = wanted[key], !isIn(join.name) { joins.append(join) }
        }
        return joins.sorted { $0.name < $1.name }
    }

    /// A new connection: retries of the last one are moot (everything wanted is joined after 001).
    mutating func connectionStarted() {
        retries = [:]
    }
}
