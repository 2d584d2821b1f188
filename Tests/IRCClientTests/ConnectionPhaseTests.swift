import IRCProtocol
import Logging
import Testing

@testable import IRCClient

/// The phases of ``ConnectionStateMachine`` and the data each carries: disconnected → registering →
/// registered → disconnected, what a phase forgets when it ends, the transitions the shell never
/// makes (they stop the process), and the log lines returned as actions.
@Suite("Connection phases")
struct ConnectionPhaseTests {
    typealias Machine = ConnectionStateMachineTests

    /// The name of `phase`, for comparing.
    static func name(_ phase: ConnectionPhase) -> String {
        switch phase {
        case .disconnected: "disconnected"
        case .registering: "registering"
        case .registered: "registered"
        }
    }

    @Test func aConnectionGoesThroughRegisteringToRegisteredAndBackToDisconnected() {
        var machine = Machine.machine()
        guard case .disconnected(nil) = machine.phase else {
            Issue.record("a new machine is \(Self.name(machine.phase))")
            return
        }
        _ = machine.connected(at: Machine.at(0), secure: false)
        guard case .registering(let link, let registering) = machine.phase else {
            Issue.record("connected: \(Self.name(machine.phase))")
            return
        }
        #expect(!link.secure && !link.stsSeen)
        #expect(registering.connectedAt == Machine.at(0) && registering.outageStart == nil)
        _ = Machine.receive(":srv 421 * CAP :Unknown command", ":srv 001 bot :Welcome", into: &machine, at: 2)
        #expect(Self.name(machine.phase) == "registered")
        #expect(machine.registeredAt == Machine.at(2))
        _ = machine.connectionClosed(reason: "reset", at: Machine.at(5))
        guard case .disconnected(let outageStart) = machine.phase else {
            Issue.record("closed: \(Self.name(machine.phase))")
            return
        }
        #expect(outageStart == Machine.at(5))
        #expect(machine.registeredAt == nil)
        // The outage's start goes with the next connection until its welcome.
        _ = machine.connected(at: Machine.at(6))
        guard case .registering(_, let next) = machine.phase else {
            Issue.record("reconnected: \(Self.name(machine.phase))")
            return
        }
        #expect(next.outageStart == Machine.at(5))
    }

    /// What exists only while registered (the bot mode, watched nicks, WHOIS lookups, the regain
    /// timer) is gone with the connection; the channels wanted outlive it.
    @Test func theRegisteredPhasesDataEndsWithTheConnection() {
        var machine = Machine.machine()
        _ = machine.connected(at: Machine.at(0))
        _ = Machine.receive(":srv 421 * CAP :Unknown command", ":srv 433 * bot :in use", into: &machine)
        _ = Machine.receive(
            ":srv 001 bot_ :Welcome", ":srv 005 bot_ MONITOR=100 BOT=B :are supported", ":srv 376 bot_ :End of MOTD",
            into: &machine)
        _ = machine.tick(at: Machine.at(2))
        _ = machine.askWhois(about: "ada", waiter: 7, at: Machine.at(2))
        _ = machine.join("#extra", key: nil)
        #expect(machine.botMode != nil && machine.configuredNickWatched && machine.nextNickRegain != nil)
        #expect(
            Machine.described(machine.connectionClosed(reason: "reset", at: Machine.at(3))).first == "answer [7] nil")
        #expect(machine.botMode == nil && !machine.configuredNickWatched && machine.nextNickRegain == nil)
        #expect(machine.channels.isWanted("#extra"))
        #expect(machine.currentNick == "bot_")
        _ = machine.connected(at: Machine.at(4))
        #expect(machine.currentNick == "bot")
    }

    /// A second 001 on one connection registers nothing again (no second round of JOINs).
    @Test func aSecondWelcomeIsIgnored() {
        var machine = Machine.registered()
        let again = machine.lineReceived(":srv 001 bot :Welcome", at: Machine.at(3))
        #expect(Machine.described(again).isEmpty)
        #expect(machine.registeredAt == Machine.at(1))
    }

    @Test func aTickWithoutAConnectionDoesNothing() {
        var machine = Machine.machine()
        #expect(machine.tick(at: Machine.at(1000)).isEmpty)
    }

    // MARK: Logging

    /// The machine's log lines are actions at their level; those below the shell's level are not
    /// returned (nor built: the line trace costs nothing at `info`).
    @Test func logLinesAreActionsAtTheShellsLevel() {
        var quiet = ConnectionStateMachine(configuration: Machine.configuration(), logLevel: .info)
        _ = quiet.connected(at: Machine.at(0))
        #expect(Machine.logged(quiet.lineReceived("PING :1", at: Machine.at(1))).isEmpty)
        #expect(
            Machine.logged(quiet.lineReceived(":srv 433 * bot :in use", at: Machine.at(1))) == [
                "info Nick bot refused (433); trying bot_"
            ])

        var tracing = ConnectionStateMachine(configuration: Machine.configuration(), logLevel: .trace)
        _ = tracing.connected(at: Machine.at(0))
        #expect(Machine.logged(tracing.lineReceived("PING :1", at: Machine.at(1))) == ["trace << PING :1"])
        #expect(
            Machine.logged(tracing.lineReceived(":srv 12345 x", at: Machine.at(1))).first?.hasPrefix(
                "debug Skipping an unparsable line") == true)
    }

    /// The end of a connection is logged as a warning, or as information once the client is stopping.
    @Test func theEndOfAConnectionIsLoggedAsAWarningUnlessTheClientIsStopping() {
        var machine = Machine.registered()
        #expect(
            Machine.logged(machine.connectionClosed(reason: "reset", at: Machine.at(2))) == [
                "warning Connection to irc.example ended: reset"
            ])
        _ = machine.connected(at: Machine.at(3))
        machine.stopRequested()
        #expect(
            Machine.logged(machine.connectionClosed(reason: "shutdown", at: Machine.at(4))) == [
                "info Connection to irc.example closed: shutdown"
            ])
    }

    /// A password in a line the server sends back is not in the trace.
    @Test func theLineTraceIsRedacted() {
        var machine = ConnectionStateMachine(configuration: Machine.configuration(), logLevel: .trace)
        _ = machine.connected(at: Machine.at(0))
        let logged = Machine.logged(machine.lineReceived("AUTHENTICATE c2VjcmV0", at: Machine.at(1)))
        #expect(logged.count == 1)
        #expect(!logged.contains { $0.contains("c2VjcmV0") })
    }
}
