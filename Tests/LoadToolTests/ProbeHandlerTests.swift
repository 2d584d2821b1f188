import IRCProtocol
import NIOCore
import NIOEmbedded
import Testing

@testable import LoadTool

/// The load tool's client end: what it times, and that an answer reaches the waiting driver.
@Suite(.timeLimit(.minutes(1))) struct ProbeHandlerTests {
    private static func fromBot(_ message: IRCMessage) -> Bool { message.sourceNick == "MapBot" }

    private static func makeChannel() throws -> (EmbeddedChannel, ProbeHandler) {
        let handler = ProbeHandler()
        let channel = EmbeddedChannel(handler: handler)
        return (channel, handler)
    }

    private static func feed(_ text: String, to channel: EmbeddedChannel) throws {
        try channel.writeInbound(channel.allocator.buffer(string: text))
    }

    @Test func anOutcomeDeliveredBeforeTheWaitIsKept() async throws {
        let mailbox = ArrivalMailbox()
        mailbox.deliver(.success(Arrival(sentAt: 1, firstAt: 5, lastAt: 7, lines: [])))
        mailbox.deliver(.failure(ProbeError(description: "late")))
        let arrival = try await mailbox.value()
        #expect(arrival.roundTrip == 4)
    }

    @Test func aWaitingDriverIsResumedByTheDelivery() async throws {
        let mailbox = ArrivalMailbox()
        async let waited = mailbox.value()
        // Delivered only once the driver waits (each turn lets the waiting task run).
        while !mailbox.hasWaiter { await Task.yield() }
        mailbox.deliver(.success(Arrival(sentAt: 10, firstAt: 30, lastAt: 30, lines: [])))
        #expect(try await waited.roundTrip == 20)
    }

    @Test func expectedLinesSplitAcrossReadsAreCollectedInOrder() async throws {
        let (channel, handler) = try Self.makeChannel()
        let mailbox = ArrivalMailbox()
        handler.expect(2, within: 10_000_000_000, mailbox: mailbox, match: Self.fromBot)
        try Self.feed(":someone!u@h PRIVMSG #bench :not for us\r\n:MapBot!b@h PRIVMSG #bench :fir", to: channel)
        try Self.feed("st\r\n:MapBot!b@h PRIVMSG #bench :second\r\n", to: channel)
        let arrival = try await mailbox.value()
        #expect(arrival.lines.map(\.parameters.last) == ["first", "second"])
        #expect(arrival.sentAt <= arrival.firstAt && arrival.firstAt <= arrival.lastAt)
        _ = try channel.finish()
    }

    @Test func theTriggerIsAnsweredInTheSameReadAndServerPingsArePonged() throws {
        let (channel, handler) = try Self.makeChannel()
        handler.instantAnswerTrigger = "!floor"
        try Self.feed(":probe!p@h PRIVMSG #bench :!floor\r\nPING :irc.test\r\n", to: channel)
        let pong = try channel.readOutbound(as: ByteBuffer.self).map { String(buffer: $0) }
        let serverPong = try channel.readOutbound(as: ByteBuffer.self).map { String(buffer: $0) }
        #expect(pong == "PRIVMSG #bench :pong\r\n")
        #expect(serverPong == "PONG irc.test\r\n")
        _ = try channel.finish()
    }

    @Test func aNewerExpectationEndsTheOlderOneAndClosingEndsTheLast() async throws {
        let (channel, handler) = try Self.makeChannel()
        let older = ArrivalMailbox()
        let newer = ArrivalMailbox()
        handler.expect(1, within: 10_000_000_000, mailbox: older, match: Self.fromBot)
        handler.expect(1, within: 10_000_000_000, mailbox: newer, match: Self.fromBot)
        await #expect(throws: ProbeError.self) { try await older.value() }
        _ = try channel.finish()
        await #expect(throws: ProbeError.self) { try await newer.value() }
    }

    @Test func theWatchdogEndsAnOverdueExpectationWithWhatArrived() async throws {
        let (channel, handler) = try Self.makeChannel()
        let empty = ArrivalMailbox()
        handler.expect(1, within: 0, mailbox: empty, match: Self.fromBot)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        await #expect(throws: ProbeError.self) { try await empty.value() }

        let partial = ArrivalMailbox()
        handler.expect(3, within: 0, mailbox: partial, match: Self.fromBot)
        try Self.feed(":MapBot!b@h PRIVMSG #bench :only line\r\n", to: channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        let arrival = try await partial.value()
        #expect(arrival.lines.count == 1)
        _ = try channel.finish()
    }
}
