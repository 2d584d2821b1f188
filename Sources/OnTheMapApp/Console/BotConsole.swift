import BotKit
import Foundation
import Logging

/// Console mode: the bot's plugins and service layer on a local prompt instead of IRC. Each typed
/// line is said by the current console user in the current place; the bot's replies (and the
/// announcer's posts) are printed as a channel would show them.
public enum BotConsole {
    /// The bot's nick in the console: the configured one, or "MapBot".
    public static func botNick(for config: BotConfiguration) -> String {
        ConfigLoader.isValidNick(config.irc.nick) ? config.irc.nick : "MapBot"
    }

    /// Where lines are said at first: the first configured channel, or "#class".
    public static func firstChannel(for config: BotConfiguration) -> String {
        config.irc.channels.first?.name ?? "#class"
    }

    /// Runs the console until `input` ends or `/quit`. Each line's replies are printed before the
    /// next line is read, so piped input gives a deterministic transcript. With `interactive`, a
    /// greeting and a prompt are shown. Throws a `ServiceError` when the backend cannot be opened.
    public static func run(
        config original: BotConfiguration, user: String, input: AsyncStream<String>, interactive: Bool,
        write: @escaping @Sendable (String) -> Void, logger: Logger
    ) async throws {
        var config = original
        config.irc.nick = botNick(for: original)
        if config.irc.commandPrefix.isEmpty { config.irc.commandPrefix = "!" }
        let channel = firstChannel(for: config)
        var interpreter = ConsoleInterpreter(user: user, channel: channel, botNick: config.irc.nick)
        let screen = ConsoleScreen(botNick: config.irc.nick, user: user, write: write)

        let stack = try await ServiceStack.make(config: config, logger: logger)
        let router = BotAssembly.makeRouter(
            config: config, stack: stack, transport: ConsoleTransport(screen: screen, botNick: config.irc.nick),
            logger: logger)
        let background = Task { await router.runBackgroundPlugins() }
        if interactive {
            await screen.note([
                "On The Map console: you are \(user) in \(channel); the bot is \(config.irc.nick). No IRC involved.",
                "Try \(config.irc.commandPrefix)help or \(config.irc.commandPrefix)near Paris; /help lists the console commands.",
            ])
        }

        var lines = input.makeAsyncIterator()
        reading: while true {
            if interactive { await screen.showPrompt(interpreter.prompt) }
            guard let typed = await lines.next() else {
                // End of input (Ctrl-D): leave the prompt's line.
                await screen.promptAnswered()
                if interactive { write("\n") }
                break
            }
            await screen.promptAnswered()
            switch interpreter.interpret(typed) {
            case .say(let line):
                await router.handle(line)
                await router.waitUntilIdle()
            case .note(let notes):
                await screen.setUser(interpreter.user)
                await screen.note(notes)
            case .quit:
                break reading
            }
        }
        background.cancel()
        await background.value
        await router.waitUntilIdle()
        await stack.shutdown()
    }

    /// The lines of standard input, read on a thread of their own so no task blocks on the terminal.
    public static func standardInputLines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        let reader = Thread {
            while let line = readLine(strippingNewline: true) {
                continuation.yield(line)
            }
            continuation.finish()
        }
        reader.name = "onthemap-console-input"
        reader.start()
        return stream
    }
}
