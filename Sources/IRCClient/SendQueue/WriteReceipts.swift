/// Which queued lines have been written to the connection, so that a caller can wait until every
/// line it queued has left (e.g. the announcer records a pin as announced only then).
///
/// Each queued line gets a ticket, which the queue carries with the line (a merged or packed line
/// carries the tickets of every line it stands for); a ticket is settled when its line is written or
/// dropped (it will never be written). When the queue runs empty, every ticket is settled.
struct WriteReceipts {
    /// The ticket of the line queued last (0 before any).
    private(set) var lastTicket = 0
    private var openTickets: Set<Int> = []
    private var waiters: [Waiter] = []
    private var nextWaiterID = 0

    private struct Waiter {
        var id: Int
        var ticket: Int
        var continuation: CheckedContinuation<Bool, Never>
    }

    /// Whether every line up to and including `ticket` has been written (or dropped).
    func isSettled(upTo ticket: Int) -> Bool {
        guard let oldest = openTickets.min() else { return true }
        return oldest > ticket
    }

    /// A line goes into the queue: its ticket.
    mutating func queued() -> Int {
        lastTicket += 1
        openTickets.insert(lastTicket)
        return lastTicket
    }

    /// Queued lines were written or dropped.
    mutating func settled(_ tickets: [Int]) {
        guard !tickets.isEmpty else { return }
        for ticket in tickets { openTickets.remove(ticket) }
        resumeSettledWaiters()
    }

    /// The queue is empty: every line queued so far has left (or was dropped).
    mutating func queueEmptied() {
        guard !openTickets.isEmpty else { return }
        openTickets.removeAll()
        resumeSettledWaiters()
    }

    /// A new waiter id (for ``cancelWaiter(_:)``).
    mutating func makeWaiterID() -> Int {
        nextWaiterID += 1
        return nextWaiterID
    }

    mutating func addWaiter(id: Int, ticket: Int, _ continuation: CheckedContinuation<Bool, Never>) {
        if isSettled(upTo: ticket) {
            continuation.resume(returning: true)
        } else {
            waiters.append(Waiter(id: id, ticket: ticket, continuation: continuation))
        }
    }

    /// Resumes the waiter with `false` (its task was cancelled, or it stopped waiting).
    mutating func cancelWaiter(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: false)
    }

    /// The client stopped: every waiter learns whether its lines left.
    mutating func finishWaiters() {
        let all = waiters
        waiters = []
        for waiter in all { waiter.continuation.resume(returning: isSettled(upTo: waiter.ticket)) }
    }

    private mutating func resumeSettledWaiters() {
        guard !waiters.isEmpty else { return }
        var open: [Waiter] = []
        for waiter in waiters {
            if isSettled(upTo: waiter.ticket) {
                waiter.continuation.resume(returning: true)
            } else {
                open.append(waiter)
            }
        }
        waiters = open
    }
}
