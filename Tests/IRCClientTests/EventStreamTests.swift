import BotTesting
import NIOPosix
import Testing

@testable import IRCClient

/// The client's event stream (``IRCClient/events``): the newest events kept for a consumer that
/// lags, every event in order, ends on finish or cancellation.
@Suite("Event stream", .timeLimit(.minutes(1)))
struct EventStreamTests {
    static func nicks(_ events: [IRCEvent]) -> [String] {
        events.compactMap { if case .registered(let nick) = $0 { nick } else { nil } }
    }

    @Test func keepsTheNewestEventsThenEndsAfterFinish() async {
        // At least 16 are kept, whatever the configuration says.
        let (stream, sink) = IRCClient.makeEventStream(limit: 3)
        for index in 1...20 { sink.yield(.registered(nick: "n\(index)")) }
        sink.finish()
        sink.yield(.registered(nick: "late"))
        var seen: [IRCEvent] = []
        for await event in stream { seen.append(event) }
        #expect(Self.nicks(seen) == (5...20).map { "n\($0)" })
    }

    @Test func aWaitingConsumerGetsEachEventInOrder() async {
        // Room for every event: a consumer slowed down by a loaded machine loses none.
        let (stream, sink) = IRCClient.makeEventStream(limit: 100)
        let consumer = Task {
            var seen: [IRCEvent] = []
            for await event in stream { seen.append(event) }
            return seen
        }
        for index in 1...50 {
            sink.yield(.registered(nick: "n\(index)"))
            if index % 7 == 0 { try? await Task.sleep(for: .milliseconds(2)) }
        }
        sink.finish()
        #expect(Self.nicks(await consumer.value) == (1...50).map { "n\($0)" })
    }

    /// Events yielded on an event loop reach a consumer on another thread, every one and in order.
    /// The producer pauses a little between events, so the consumer keeps catching up and waiting:
    /// most events are handed over to a waiting consumer across threads.
    @Test func eventsFromAnEventLoopReachAConsumerOnAnotherThread() async throws {
        let count = 20_000
        let (stream, sink) = IRCClient.makeEventStream(limit: count)
        let consumer = Task {
            var nicks: [String] = []
            for await event in stream { nicks += Self.nicks([event]) }
            return nicks
        }
        _ = try await MultiThreadedEventLoopGroup.singleton.next().submit {
            var pause = 0
            for index in 0..<count {
                sink.yield(.registered(nick: "n\(index)"))
                for step in 0..<(index % 7) * 300 { pause &+= step }
            }
            sink.finish()
            return pause
        }.get()
        #expect(await consumer.value == (0..<count).map { "n\($0)" })
    }

    @Test func cancellingTheConsumerEndsTheStream() async {
        let (stream, sink) = IRCClient.makeEventStream(limit: 10)
        let received = TestSignal()
        let consumer = Task {
            var count = 0
            for await _ in stream {
                count += 1
                received.signal()
            }
            return count
        }
        sink.yield(.registered(nick: "a"))
        // Cancelled once the consumer has the first event.
        #expect(await received.wait(timeout: .seconds(30)))
        consumer.cancel()
        #expect(await consumer.value == 1)
        sink.yield(.registered(nick: "after"))
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }
}
