import BotTesting
import IRCProtocol
import Testing

@testable import IRCClient

/// Commands the client sends on someone's behalf (an owner's JOIN or PART) end with the server's
/// word: done, refused (a `FAIL` for that command, or an error numeric), or no answer in time.
@Suite("Answers to commands sent on someone's behalf")
struct RequestAnswerTests {
    typealias Machine = ConnectionStateMachineTests

    @Test func aFailForTheJoinEndsItWithTheServersReasonAndTheChannelIsNotRetried() {
        var machine = Machine.registered()
        #expect(
            Machine.described(machine.joinRequested("#extra", key: nil, waiter: 1, at: Machine.at(2)))
                == ["queue JOIN #extra"])
        #expect(machine.channels.isWanted("#extra"))
        let answered = Machine.receive(
            ":srv FAIL JOIN CHANNEL_RESTRICTED #extra :Only registered users may join #extra", into: &machine, at: 3)
        #expect(
            answered == [
                "answer request [1] \(RequestOutcome.refused(code: "CHANNEL_RESTRICTED", reason: "Only registered users may join #extra", isStandardReply: true))"
            ])
        #expect(!machine.channels.isWanted("#extra"), "a JOIN the server refuses is not sent again")
    }

    /// Without labels, a FAIL names the command: it ends the waiting one whose channel it names, else
    /// the oldest; a FAIL for another command ends neither.
    @Test func aFailEndsTheCommandItNames() {
        var machine = Machine.registered()
        _ = machine.joinRequested("#one", key: nil, waiter: 1, at: Machine.at(2))
        _ = machine.joinRequested("#two", key: nil, waiter: 2, at: Machine.at(2))
        #expect(Machine.receive(":srv FAIL PART NOT_ON_CHANNEL #two :no", into: &machine, at: 3).isEmpty)
        let second = Machine.receive(":srv FAIL JOIN BANNED #TWO :You are banned", into: &machine, at: 3)
        #expect(second.first?.hasPrefix("answer request [2] refused") == true)
        let first = Machine.receive(":srv FAIL JOIN RATE_LIMITED :Too many joins", into: &machine, at: 3)
        #expect(first.first?.hasPrefix("answer request [1] refused") == true)
    }

    /// With labeled-response, the FAIL that carries the command's label ends that very command.
    @Test func aLabeledFailEndsTheCommandWithThatLabel() {
        var machine = ReplyTagTests.registered(capabilities: "labeled-response batch")
        #expect(
            Machine.described(machine.joinRequested("#one", key: nil, waiter: 1, at: Machine.at(2)))
                == ["queue @label=w1 JOIN #one"])
        _ = machine.joinRequested("#two", key: nil, waiter: 2, at: Machine.at(2))
        let answered = Machine.receive(
            "@label=w2 :srv FAIL JOIN CHANNEL_RESTRICTED #one :Not for you", into: &machine, at: 3)
        #expect(answered.first?.hasPrefix("answer request [2] refused") == true)
        #expect(machine.channels.isWanted("#one") && !machine.channels.isWanted("#two"))
    }

    @Test func theOwnJoinOrPartDoneOrAnErrorNumericOrSilenceEndTheCommand() {
        var machine = Machine.registered()
        _ = machine.joinRequested("#extra", key: nil, waiter: 1, at: Machine.at(2))
        #expect(
            Machine.receive(":bot!otm@h JOIN #Extra", into: &machine, at: 3).contains(
                "answer request [1] \(RequestOutcome.done)"))
        _ = machine.partRequested("#extra", reason: nil, waiter: 2, at: Machine.at(4))
        #expect(!machine.channels.isWanted("#extra"))
        #expect(
            Machine.receive(":bot!otm@h PART #extra", into: &machine, at: 5).contains(
                "answer request [2] \(RequestOutcome.done)"))
        // A refused JOIN (banned): told, and retried later as any refused channel.
        _ = machine.joinRequested("#banned", key: nil, waiter: 3, at: Machine.at(6))
        let banned = Machine.receive(":srv 474 bot #banned :Cannot join channel (+b)", into: &machine, at: 6)
        #expect(
            banned.contains(
                "answer request [3] \(RequestOutcome.refused(code: "474", reason: "Cannot join channel (+b)", isStandardReply: false))"
            ))
        #expect(machine.channels.isWanted("#banned"))
        // No word within the time allowed.
        _ = machine.partRequested("#quiet", reason: nil, waiter: 4, at: Machine.at(7))
        #expect(Machine.described(machine.tick(at: Machine.at(8))).isEmpty)
        #expect(
            Machine.described(machine.tick(at: Machine.at(13))) == ["answer request [4] \(RequestOutcome.noAnswer)"])
    }

    @Test func beforeRegistrationOrAfterTheConnectionEndsThereIsNoAnswer() {
        var machine = Machine.machine()
        _ = machine.connected(at: Machine.at(0))
        #expect(
            Machine.described(machine.joinRequested("#extra", key: nil, waiter: 1, at: Machine.at(0)))
                == ["answer request [1] \(RequestOutcome.noAnswer)"])
        #expect(machine.channels.isWanted("#extra"), "joined once registered")
        var registered = Machine.registered()
        _ = registered.joinRequested("#extra", key: nil, waiter: 2, at: Machine.at(2))
        #expect(
            Machine.described(registered.connectionClosed(reason: "gone", at: Machine.at(3))).contains(
                "answer request [2] \(RequestOutcome.noAnswer)"))
    }

    /// Through the client over a socket: the owner's JOIN that the server refuses with FAIL returns
    /// the refusal, the one it grants returns done.
    @Test(.timeLimit(.minutes(1))) func theClientReturnsTheServersWordToWhoeverWaits() async throws {
        let server = try await ScriptedIRCServer.start { message, _ in
            switch (message.command, message.parameters.first) {
            case ("CAP", "LS"): return [":srv CAP * LS :"]
            case ("CAP", "END"): return [":srv 001 bot :Welcome", ":srv 376 bot :End of MOTD"]
            case ("JOIN", "#closed"): return [":srv FAIL JOIN CHANNEL_RESTRICTED #closed :Only staff may join #closed"]
            case ("JOIN", "#open"): return [":bot!otm@h JOIN #open"]
            default: return []
            }
        }
        let client = IRCClient(
            configuration: testConfiguration(port: server.port, tls: ScriptedServerTests.plaintext, nick: "bot"))
        let runner = Task { await client.run() }
        // The events are read to their end (a loop that stopped reading would end the stream).
        let registered = TestSignal()
        let reader = Task {
            for await event in client.events {
                if case .registered = event { registered.signal() }
            }
        }
        #expect(await registered.wait(timeout: .seconds(30)))
        #expect(
            await client.joinAnswered("#closed")
                == .refused(code: "CHANNEL_RESTRICTED", reason: "Only staff may join #closed", isStandardReply: true))
        #expect(await client.joinAnswered("#open") == .done)
        await client.shutdown()
        await runner.value
        reader.cancel()
        await server.stop()
    }
}
