import NIOConcurrencyHelpers
import NIOCore

/// The client's events (``IRCClient/events``), for one consumer: `for await event in client.events`.
///
/// Like an `AsyncStream` with a `bufferingNewest` policy (past ``limit`` waiting events the oldest is
/// dropped; it ends after ``finish()`` or when the consuming task is cancelled), except that waiting
/// for the next event stays on the consumer's executor. An `AsyncStream`'s iterator leaves it for the
/// global executor and comes back, which costs several task switches per event; the bot consumes
/// events on the IRC connection's event loop and answers a command there.
public final class IRCEventStream: AsyncSequence, Sendable {
    public typealias Element = IRCEvent

    private struct State {
        var buffer = CircularBuffer<IRCEvent>()
        var waiting: UnsafeContinuation<IRCEvent?, Never>?
        var finished = false
    }

    /// The most events kept for a consumer that lags behind.
    public let limit: Int
    private let state = NIOLockedValueBox(State())

    init(limit: Int) {
        self.limit = Swift.max(1, limit)
    }

    /// Hands `event` to the waiting consumer, or buffers it.
    func yield(_ event: IRCEvent) {
        let waiting: UnsafeContinuation<IRCEvent?, Never>? = state.withLockedValue { state in
            guard !state.finished else { return nil }
            if let waiting = state.waiting {
                state.waiting = nil
                return waiting
            }
            if state.buffer.count >= limit { state.buffer.removeFirst() }
            state.buffer.append(event)
            return nil
        }
        waiting?.resume(returning: event)
    }

    /// Ends the stream: the consumer gets what is buffered, then `nil`.
    func finish() {
        let waiting: UnsafeContinuation<IRCEvent?, Never>? = state.withLockedValue { state in
            state.finished = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(returning: nil)
    }

    /// The next event, waiting on the caller's executor; `nil` once finished or cancelled.
    func next(isolation actor: isolated (any Actor)?) async -> IRCEvent? {
        if let ready = takeReady() { return ready }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<IRCEvent?, Never>) in
                if let ready = takeReady(orWait: continuation) { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// A buffered event (`.some(event)`), the end (`.some(nil)`), or `nil` when the consumer has to
    /// wait (then `continuation`, when given, is stored to be resumed).
    private func takeReady(orWait continuation: UnsafeContinuation<IRCEvent?, Never>? = nil) -> IRCEvent?? {
        let cancelled = Task.isCancelled
        return state.withLockedValue { state in
            if let event = state.buffer.popFirst() { return .some(event) }
            if state.finished || cancelled {
                state.finished = true
                return .some(nil)
            }
            if let continuation {
                precondition(state.waiting == nil, "IRCClient.events has one consumer; two tasks are waiting on it")
                state.waiting = continuation
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let stream: IRCEventStream

        public mutating func next() async -> IRCEvent? {
            await stream.next(isolation: nil)
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> IRCEvent? {
            await stream.next(isolation: actor)
        }
    }
}
