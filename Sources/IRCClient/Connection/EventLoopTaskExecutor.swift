import NIOCore

/// A task executor on one NIO event loop — the IRC client's (``IRCClient/taskExecutor``). Tasks that
/// prefer it run on the connection's own thread, so a command read from the socket can be answered
/// without a thread switch (each switch costs tens of microseconds: a wake-up of a sleeping thread).
///
/// Only for work that never blocks and never computes for long: while a job runs, the connection
/// neither reads nor writes. Slow work (password derivations, database queries) belongs elsewhere.
public final class EventLoopTaskExecutor: TaskExecutor {
    /// The loop the jobs run on.
    public let eventLoop: any EventLoop

    public init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
