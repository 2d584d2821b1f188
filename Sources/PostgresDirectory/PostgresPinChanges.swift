import Foundation
import OnTheMapService
import PostgresNIO

extension PostgresStudentDirectory {
    /// Listens on ``pinChannel`` on a connection of its own; returns once listening, so every pin
    /// saved afterwards (by any instance) arrives. Reconnects after a lost connection (the server
    /// restarted, the network failed): notifications sent meanwhile are lost, so once listening
    /// again it yields an empty objectId, meaning "some may have been missed: look again". The
    /// stream ends at ``shutdown()`` or when dropped.
    public func pinChanges() async throws -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1_000))
        let (readiness, readinessContinuation) = AsyncStream.makeStream(of: (any Error)?.self)
        let client = self.client
        let logger = self.logger
        let task = Task {
            var isFirstAttempt = true
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: Self.pinChannel) { notifications in
                            if isFirstAttempt {
                                logger.info("Listening to PostgreSQL notifications")
                                readinessContinuation.yield(nil)
                            } else {
                                logger.info("Listening to PostgreSQL notifications again")
                                continuation.yield("")
                            }
                            isFirstAttempt = false
                            for try await notification in notifications {
                                continuation.yield(notification.payload)
                            }
                        }
                    }
                } catch {
                    if isFirstAttempt {
                        readinessContinuation.yield(error)
                        break
                    }
                    if !Task.isCancelled {
                        logger.warning("Lost the PostgreSQL notification connection; listening again")
                    }
                }
                try? await Task.sleep(for: .seconds(1))
            }
            readinessContinuation.finish()
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        await listeners.add(task)
        let outcome: (any Error)?
        do {
            outcome = try await store.withTimeout {
                for await outcome in readiness { return outcome }
                return CancellationError()
            }
        } catch {
            task.cancel()
            throw error
        }
        if let outcome {
            task.cancel()
            throw PostgresStore.serviceError(outcome)
        }
        return stream
    }
}

/// The notification-listening tasks of one directory, ended together at shutdown.
actor ListenerTasks {
    private var tasks: [Task<Void, Never>] = []

    func add(_ task: Task<Void, Never>) {
        tasks.removeAll { $0.isCancelled }
        tasks.append(task)
    }

    func cancelAll() async {
        let running = tasks
        tasks = []
        for task in running { task.cancel() }
        for task in running { await task.value }
    }
}
