import IRCProtocol
import Logging
import NIOCore

/// The writer: the priority lane (written at once), the flood-controlled ``SendQueue``, and the
/// receipts that tell when queued lines have been written.
extension IRCClient {
    /// Sends a message. PONG, CAP, AUTHENTICATE and QUIT are written at once (priority lane); everything
    /// else goes through the flood-controlled queue and is sent once registered. NUL/CR/LF never leave.
    /// (The lane is ``SendLane``'s.)
    public func send(_ message: IRCMessage) {
        switch SendLane(for: message, caseMapping: machine.serverSupport.caseMapping) {
        case .priority:
            guard channel != nil else { return }
            write(message)
        case .reply(let fairnessKey):
            enqueue(message, fairnessKey: fairnessKey)
        case .control:
            enqueue(message)
        }
    }

    /// Sends `text` as one or more PRIVMSGs: split on line breaks and at word boundaries so each line fits
    /// after the server's prefix (at most `maxLines` lines); no NUL, CR or LF can be sent.
    ///
    /// `fairnessKey` says on whose behalf the lines go (the asker's nick for a reply in a channel); when the
    /// queue is backed up, keys are served round-robin (see ``SendQueue``). It defaults to `target`.
    /// (Texts that say where their reader connects from, for turns shared per host first, go through
    /// ``send(texts:)`` with an ``OutgoingText/fairnessGroup``.)
    public func sendPrivmsg(to target: String, text: String, maxLines: Int = 10, fairnessKey: String? = nil) {
        send(texts: [OutgoingText(.privmsg, to: target, text: text, maxLines: maxLines, fairnessKey: fairnessKey)])
    }

    /// Sends `text` as one or more NOTICEs (see ``sendPrivmsg(to:text:maxLines:fairnessKey:)``).
    public func sendNotice(to target: String, text: String, maxLines: Int = 10, fairnessKey: String? = nil) {
        send(texts: [OutgoingText(.notice, to: target, text: text, maxLines: maxLines, fairnessKey: fairnessKey)])
    }

    /// Queues several texts at once (each split like ``sendPrivmsg(to:text:maxLines:fairnessKey:)``);
    /// the lines the flood gate lets through now leave in one write to the socket.
    ///
    /// When the queue is long, each asker's channel answer in `texts` shrinks to one line
    /// (``OutgoingText/shrunk(_:isChannel:)``).
    public func send(texts: [OutgoingText]) {
        for line in machine.lines(for: texts, shrinking: queue.count >= Self.shrinkingBacklog) {
            queueLine(
                line.message, fairnessKey: line.fairnessKey, fairnessGroup: line.fairnessGroup, answer: line.answer)
        }
        if writeReadyLines() { writerWake?.yield() }
    }

    /// Queued lines from which channel answers shrink to one line.
    static let shrinkingBacklog = 5

    /// Joins `channel` now (if registered) and after every reconnect.
    public func join(_ channel: String, key: String? = nil) {
        perform(machine.join(channel, key: key))
    }

    /// Joins `channel` now (if registered) and after every reconnect, like ``join(_:key:)``, for
    /// someone who waits for the server's word: `.done` once the client is in it, `.refused` with the
    /// server's reason (a `FAIL JOIN` also stops the client wanting the channel; after an error
    /// numeric it tries again later, as after any refused JOIN), `.noAnswer` when the server said
    /// nothing within ``IRCClientConfiguration/requestTimeout`` or the client is not registered.
    public func joinAnswered(_ channel: String, key: String? = nil) async -> RequestOutcome {
        await awaitAnswer { machine.joinRequested(channel, key: key, waiter: $0, at: clock.now) }
    }

    /// Leaves `channel` and stops rejoining it, like ``part(_:reason:)``, for someone who waits for the
    /// server's word (see ``joinAnswered(_:key:)``).
    public func partAnswered(_ channel: String, reason: String? = nil) async -> RequestOutcome {
        await awaitAnswer { machine.partRequested(channel, reason: reason, waiter: $0, at: clock.now) }
    }

    /// Registers a waiter, performs what `request` (given the waiter's id) returns, and waits until
    /// the machine answers that waiter.
    private func awaitAnswer(_ request: (Int) -> [RequestAction]) async -> RequestOutcome {
        await withCheckedContinuation { continuation in
            let id = requestWaiters.add(continuation)
            perform(request(id))
        }
    }

    /// Sends at a new pace from now on (a config reload); lines already queued follow it.
    public func setFlood(_ flood: IRCClientConfiguration.Flood) {
        floodGate = FloodGate(burst: flood.burst, linesPerSecond: flood.linesPerSecond, now: ContinuousClock.now)
        writerWake?.yield()
    }

    /// Leaves `channel` and stops rejoining it.
    public func part(_ channel: String, reason: String? = nil) {
        perform(machine.part(channel, reason: reason))
    }

    /// Waits until every line queued so far (`send`, `sendPrivmsg`, `sendNotice`…) has been written
    /// to the connection; true when it was, false when the client stopped first or the calling
    /// task was cancelled. Lines dropped from a full queue count as gone.
    public func waitUntilQueuedLinesAreWritten() async -> Bool {
        let ticket = receipts.lastTicket
        if receipts.isSettled(upTo: ticket) { return true }
        guard isRunning, !stopRequested else { return false }
        let id = receipts.makeWaiterID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // The client may have stopped, or the task been cancelled, before this runs.
                if isRunning, !stopRequested, !Task.isCancelled {
                    receipts.addWaiter(id: id, ticket: ticket, continuation)
                } else {
                    continuation.resume(returning: receipts.isSettled(upTo: ticket))
                }
            }
        } onCancel: {
            Task { await self.cancelWriteWaiter(id) }
        }
    }

    private func cancelWriteWaiter(_ id: Int) { receipts.cancelWaiter(id) }

    // MARK: The queue

    /// Queues a normal line; `fairnessKey` nil puts it in the control lane (JOIN, WHO, NICK…).
    func enqueue(_ message: IRCMessage, fairnessKey: String? = nil) {
        queueLine(message, fairnessKey: fairnessKey)
        if writeReadyLines() { writerWake?.yield() }
    }

    private func queueLine(
        _ message: IRCMessage, fairnessKey: String?, fairnessGroup: String? = nil, answer: SendQueue.Answer? = nil
    ) {
        queue.enqueue(
            message.serialized(), fairnessKey: fairnessKey, fairnessGroup: fairnessGroup, answer: answer,
            ticket: receipts.queued())
        receipts.settled(queue.takeDroppedTickets())
    }

    func dropQueuedLines(of departure: SendQueue.Departure) {
        guard !queue.isEmpty else { return }
        let dropped = queue.dropLines(of: departure)
        guard dropped > 0 else { return }
        receipts.settled(queue.takeDroppedTickets())
        linesDroppedForDepartures += dropped
        logger.debug("Dropped \(dropped) queued line(s) to a user who left; \(queue.count) still queued")
        if queue.isEmpty { queueRanEmpty() }
    }

    /// The last queued line left (written or dropped): every write receipt is settled, and when
    /// lines to users who left were dropped since the queue was last empty, the log says so, once.
    private func queueRanEmpty() {
        receipts.queueEmptied()
        guard linesDroppedForDepartures > 0 else { return }
        logger.info(
            "The send queue is empty: \(linesDroppedForDepartures) queued line(s) to users who left were dropped, not sent"
        )
        linesDroppedForDepartures = 0
    }

    /// Lines queued before (or during) an outage longer than
    /// ``IRCClientConfiguration/Reconnect/keepQueuedLinesFor`` are not sent after the reconnect.
    func discardQueuedLines(after outage: Duration) {
        guard !queue.isEmpty else { return }
        let count = queue.count
        queue.removeAll()
        receipts.queueEmptied()
        linesDroppedForDepartures = 0
        let limit = ConnectionStateMachine.format(configuration.reconnect.keepQueuedLinesFor)
        logger.warning(
            "Dropped \(count) queued line(s): the connection was down for \(ConnectionStateMachine.format(outage)), longer than \(limit)"
        )
    }

    /// Writes the queued lines the flood gate lets through now, in queue order, as one buffer (so
    /// one TLS record and one segment: a server relays the lines together instead of holding the
    /// later ones back for Nagle); true when lines remain that have to wait (the writer task sends
    /// those).
    private func writeReadyLines() -> Bool {
        guard machine.isRegistered, let channel else { return !queue.isEmpty }
        var batch: ByteBuffer?
        defer { if let batch { channel.writeAndFlush(batch, promise: nil) } }
        while let line = queue.first {
            if pacingDelay(beforeSending: line) > .zero { return true }
            guard let entry = queue.removeFirstEntry(packing: mustPack) else { break }
            if batch == nil { batch = channel.allocator.buffer(capacity: 512) }
            encodeLine(entry.line, into: &batch!)
            receipts.settled(entry.tickets)
            if queue.isEmpty { queueRanEmpty() }
        }
        return false
    }

    /// Whether the flood gate will hold some queued lines back (so channel answers share lines).
    private var mustPack: Bool {
        !serverPaces && queue.count > 1 && Double(queue.count) > floodGate.availableTokens(at: clock.now)
            && !floodGate.isUnlimited
    }

    /// Whether the server paces the lines itself (it advertises `SAFERATE`): the flood gate then
    /// holds nothing back, and still counts what is sent for when the server stops promising it.
    var serverPaces: Bool { machine.serverSupport.pacesClients }

    /// How long `line` must wait: nothing while the server paces, else what the flood gate says.
    private func pacingDelay(beforeSending line: String) -> Duration {
        serverPaces ? .zero : floodGate.delay(beforeSending: FloodGate.cost(of: line), at: clock.now)
    }

    // MARK: Writing

    /// Writes a line now (priority lane), bypassing the queue but not the flood accounting.
    func write(_ message: IRCMessage) {
        writeLine(message.serialized(), message: message)
    }

    private func writeLine(_ line: String, message: IRCMessage? = nil) {
        guard let channel else { return }
        var buffer = channel.allocator.buffer(capacity: line.utf8.count + 2)
        encodeLine(line, message: message, into: &buffer)
        channel.writeAndFlush(buffer, promise: nil)
    }

    /// Appends `line` and CR LF to `buffer`, logs it at trace level and charges the flood gate.
    private func encodeLine(_ line: String, message: IRCMessage? = nil, into buffer: inout ByteBuffer) {
        // Every line here was made by `IRCMessage.serialized()`, which never writes NUL, CR or LF.
        if logger.logLevel <= .trace {
            logger.trace(">> \((message.flatMap(LogRedaction.redact)) ?? LogRedaction.redact(line))")
        }
        buffer.writeString(line)
        buffer.writeStaticString("\r\n")
        floodGate.recordSend(costing: FloodGate.cost(of: line), at: clock.now)
    }

    // MARK: The writer task

    func runWriter(connectionID id: Int) async {
        let (wakeups, wakeSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        writerWake = wakeSink
        wakeSink.yield()
        for await _ in wakeups {
            guard id == connectionID else { break }
            await drainQueue(connectionID: id)
        }
    }

    private func drainQueue(connectionID id: Int) async {
        while machine.isRegistered, id == connectionID, !Task.isCancelled, let line = queue.first {
            let wait = pacingDelay(beforeSending: line)
            if wait > .zero {
                do { try await Task.sleep(for: wait) } catch { return }
                continue
            }
            guard let entry = queue.removeFirstEntry(packing: mustPack) else { break }
            writeLine(entry.line)
            receipts.settled(entry.tickets)
            if queue.isEmpty { queueRanEmpty() }
        }
    }
}
