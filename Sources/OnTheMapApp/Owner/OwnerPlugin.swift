import BotKit
import Foundation
import IRCClient
import IRCProtocol
import OnTheMapPlugins

/// The owners' commands (`irc.owners`): steer the running bot from IRC. The router refuses them to
/// everyone else and logs every use; `!help <command>` documents them, the public list hides them.
struct OwnerPlugin: Plugin {
    let name = "owner"
    let control: BotControl

    var commands: [Command] {
        [
            ownerCommand(
                "join", usage: "!join #channel [key]", help: "Joins a channel (until the next restart or !part).",
                example: CommandExample("!join #study-group", answer: "Joining #study-group.", byOwner: true)
            ) { try await join($0) },
            ownerCommand(
                "part", usage: "!part #channel [reason]", help: "Leaves a channel and stops rejoining it.",
                example: CommandExample("!part #study-group", answer: "Leaving #study-group.", byOwner: true)
            ) { try await part($0) },
            ownerCommand(
                "say", usage: "!say <#channel|nick> <text>", help: "Says a line in a channel or to a nick.",
                example: CommandExample(
                    "!say #class Office hours moved to 4 pm.", answer: "Said in #class.", byOwner: true)
            ) { try await say($0) },
            ownerCommand(
                "quit", usage: "!quit [all] [message]",
                help:
                    "Leaves this network (the bot stops when no network is left; it does not come back by itself); !quit all leaves every network.",
                example: CommandExample("!quit See you next term", answer: "Quitting.", byOwner: true)
            ) { try await quit($0) },
            ownerCommand(
                "reload", usage: "!reload", help: "Reads the config file again and applies what can change live.",
                example: CommandExample("!reload", answer: "Reloaded …", byOwner: true)
            ) { call in
                let outcome = await control.reload()
                if !outcome.succeeded { throw UserFacingError(outcome.summary) }
                await call.reply(outcome.summary)
            },
            ownerCommand(
                "ignore", usage: "!ignore <nick|mask> [minutes]", help: "Ignores someone's commands.",
                example: CommandExample(
                    "!ignore spammer 60", answer: "Ignoring spammer!*@* for 60 minutes.", byOwner: true)
            ) { try await ignore($0) },
            ownerCommand(
                "unignore", usage: "!unignore <nick|mask>", help: "Stops ignoring someone.",
                example: CommandExample("!unignore spammer", answer: "No longer ignoring spammer!*@*.", byOwner: true)
            ) { try await unignore($0) },
            ownerCommand(
                "ignores", usage: "!ignores", help: "Lists who is ignored.",
                example: CommandExample("!ignores", answer: "Nobody is ignored.", byOwner: true)
            ) { try await listIgnores($0) },
            ownerCommand(
                "pin", usage: "!pin remove <name|nick|email|id>",
                help: "Takes a student's pin off the map; a name several pins share lists them instead.",
                example: CommandExample(
                    "!pin remove Zed Nobody", answer: "No pin matches \"Zed Nobody\" …", byOwner: true)
            ) { call in try await PinRemoval.ownerRemove(call, services: control.services) },
            ownerCommand(
                "status", usage: "!status",
                help: "Connection, nick, channels, backend, sessions, send queue, uptime and version.",
                example: CommandExample("!status", answer: ["On The Map …", CommandExample.wildcard], byOwner: true)
            ) { call in await call.reply(lines: await control.statusLines()) },
        ]
    }

    private func ownerCommand(
        _ name: String, usage: String, help: String, example: CommandExample,
        handler: @escaping Command.Handler
    ) -> Command {
        Command(
            name, usage: usage, help: help, requiresOwner: true, isHidden: true, examples: [example], handler: handler)
    }

    private func connected() throws -> IRCClient {
        guard let client = control.client else { throw UserFacingError("I am not connected to IRC here.") }
        return client
    }

    private func join(_ call: Invocation) async throws {
        let words = call.words
        guard let channel = words.first, words.count <= 2, ConfigLoader.isValidChannel(channel) else {
            throw UserFacingError("Usage: \(call.prefix)join #channel [key] (a channel starts with # or &).")
        }
        let key = words.count == 2 ? words[1] : nil
        if let key, !ConfigLoader.isValidChannelKey(key) {
            throw UserFacingError("That key is not a valid channel key (one word, no commas).")
        }
        let client = try connected()
        if await client.joinedChannels.contains(where: { call.caseMapping.equals($0, channel) }) {
            await call.reply("I am in \(channel) already.")
            return
        }
        let outcome = await client.joinAnswered(channel, key: key)
        if let refusal = Self.refusal(outcome, doing: "join", channel: channel, prefix: call.prefix) {
            throw UserFacingError(refusal)
        }
        await call.reply("Joining \(channel).")
    }

    /// The sentence that ends an owner's `!join` or `!part` the server refused (nil when it did not:
    /// done, or no word yet, which the usual answer covers). After an error numeric the bot tries
    /// the JOIN again later, as for any channel it was refused; a standard reply (`FAIL`) ends it.
    static func refusal(_ outcome: RequestOutcome, doing verb: String, channel: String, prefix: String) -> String? {
        guard case .refused(let code, let reason, let isStandardReply) = outcome else { return nil }
        let said = reason.isEmpty ? code : "\(reason) (\(code))"
        if verb == "join" && !isStandardReply {
            return
                "The server would not let me join \(channel): \(said). I will try again later; \(prefix)part \(channel) stops that."
        }
        return "The server would not let me \(verb) \(channel): \(said)."
    }

    private func part(_ call: Invocation) async throws {
        guard let channel = call.words.first, ConfigLoader.isValidChannel(channel) else {
            throw UserFacingError("Usage: \(call.prefix)part #channel [reason].")
        }
        let reason = call.argument.dropFirst(channel.count).trimmingCharacters(in: .whitespaces)
        let outcome = try await connected().partAnswered(
            channel, reason: reason.isEmpty ? nil : TextSanitizer.untrusted(reason, maxBytes: 300))
        if let refusal = Self.refusal(outcome, doing: "leave", channel: channel, prefix: call.prefix) {
            throw UserFacingError(refusal)
        }
        await call.reply("Leaving \(channel).")
    }

    private func say(_ call: Invocation) async throws {
        guard let target = call.words.first,
            ConfigLoader.isValidChannel(target) || ConfigLoader.isValidNick(target)
        else {
            throw UserFacingError("Usage: \(call.prefix)say <#channel|nick> <text>.")
        }
        // Told to itself, the bot would hear a stranger's chat line and greet it, for ever.
        guard call.caseMapping.lowercased(target) != call.caseMapping.lowercased(call.botNick) else {
            throw UserFacingError("I will not talk to myself: give a channel or someone else's nick.")
        }
        let text = TextSanitizer.untrusted(call.argument.dropFirst(target.count).trimmingCharacters(in: .whitespaces))
        guard !text.isEmpty else { throw UserFacingError("Say what? \(call.prefix)say \(target) <text>.") }
        let client = try connected()
        if target.hasPrefix("#") || target.hasPrefix("&") {
            guard await client.joinedChannels.contains(where: { call.caseMapping.equals($0, target) }) else {
                throw UserFacingError("I am not in \(target); \(call.prefix)join it first.")
            }
        }
        await client.sendPrivmsg(to: target, text: text, maxLines: 3)
        await call.reply(target.hasPrefix("#") || target.hasPrefix("&") ? "Said in \(target)." : "Told \(target).")
    }

    /// `!quit [message]` leaves this network; `!quit all [message]` leaves every network.
    private func quit(_ call: Invocation) async throws {
        let client = try connected()
        let everywhere = call.words.first?.lowercased() == "all"
        let text = everywhere ? String(call.argument.drop { !$0.isWhitespace }.drop { $0.isWhitespace }) : call.argument
        let message = TextSanitizer.untrusted(text, maxBytes: 300)
        let others = control.group.controls.filter { $0 !== control && $0.client != nil }
        control.logger.notice(
            "stopping on an owner's !quit",
            metadata: ["owner": "\(call.sender.description)", "networks": "\(everywhere ? "all" : control.network)"])
        if everywhere || others.isEmpty {
            await call.reply("Quitting.")
        } else {
            await call.reply(
                "Leaving \(control.network); still on \(others.map(\.network).joined(separator: ", ")) (\(call.prefix)quit all leaves every network)."
            )
        }
        _ = await call.waitUntilSent()
        let group = control.group
        Task {
            if everywhere { await group.quitAll(message: message.isEmpty ? nil : message) }
            await client.shutdown(quitMessage: message.isEmpty ? nil : message)
        }
    }

    private func ignore(_ call: Invocation) async throws {
        let words = call.words
        guard let typed = words.first, words.count <= 2, let mask = IgnoreList.normalizedMask(typed) else {
            throw UserFacingError("Usage: \(call.prefix)ignore <nick|nick!user@host> [minutes].")
        }
        var duration: Duration?
        if words.count == 2 {
            guard let minutes = Int(words[1]), (1...525_600).contains(minutes) else {
                throw UserFacingError("Minutes must be a whole number from 1 to 525600 (a year).")
            }
            duration = .seconds(minutes * 60)
        }
        guard let router = control.router else { throw UserFacingError("There is no router to ignore with.") }
        guard await router.ignore(mask, for: duration, addedBy: call.sender.nick) else {
            throw UserFacingError("The ignore list is full (\(IgnoreList.capacity) masks); lift some first.")
        }
        await control.saveIgnores()
        let span = duration.map { " for \($0.components.seconds / 60) minutes" } ?? " until \(call.prefix)unignore"
        await call.reply("Ignoring \(mask)\(span).")
    }

    private func unignore(_ call: Invocation) async throws {
        guard let typed = call.words.first, call.words.count == 1, let mask = IgnoreList.normalizedMask(typed) else {
            throw UserFacingError("Usage: \(call.prefix)unignore <nick|nick!user@host>.")
        }
        guard let router = control.router, await router.unignore(mask) else {
            throw UserFacingError("\(mask) is not ignored; \(call.prefix)ignores lists who is.")
        }
        await control.saveIgnores()
        await call.reply("No longer ignoring \(mask).")
    }

    private func listIgnores(_ call: Invocation) async throws {
        let masks = await control.router?.ignoredMasks() ?? []
        guard !masks.isEmpty else { return await call.reply("Nobody is ignored.") }
        let shown = masks.prefix(10).map { entry in
            let left = entry.remaining.map { "\(max(1, ($0.components.seconds + 59) / 60)) min left" } ?? "until lifted"
            return "\(entry.mask) (\(left), by \(entry.addedBy))"
        }
        let more = masks.count > 10 ? " and \(masks.count - 10) more" : ""
        await call.reply("Ignoring \(masks.count): " + shown.joined(separator: ", ") + more + ".")
    }
}
