import Dispatch

/// Runs jobs one at a time, in order, on a private dispatch queue: the executor of a
/// ``CommandRouter`` or ``SessionBook`` that is given none (tests, console mode). The running bot
/// gives them the IRC connection's event loop instead, so a command travels from the socket
/// through the router to its answer without a task switch.
final class SerialQueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }
}
