import NIOCore

/// The IRC client's executor: one NIO event loop, as the serial executor of the client actor (and of
/// any actor that shares it, such as the bot's command router) and as the task executor its tasks
/// prefer (``IRCClient/taskExecutor``). A command read from the socket is then answered on the
/// connection's own thread, and calls between actors that share it run inline, without a task switch
/// (each switch is a job on the loop; a switch to another thread costs tens of microseconds more).
///
/// Every job runs isolated to this executor *and* with it as its task executor: the runtime switches
/// inline only when both match on either side, and a job of an actor on a serial executor would
/// otherwise run with no task executor, so each call to a task preferring it would be a switch.
/// Jobs run one at a time on one thread, so that is also what they get.
///
/// Only for work that never blocks and never computes for long: while a job runs, the connection
/// neither reads nor writes. Slow work (password derivations, database queries) belongs elsewhere.
public final class EventLoopExecutor: SerialExecutor, TaskExecutor {
    /// The loop the jobs run on.
    public let eventLoop: any EventLoop

    public init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(isolatedTo: self.asUnownedSerialExecutor(), taskExecutor: self.asUnownedTaskExecutor())
        }
    }

    public func checkIsolated() {
        eventLoop.preconditionInEventLoop()
    }
}
