/// The shell's callers waiting for the server's answer to something asked on their behalf (a WHOIS,
/// an owner's JOIN or PART), by the waiter id the machine knows them by.
struct AnswerWaiters<Answer: Sendable>: Sendable {
    private var waiting: [Int: CheckedContinuation<Answer, Never>] = [:]
    private var lastID = 0

    /// Keeps `continuation` under a new id, returned.
    mutating func add(_ continuation: CheckedContinuation<Answer, Never>) -> Int {
        lastID += 1
        waiting[lastID] = continuation
        return lastID
    }

    /// Answers the waiters with these ids (ids answered already are skipped).
    mutating func answer(_ ids: [Int], with answer: Answer) {
        for id in ids { waiting.removeValue(forKey: id)?.resume(returning: answer) }
    }
}
