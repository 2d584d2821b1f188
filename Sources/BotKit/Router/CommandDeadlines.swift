/// The time limits of running command handlers, kept by the router's watchdog: a handler past its
/// deadline is cancelled and marked timed out (its user is then told it took too long).
struct CommandDeadlines {
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var deadlines: [Int: ContinuousClock.Instant] = [:]
    private var timedOut: Set<Int> = []

    /// The command `id` runs in `task` (its deadline starts with ``start(_:deadline:)``).
    mutating func register(_ id: Int, task: Task<Void, Never>) {
        tasks[id] = task
    }

    /// The handler of `id` starts now and must end by `deadline`.
    mutating func start(_ id: Int, deadline: ContinuousClock.Instant) {
        deadlines[id] = deadline
    }

    /// The command `id` has ended: forget it.
    mutating func finished(_ id: Int) {
        tasks[id] = nil
        deadlines[id] = nil
        timedOut.remove(id)
    }

    /// The earliest deadline of a running handler.
    var earliest: ContinuousClock.Instant? { deadlines.values.min() }

    /// Whether the watchdog stopped `id` for running too long.
    func hasTimedOut(_ id: Int) -> Bool { timedOut.contains(id) }

    /// Cancels every handler whose deadline is at or before `now`.
    mutating func expire(at now: ContinuousClock.Instant) {
        for (id, deadline) in deadlines where deadline <= now {
            deadlines[id] = nil
            timedOut.insert(id)
            tasks[id]?.cancel()
        }
    }
}
