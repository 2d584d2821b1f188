import IRCProtocol
import Logging
import Metrics
import NIOConcurrencyHelpers

/// Told how each command line addressed to the bot ended: refused before it ran (see ``Admission``)
/// or run to an outcome. The router reports to its log and metrics (``CommandLog``) and to the
/// observer its host gives (a test's record of outcomes).
public protocol CommandObserver: Sendable {
    func observe(_ event: CommandEvent)
}

/// One report of the router.
public enum CommandEvent: Sendable {
    /// The command of `line` (`command`: its name, nil when the line named none) did not run.
    case refused(Refusal, command: String?, line: IRCUserMessage)
    /// A command ran.
    case finished(CommandReport)
}

/// How a command that ran ended.
public struct CommandReport: Sendable {
    public enum Outcome: String, Sendable, Hashable {
        /// It answered.
        case ok
        /// It refused with a sentence for the user (a ``UserFacingError``).
        case refused
        /// It failed on the bot's side.
        case error
        /// It ran past the time limit and was stopped.
        case timeout
    }

    /// The command's declared name.
    public var command: String
    public var outcome: Outcome
    public var sender: UserIdentity
    public var origin: Origin
    /// The argument as it may be logged (see ``CommandRouter/loggable(_:)``); nil for a command with
    /// secret arguments, or none.
    public var loggableArgument: String?
    /// Whether it is an owner command (logged at notice, with the owner's account).
    public var byOwner: Bool
    /// What went wrong, for ``Outcome/error``.
    public var error: String?
    /// How long it ran, on the router's clock.
    public var duration: Duration
}

/// What the router's log line of a command says about the person who sent it and what they typed.
/// Lines about abuse (a flood, a busy host, a secret said in a channel, an owner command refused)
/// always carry the sender's `nick!user@host`: that is what an operator acts on.
public enum CommandLogDetail: Sendable {
    /// The sender's `nick!user@host` and the command's argument (places, links and names included).
    case studentData
    /// No argument, and the sender named by `pseudonym` (given the sender's `user@host`), or not at
    /// all when nil. Owner commands still name the owner's `nick!user@host` and account.
    case pseudonymous(pseudonym: (@Sendable (String) -> String)?)
}

/// The router's log lines and metrics of what its commands did: `onthemap_commands_total` (by
/// command and outcome) and `onthemap_command_duration_seconds` (by command), with the router's
/// dimensions (the network).
final class CommandLog: CommandObserver {
    let logger: Logger
    let dimensions: [(String, String)]
    let detail: CommandLogDetail
    /// Metric handles per command (and outcome), made on first use (a metrics factory looks labels
    /// up under a lock and validates them on every `Counter(label:)`).
    private let handles = NIOLockedValueBox<(counters: [String: Counter], timers: [String: Metrics.Timer])>(([:], [:]))

    init(logger: Logger, dimensions: [(String, String)], detail: CommandLogDetail) {
        self.logger = logger
        self.dimensions = dimensions
        self.detail = detail
    }

    func observe(_ event: CommandEvent) {
        switch event {
        case .refused(let refusal, let command, let line):
            logRefusal(refusal, command: command, line: line)
        case .finished(let report):
            record(report)
        }
    }

    private func logRefusal(_ refusal: Refusal, command: String?, line: IRCUserMessage) {
        switch refusal.reason {
        case .flooding:
            logger.notice("ignoring a user who sends too many commands", metadata: ["user": "\(line.sender.mask)"])
        case .busyHost:
            logger.notice("refusing commands from a busy host", metadata: ["user": "\(line.sender.mask)"])
        case .ownersOnly:
            logger.notice(
                "owner command refused",
                metadata: ["command": "\(command ?? "")", "user": "\(line.sender.description)"])
        case .secretInChannel:
            logger.warning(
                "secret command said in a channel; line dropped",
                metadata: [
                    "command": "\(command ?? "")", "user": "\(line.sender.mask)",
                    "channel": "\(line.origin.channelName ?? "")",
                ])
        case .unknownCommand, .chatLine, .wrongPlace, .turnedOff, .tooSoon, .notLoggedIn:
            break
        }
    }

    private func record(_ report: CommandReport) {
        var metadata: Logger.Metadata = [
            "command": "\(report.command)", "where": "\(report.origin.channelName ?? "private")",
        ]
        switch detail {
        case .studentData:
            metadata["user"] = "\(report.sender.mask)"
            if let argument = report.loggableArgument { metadata["argument"] = "\(argument)" }
        case .pseudonymous(let pseudonym):
            if report.byOwner {
                metadata["user"] = "\(report.sender.mask)"
            } else if let pseudonym {
                let sender = report.sender
                metadata["user"] = "\(pseudonym("\(sender.user ?? "*")@\(sender.host ?? sender.nick)"))"
            }
        }
        if let error = report.error { metadata["error"] = "\(error)" }
        metadata["outcome"] = "\(report.outcome.rawValue)"
        metadata["ms"] = "\(report.duration.milliseconds)"
        let (counter, timer) = handles(report.command, outcome: report.outcome.rawValue)
        counter.increment()
        let elapsed = report.duration.components
        timer.recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
        if report.outcome == .error {
            logger.error("command failed", metadata: metadata)
        } else if report.byOwner {
            metadata["account"] = "\(report.sender.loggedInAccount ?? "none")"
            logger.notice("owner command", metadata: metadata)
        } else {
            logger.info("command", metadata: metadata)
        }
    }

    /// The counter of one command's outcome and the command's duration timer, each made once.
    private func handles(_ name: String, outcome: String) -> (Counter, Metrics.Timer) {
        handles.withLockedValue { made in
            let key = name + "\u{0}" + outcome
            let counter =
                made.counters[key]
                ?? Counter(
                    label: "onthemap_commands_total",
                    dimensions: [("command", name), ("outcome", outcome)] + dimensions)
            let timer =
                made.timers[name]
                ?? Metrics.Timer(
                    label: "onthemap_command_duration_seconds", dimensions: [("command", name)] + dimensions)
            made.counters[key] = counter
            made.timers[name] = timer
            return (counter, timer)
        }
    }
}
