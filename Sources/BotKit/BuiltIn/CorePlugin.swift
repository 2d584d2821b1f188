import IRCProtocol

/// The commands every bot has: `!help`, `!help <command>` (generated from the declarations)
/// and `!ping`.
public struct CorePlugin: Plugin {
    public let name = "help"
    /// Extra lines for `!help about` (e.g. data attribution).
    public var aboutLines: [String]

    public init(aboutLines: [String] = []) {
        self.aboutLines = aboutLines
    }

    public var commands: [Command] {
        let about = aboutLines
        return [
            Command(
                "help", aliases: ["commands"], usage: "!help [command]",
                help: "Lists the commands, or explains one.",
                examples: [
                    CommandExample(
                        "!help ping",
                        answer: ["!ping — Checks that the bot is alive: it answers pong.", "e.g. !ping → pong"])
                ]
            ) { call in
                try await Self.help(call, about: about)
            },
            Command(
                "ping", usage: "!ping", help: "Checks that the bot is alive: it answers pong.",
                examples: [CommandExample("!ping", answer: "pong")]
            ) { call in
                await call.reply("pong")
            },
        ]
    }

    /// "e.g. !near Paris → Ada Lovelace — 343 km — …": the input and the first answer line (" …"
    /// after it when more lines follow). A command with secret arguments shows its usage instead of
    /// the example's words: help never prints a password, not even a demo one, where others read it.
    static func exampleLine(_ example: CommandExample, of command: Command, prefix: String) -> String {
        let more = example.answer.count > 1 ? " …" : ""
        let first = example.answer.first ?? ""
        let shown = first == CommandExample.wildcard ? "" : " → \(first)\(more)"
        let input = command.hasSecretArguments ? command.usage(withPrefix: prefix) : example.input(withPrefix: prefix)
        return "e.g. \(input)\(shown)"
    }

    static func help(_ call: Invocation, about: [String]) async throws {
        let p = call.prefix
        let asked = call.words.first
            .map { word in TextSanitizer.untrusted(word).filter { !$0.isWhitespace } }
            .map { $0.hasPrefix(p) ? String($0.dropFirst(p.count)) : $0 }
            .flatMap { $0.isEmpty ? nil : $0.lowercased() }
        if let asked, asked == "about" {
            await call.reply(lines: about.isEmpty ? ["On The Map: a class map bot."] : about)
            return
        }
        if let asked {
            guard let entry = call.catalog.lookup(asked) else {
                throw UserFacingError(
                    "There is no command \"\(p)\(TextSanitizer.truncated(asked, maxBytes: 32))\". Try \(p)help for the list."
                )
            }
            let command = entry.command
            var notes: [String] = []
            switch command.allowed {
            case .channel: notes.append("in a channel only")
            case .privateMessage: notes.append("in a private message only")
            case .anywhere: break
            }
            if command.requiresLogin { notes.append("needs \(p)login") }
            if command.requiresOwner { notes.append("the bot's owners only") }
            if !command.aliases.isEmpty {
                notes.append("also " + command.aliases.map { p + $0 }.joined(separator: ", "))
            }
            let suffix = notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"
            await call.reply(
                lines: ["\(command.usage(withPrefix: p)) — \(command.help)\(suffix)"]
                    + command.examples.map { exampleLine($0, of: command, prefix: p) })
            return
        }
        let visible = call.catalog.entries.filter { !$0.command.isHidden }
        let names = visible.map { entry -> String in
            let mark = entry.command.allowed == .privateMessage ? "*" : ""
            return p + entry.command.name + mark
        }
        await call.reply(
            lines: [
                "Commands: " + names.joined(separator: " ") + " (* = private message only)",
                "\(p)help <command> explains one. \(p)help about: data sources and credits.",
            ])
    }
}
