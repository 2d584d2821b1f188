import IRCProtocol
import Localization

/// The commands every bot has: `!help`, `!help <command>` (generated from the declarations)
/// and `!ping`.
public struct CorePlugin: Plugin {
    public let name = "help"
    /// Extra lines for `!help about` (e.g. data attribution).
    public var aboutLines: [String]
    /// Commands about how the bot talks to each user that the host adds (`!lang`), after
    /// `!help` and `!ping`.
    public var conversationCommands: [Command]

    public init(aboutLines: [String] = [], conversationCommands: [Command] = []) {
        self.aboutLines = aboutLines
        self.conversationCommands = conversationCommands
    }

    public var commands: [Command] {
        let about = aboutLines
        return [
            Command(
                "help", aliases: ["commands"],
                examples: [
                    CommandExample(
                        "!help ping", explained: "example.help.ping",
                        answer: [
                            "!ping — Checks that the bot is alive: it answers pong.",
                            "e.g. !ping — checks that the bot answers",
                        ])
                ]
            ) { call in
                try await Self.help(call, about: about)
            },
            Command(
                "ping",
                examples: [CommandExample("!ping", explained: "example.ping.alive", answer: "pong")]
            ) { call in
                await call.reply("pong")
            },
        ] + conversationCommands
    }

    /// "e.g. !near Paris — the classmates nearest to Paris": the input and what it shows, in the
    /// reader's language (``CommandExample/explanation``). An example without an explanation (a
    /// command whose text is not in the catalogues) shows, in English, the first answer line after
    /// the input (" …" after it when more lines follow), and only the input in another language:
    /// the answers are the bot's English ones. A command with secret arguments shows its usage
    /// instead of the example's words: help never prints a password, not even a demo one, where
    /// others read it.
    static func exampleLine(
        _ example: CommandExample, of command: Command, prefix: String, phrases: Phrasebook
    ) -> String {
        let input =
            command.hasSecretArguments
            ? command.usage(in: phrases, prefix: prefix) : example.input(withPrefix: prefix)
        if let explanation = example.explanation {
            return phrases("help.exampleExplained", ["example": input, "explanation": phrases(explanation)])
        }
        let more = example.answer.count > 1 ? " …" : ""
        let first = example.answer.first ?? ""
        let shown = first == CommandExample.wildcard || phrases.language != .english ? "" : " → \(first)\(more)"
        return phrases("help.example", ["example": input + shown])
    }

    static func help(_ call: Invocation, about: [String]) async throws {
        let p = call.prefix
        let phrases = call.phrases
        let asked = call.words.first
            .map { word in TextSanitizer.untrusted(word).filter { !$0.isWhitespace } }
            .map { $0.hasPrefix(p) ? String($0.dropFirst(p.count)) : $0 }
            .flatMap { $0.isEmpty ? nil : $0.lowercased() }
        if let asked, asked == "about" {
            await call.reply(lines: about.isEmpty ? [phrases("help.about")] : about)
            return
        }
        if let asked {
            guard let entry = call.catalog.lookup(asked) else {
                throw UserFacingError(
                    phrases(
                        "help.noSuchCommand",
                        ["command": p + TextSanitizer.truncated(asked, maxBytes: 32), "help": p + "help"]))
            }
            let command = entry.command
            var notes: [String] = []
            switch command.allowed {
            case .channel: notes.append(phrases("help.channelOnly"))
            case .privateMessage: notes.append(phrases("help.privateOnly"))
            case .anywhere: break
            }
            if command.requiresLogin { notes.append(phrases("help.needsLogin", ["login": p + "login"])) }
            if command.requiresOwner { notes.append(phrases("help.ownersOnly")) }
            if !command.aliases.isEmpty {
                notes.append(
                    phrases("help.aliases", ["aliases": command.aliases.map { p + $0 }.joined(separator: ", ")]))
            }
            let suffix = notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"
            await call.reply(
                lines: ["\(command.usage(in: phrases, prefix: p)) — \(command.help(in: phrases))\(suffix)"]
                    + command.examples.map { exampleLine($0, of: command, prefix: p, phrases: phrases) })
            return
        }
        let visible = call.catalog.entries.filter { !$0.command.isHidden }
        let names = visible.map { entry -> String in
            let mark = entry.command.allowed == .privateMessage ? "*" : ""
            return p + entry.command.name + mark
        }
        await call.reply(
            lines: [
                phrases("help.list", ["commands": names.joined(separator: " ")]),
                phrases("help.more", ["help": p + "help", "about": p + "help about"]),
            ])
    }
}
