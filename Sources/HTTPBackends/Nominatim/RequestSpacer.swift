/// Lets one operation run at a time, each starting at least `interval` after the previous one
/// finished, across all callers and in arrival order. Time is read from a `Clock`.
///
/// Call ``waitForTurn()`` before the operation and ``finished()`` after it (also on failure).
public actor RequestSpacer<C: Clock> where C.Duration == Duration {
    public let interval: Duration
    private let clock: C
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var lastFinish: C.Instant?

    public init(interval: Duration, clock: C) {
        self.interval = interval
        self.clock = clock
    }

    /// Waits until this caller may start: no other operation in progress, and `interval`
    /// passed since the last one finished. Throws `CancellationError` when cancelled while
    /// sleeping out the interval (the turn is then passed on).
    public func waitForTurn() async throws {
        if busy {
            // The finishing caller hands its turn over directly (first come, first served).
            await withCheckedContinuation { waiters.append($0) }
        } else {
            busy = true
        }
        if let lastFinish {
            let due = lastFinish.advanced(by: interval)
            if clock.now < due {
                do {
                    try await clock.sleep(until: due, tolerance: nil)
                } catch {
                    finished()
                    throw error
                }
            }
        }
    }

    /// Ends the current caller's turn; the interval counts from now.
    public func finished() {
        lastFinish = clock.now
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().resume()
        }
    }

    /// Runs `operation` in its turn.
    public func run<T: Sendable>(_ operation: @Sendable () async throws -> T) async throws -> T {
        try await waitForTurn()
        do {
            let result = try await operation()
            finished()
            return result
        } catch {
            finished()
            throw error
        }
    }
}
