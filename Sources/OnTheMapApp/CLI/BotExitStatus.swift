import ArgumentParser

/// The exit statuses of `onthemap-bot`, for service managers: the systemd unit lists the two that
/// a restart cannot fix in `RestartPreventExitStatus=` (docs/operators.md documents them).
public enum BotExitStatus {
    /// Stopped on SIGINT or SIGTERM, after QUIT.
    public static let stopped: Int32 = 0
    /// An unexpected failure that a restart may cure (the database could not be opened, …).
    public static let failure: Int32 = 1
    /// The network refused the bot's required login (`irc.sasl.required`): fix the account or
    /// the password first (`EX_NOPERM` of sysexits.h).
    public static let authentication: Int32 = 77
    /// The config cannot be used, or a file it or the installation needs is missing or unusable
    /// (a resource folder, a TLS certificate): fix it first (`EX_CONFIG` of sysexits.h).
    public static let configuration: Int32 = 78

    /// The `ExitCode` that ends the process with `status`.
    static func exit(_ status: Int32) -> ExitCode { ExitCode(status) }
}
