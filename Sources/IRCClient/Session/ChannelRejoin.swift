import IRCProtocol

/// The channels the client wants to be in, and when to try again to join one it is not in: after a
/// KICK (``IRCClientConfiguration/Retry/rejoinAfterKick``) or a refused JOIN
/// (``IRCClientConfiguration/Retry/rejoinAfterRefusal``). Every wanted channel is joined again after
/// each registration.
///
/// A pure value kept by ``ConnectionStateMachine``; the wanted channels outlive connections, the
/// retries do not. Names are compared under the server's `CASEMAPPING` (`#Foo[1]` is `#foo{1}`
/// under rfc1459, the default until the server says otherwise), re-keyed when it changes.
struct ChannelRejoin: Sendable, Equatable {
    typealias Join = IRCClientConfiguration.ChannelJoin

    /// Folded name → the channel as configured or asked for.
    private(set) var wanted: [String: Join] = [:]
    /// Folded name → when to try joining again.
    private(set) var retries: [String: ContinuousClock.Instant] = [:]
    /// How the server compares channel names.
    private(set) var caseMapping: CaseMapping = .rfc1459

    init(_ channels: [Join]) {
        for join in channels { wanted[key(join.name)] = join }
    }

    private func key(_ channel: String) -> String { caseMapping.lowercased(channel) }

    /// The server announced how it compares names: the keys are folded again under `mapping`
    /// (two channels that are now one name keep the one wanted last).
    mutating func setCaseMapping(_ mapping: CaseMapping) {
        guard mapping != caseMapping else { return }
        caseMapping = mapping
        var rekeyed: [String: Join] = [:]
        for join in wanted.values.sorted(by: { $0.name < $1.name }) { rekeyed[key(join.name)] = join }
        var rekeyedRetries: [String: ContinuousClock.Instant] = [:]
        for (name, time) in retries {
            guard let join = wanted[name] else { continue }
            rekeyedRetries[key(join.name)] = time
        }
        wanted = rekeyed
        retries = rekeyedRetries
    }

    /// The JOINs to send after registration, by name.
    var joinsAfterRegistration: [Join] { wanted.values.sorted { $0.name < $1.name } }

    func isWanted(_ channel: String) -> Bool { wanted[key(channel)] != nil }

    /// The wanted channel named `channel` (with its key), if it is wanted and waits to be tried
    /// again (it refused the client, or kicked it).
    func refusedJoin(_ channel: String) -> Join? {
        retries[key(channel)] == nil ? nil : wanted[key(channel)]
    }

    /// Joins `join` from now on (again after every reconnect).
    mutating func want(_ join: Join) {
        wanted[key(join.name)] = join
    }

    /// Stops wanting `channel` (and retrying it).
    mutating func forget(_ channel: String) {
        wanted.removeValue(forKey: key(channel))
        retries.removeValue(forKey: key(channel))
    }

    /// The client is in `channel`: no retry is due.
    mutating func joined(_ channel: String) {
        retries.removeValue(forKey: key(channel))
    }

    /// Tries `channel` again at `time` if it is wanted.
    mutating func retry(_ channel: String, at time: ContinuousClock.Instant) {
        guard isWanted(channel) else { return }
        retries[key(channel)] = time
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
