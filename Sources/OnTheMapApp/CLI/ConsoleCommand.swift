import ArgumentParser
import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// `onthemap-bot console`: the bot's commands on a local prompt, without IRC (for trying the bot
/// and checking a config before going live).
struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Tries the bot on a local prompt: the same commands and data, no IRC.",
        discussion: """
            Lines you type are said by the current user (--as, later /as NICK) in the current place \
            (the first configured channel; /dm speaks privately, /channel [#name] goes back). \
            Replies print as the channel would show them. /help lists the console commands; /quit \
            or end of input leaves. Input may be piped in: each line's replies are printed before \
            the next line is read.
            """)

    @OptionGroup var options: ConfigOptions

    @Option(name: .customLong("as"), help: "The nick you speak as at first.")
    var user: String = "you"

    @Option(help: "Log level (logs go to standard error): trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .warning

    func validate() throws {
        guard ConfigLoader.isValidNick(user) else {
            throw ValidationError("--as \(user): not a valid nick (letters, digits and []\\`_^{|}-)")
        }
    }

    func run() async throws {
        let config = try options.loadForService()
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = TextLogHandler(label: label)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: "onthemap.console")
        logger.logLevel = level
        do {
            try await BotConsole.run(
                config: config, user: user, input: BotConsole.standardInputLines(),
                interactive: isatty(STDIN_FILENO) == 1,
                write: { FileHandle.standardOutput.write(Data($0.utf8)) }, logger: logger)
        } catch {
            throw ValidationError(
                "cannot open the \(config.service.backend.rawValue) directory: \(ServiceErrorText.describe(error))")
        }
    }
}
