import BotKit
import Foundation
import IRCClient
import IRCProtocol
import Localization
import OnTheMapPlugins

/// The owners' commands (`irc.owners`): steer the running bot from IRC. The router refuses them to
/// everyone else and logs every use; `!help <command>` documents them, the public list hides them.
struct OwnerPlugin: Plugin {
    let name = "owner"
    let control: BotControl

    var commands: [Command] {
        [
            ownerCommand(
                "join",
                example: CommandExample(
                    "!join #study-group", explained: "example.join.channel", answer: "Joining #study-group.",
                    byOwner: true)
            ) { try await join($0) },
            ownerCommand(
                "part",
                example: CommandExample(
                    "!part #study-group", explained: "example.part.channel", answer: "Leaving #study-group.",
                    byOwner: true)
            ) { try await part($0) },
            ownerCommand(
                "say",
                example: CommandExample(
                    "!say #class Office hours moved to 4 pm.", explained: "example.say.channel",
                    answer: "Said in #class.", byOwner: true)
            ) { try await say($0) },
            ownerCommand(
                "quit",
                example: CommandExample(
                    "!quit See you next term", explained: "example.quit.message", answer: "Quitting.", byOwner: true)
            ) { try await quit($0) },
            ownerCommand(
                "reload",
                example: CommandExample(
                    "!reload", explained: "example.reload.file", answer: "Reloaded …", byOwner: true)
            ) { call in
                let outcome = await control.reload(in: call.phrases)
                if !outcome.succeeded { throw UserFacingError(outcome.summary) }
                await call.reply(outcome.summary)
            },
            ownerCommand(
                "ignore",
                example: CommandExample(
                    "!ignore spammer 60", explained: "example.ignore.hour",
                    answer: "Ignoring spammer!*@* for 60 minutes.", byOwner: true)
            ) { try await ignore($0) },
            ownerCommand(
                "unignore",
                example: CommandExample(
                    "!unignore spammer", explained: "example.unignore.nick", answer: "No longer ignoring spammer!*@*.",
                    byOwner: true)
            ) { try await unignore($0) },
            ownerCommand(
                "ignores",
                example: CommandExample(
                    "!ignores", explained: "example.ignores.list", answer: "Nobody is ignored.", byOwner: true)
            ) { try await listIgnores($0) },
            ownerCommand(
                "pin",
                example: CommandExample(
                    "!pin remove Zed Nobody", explained: "example.pin.remove",
                    answer: "No pin matches \"Zed Nobody\" …", byOwner: true)
            ) { call in try await PinRemoval.ownerRemove(call, services: control.services) },
            ownerCommand(
                "status",
                example: CommandExample(
                    "!status", explained: "example.status.all", answer: ["On The Map …", CommandExample.wildcard],
                    byOwner: true)
            ) { call in await call.reply(lines: await control.statusLines(in: call.phrases)) },
        ]
    }

    /// An owner command: its usage and help are the catalogues' `command.<name>.usage` and `.help`.
    private func ownerCommand(
        _ name: String, example: CommandExample, handler: @escaping Command.Handler
    ) -> Command {
        Command(name, requiresOwner: true, isHidden: true, examples: [example], handler: handler)
    }

    private func connected(_ call: Invocation) throws -> IRCClient {
        guard let client = control.client else { throw UserFacingError(call.phrases("owner.notConnected")) }
        return client
    }

    private func join(_ call: Invocation) async throws {
        let (words, phrases) = (call.words, call.phrases)
        guard let channel = words.first, words.count <= 2, ConfigLoader.isValidChannel(channel) else {
            throw UserFacingError(phrases("owner.join.usage", ["command": call.prefix + "join"]))
        }
        let key = words.count == 2 ? words[1] : nil
        if let key, !ConfigLoader.isValidChannelKey(key) {
            throw UserFacingError(phrases("owner.join.badKey"))
        }
        let client = try connected(call)
        if await client.joinedChannels.contains(where: { call.caseMapping.equals($0, channel) }) {
            await call.reply(phrases("owner.join.already", ["channel": channel]))
            return
        }
        let outcome = await client.joinAnswered(channel, key: key)
        if let refusal = Self.refusal(outcome, doing: "join", channel: channel, prefix: call.prefix, in: phrases) {
            throw UserFacingError(refusal)
        }
        await call.reply(phrases("owner.join.done", ["channel": channel]))
    }

    /// The sentence that ends an owner's `!join` or `!part` the server refused (nil when it did not:
    /// done, or no word yet, which the usual answer covers), in `phrases`' language (the server's
    /// words as it sent them). After an error numeric the bot tries the JOIN again later, as for
    /// any channel it was refused; a standard reply (`FAIL`) ends it.
    static func refusal(
        _ outcome: RequestOutcome, doing verb: String, channel: String, prefix: String,
        in phrases: Phrasebook = .english
    ) -> String? {
        guard case .refused(let code, let reason, let isStandardReply) = outcome else { return nil }
        let said = reason.isEmpty ? code : "\(reason) (\(code))"
        guard verb == "join" else { return phrases("owner.part.refused", ["channel": channel, "reason": said]) }
        if !isStandardReply {
            return phrases(
                "owner.join.refusedRetry", ["channel": channel, "reason": said, "part": "\(prefix)part \(channel)"])
        }
        return phrases("owner.join.refused", ["channel": channel, "reason": said])
    }

    private func part(_ call: Invocation) async throws {
        let phrases = call.phrases
        guard let channel = call.words.first, ConfigLoader.isValidChannel(channel) else {
            throw UserFacingError(phrases("owner.part.usage", ["command": call.prefix + "part"]))
        }
        let reason = call.argument.dropFirst(channel.count).trimmingCharacters(in: .whitespaces)
        let outcome = try await connected(call).partAnswered(
            channel, reason: reason.isEmpty ? nil : TextSanitizer.untrusted(reason, maxBytes: 300))
        if let refusal = Self.refusal(outcome, doing: "leave", channel: channel, prefix: call.prefix, in: phrases) {
            throw UserFacingError(refusal)
        }
        await call.reply(phrases("owner.part.done", ["channel": channel]))
    }

    private func say(_ call: Invocation) async throws {
        let (p, phrases) = (call.prefix, call.phrases)
        guard let target = call.words.first,
            ConfigLoader.isValidChannel(target) || ConfigLoader.isValidNick(target)
        else {
            throw UserFacingError(phrases("owner.say.usage", ["command": p + "say"]))
        }
        // Told to itself, the bot would hear a stranger's chat line and greet it, for ever.
        guard call.caseMapping.lowercased(target) != call.caseMapping.lowercased(call.botNick) else {
            throw UserFacingError(phrases("owner.say.notToSelf"))
        }
        let text = TextSanitizer.untrusted(call.argument.dropFirst(target.count).trimmingCharacters(in: .whitespaces))
        guard !text.isEmpty else {
            throw UserFacingError(phrases("owner.say.noText", ["command": p + "say", "target": target]))
        }
        let client = try connected(call)
        let isChannel = target.hasPrefix("#") || target.hasPrefix("&")
        if isChannel {
            guard await client.joinedChannels.contains(where: { call.caseMapping.equals($0, target) }) else {
                throw UserFacingError(phrases("owner.say.notInChannel", ["channel": target, "join": p + "join"]))
            }
        }
        await client.sendPrivmsg(to: target, text: text, maxLines: 3)
        await call.reply(phrases(isChannel ? "owner.say.saidInChannel" : "owner.say.toldNick", ["target": target]))
    }

    /// `!quit [message]` leaves this network; `!quit all [message]` leaves every network.
    private func quit(_ call: Invocation) async throws {
        let client = try connected(call)
        let everywhere = call.words.first?.lowercased() == "all"
        let text = everywhere ? String(call.argument.drop { !$0.isWhitespace }.drop { $0.isWhitespace }) : call.argument
        let message = TextSanitizer.untrusted(text, maxBytes: 300)
        let others = control.group.controls.filter { $0 !== control && $0.client != nil }
        control.logger.notice(
            "stopping on an owner's !quit",
            metadata: ["owner": "\(call.sender.description)", "networks": "\(everywhere ? "all" : control.network)"])
        if everywhere || others.isEmpty {
            await call.reply(call.phrases("owner.quit.done"))
        } else {
            await call.reply(
                call.phrases(
                    "owner.quit.oneNetwork",
                    [
                        "network": control.network, "networks": others.map(\.network).joined(separator: ", "),
                        "command": call.prefix + "quit all",
                    ]))
        }
        _ = await call.waitUntilSent()
        let group = control.group
        Task {
            if everywhere { await group.quitAll(message: message.isEmpty ? nil : message) }
            await client.shutdown(quitMessage: message.isEmpty ? nil : message)
        }
    }

    private func ignore(_ call: Invocation) async throws {
        let (words, phrases) = (call.words, call.phrases)
        guard let typed = words.first, words.count <= 2, let mask = IgnoreList.normalizedMask(typed) else {
            throw UserFacingError(phrases("owner.ignore.usage", ["command": call.prefix + "ignore"]))
        }
        var minutes: Int?
        if words.count == 2 {
            guard let typed = Int(words[1]), (1...525_600).contains(typed) else {
                throw UserFacingError(phrases("owner.ignore.badMinutes"))
            }
            minutes = typed
        }
        guard let router = control.router else { throw UserFacingError(phrases("owner.ignore.noRouter")) }
        guard await router.ignore(mask, for: minutes.map { .seconds($0 * 60) }, addedBy: call.sender.nick) else {
            throw UserFacingError(phrases("owner.ignore.full", ["capacity": String(IgnoreList.capacity)]))
        }
        await control.saveIgnores()
        if let minutes {
            let duration = phrases("duration.minutes", ["count": minutes])
            await call.reply(phrases("owner.ignore.forTime", ["mask": mask, "duration": duration]))
        } else {
            await call.reply(phrases("owner.ignore.untilLifted", ["mask": mask, "command": call.prefix + "unignore"]))
        }
    }

    private func unignore(_ call: Invocation) async throws {
        let phrases = call.phrases
        guard let typed = call.words.first, call.words.count == 1, let mask = IgnoreList.normalizedMask(typed) else {
            throw UserFacingError(phrases("owner.unignore.usage", ["command": call.prefix + "unignore"]))
        }
        guard let router = control.router, await router.unignore(mask) else {
            throw UserFacingError(
                phrases("owner.unignore.notIgnored", ["mask": mask, "command": call.prefix + "ignores"]))
        }
        await control.saveIgnores()
        await call.reply(phrases("owner.unignore.done", ["mask": mask]))
    }

    private func listIgnores(_ call: Invocation) async throws {
        let phrases = call.phrases
        let masks = await control.router?.ignoredMasks() ?? []
        guard !masks.isEmpty else { return await call.reply(phrases("owner.ignores.none")) }
        let shown = masks.prefix(10).map { entry in
            let left =
                entry.remaining.map {
                    phrases("owner.ignores.minutesLeft", ["minutes": max(1, Int(($0.components.seconds + 59) / 60))])
                } ?? phrases("owner.ignores.untilLifted")
            return phrases("owner.ignores.entry", ["mask": entry.mask, "left": left, "by": entry.addedBy])
        }
        let list = shown.joined(separator: ", ")
        let listed =
            masks.count > 10 ? phrases("owner.ignores.andMore", ["masks": list, "count": masks.count - 10]) : list
        await call.reply(phrases("owner.ignores.list", ["count": masks.count, "masks": listed]))
    }
}
