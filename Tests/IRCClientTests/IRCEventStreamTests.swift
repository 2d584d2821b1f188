import NIOPosix
import Testing

@testable import IRCClient

/// The client's event stream: one consumer, the newest events kept, ends on finish or cancellation.
@Suite("IRCEventStream", .timeLimit(.minutes(1)))
struct IRCEventStreamTests {
    static func nicks(_ events: [IRCEvent]) -> [String] {
        events.compactMap { if case .registered(let nick) = $0 { nick } else { nil } }
    }

    @Test func keepsTheNewestEventsThenEndsAfterFinish() async {
        let stream = IRCEventStream(limit: 3)
        for index in 1...5 { stream.yield(.registered(nick: "n\(index)")) }
        stream.finish()
        stream.yield(.registered(nick: "late"))
        var seen: [IRCEvent] = []
        for await event in stream { seen.append(event) }
        #expect(Self.nicks(seen) == ["n3", "n4", "n5"])
    }

    @Test func aWaitingConsumerGetsEachEventInOrder() async {
        // Room for every event: a consumer slowed down by a loaded machine loses none.
        let stream = IRCEventStream(limit: 100)
        let consumer = Task {
            var seen: [IRCEvent] = []
            for await event in stream { seen.append(event) }
            return seen
        }
        for index in 1...50 {
            stream.yield(.registered(nick: "n\(index)"))
            if index % 7 == 0 { try? await Task.sleep(for: .milliseconds(2)) }
        }
        stream.finish()
        #expect(Self.nicks(await consumer.value) == (1...50).map { "n\($0)" })
    }

    /// Events yielded on an event loop reach a consumer on another thread, every one and in order.
    /// The producer pauses a little between events, so the consumer keeps catching up and waiting:
    /// most events are handed over to a waiting consumer across threads.
    @Test func eventsFromAnEventLoopReachAConsumerOnAnotherThread() async throws {
        let count = 20_000
        let stream = IRCEventStream(limit: count)
        let consumer = Task {
            var nicks: [String] = []
            for await event in stream { nicks += Self.nicks([event]) }
            return nicks
        }
        _ = try await MultiThreadedEventLoopGroup.singleton.next().submit {
            var pause = 0
            for index in 0..<count {
                stream.yield(.registered(nick: "n\(index)"))
                for step in 0..<(index % 7) * 300 { pause &+= step }
            }
            stream.finish()
            return pause
        }.get()
        #expect(await consumer.value == (0..<count).map { "n\($0)" })
    }

    @Test func cancellingTheConsumerEndsTheStream() async {
        let stream = IRCEventStream(limit: 10)
        let consumer = Task {
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        stream.yield(.registered(nick: "a"))
        try? await Task.sleep(for: .milliseconds(50))
        consumer.cancel()
        #expect(await consumer.value == 1)
        stream.yield(.registered(nick: "after"))
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }
}
