import IRCProtocol

/// What the machine does with each line from the server.
extension ConnectionStateMachine {
    /// One inbound line being handled.
    struct Inbound {
        var message: IRCMessage
        /// The label of the client's query it answers, if any.
        var label: String?
        /// The client's nick before the line (a NICK line changes it).
        var ownNickBefore: String
        var now: ContinuousClock.Instant
    }

    /// Acts on one inbound line. `registered` is the registered phase's data (nil before 001),
    /// changed here and put back by the caller.
    mutating func dispatch(
        _ inbound: Inbound, registered: inout ConnectionPhase.Registered?, into actions: inout [LineAction]
    ) {
        let message = inbound.message
        let parameters = message.parameters
        switch message.command {
        case "PRIVMSG", "NOTICE":
            deliverUserMessage(message, into: &actions)
        case "PING":
            actions.append(.write(IRCMessage(command: "PONG", parameters: parameters.isEmpty ? [""] : parameters)))
        case "CAP":
            // An STS upgrade leaves this connection before anything else is negotiated on it.
            if stsAdvertised(in: message, into: &actions) { return }
            registration.handle(message, into: &actions)
        case "AUTHENTICATE", "421", "900", "902", "903", "904", "905", "906", "907", "908":
            registration.handle(message, into: &actions)
        case "001":
            welcome(as: parameters.first ?? currentNick, at: inbound.now, registered: &registered, into: &actions)
        case "005":
            var support = identityTracker.serverSupport
            let pacedBefore = support.pacesClients
            support.apply(message)
            if support.pacesClients != pacedBefore {
                log(
                    .info,
                    support.pacesClients
                        ? "\(configuration.host) promises SAFERATE (it slows a fast client rather than disconnect it): the flood gate steps aside and the server paces the bot's lines"
                        : "\(configuration.host) no longer promises SAFERATE: the flood gate paces the bot's lines again",
                    into: &actions)
            }
            identityTracker.updateServerSupport(support)
            channels.setCaseMapping(support.caseMapping)
            channelModes.setCaseMapping(support.caseMapping)
            let changes = support.changes(since: announcedSupport)
            if !changes.isEmpty {
                announcedSupport = support
                actions.append(.emit(.serverSupportChanged(changes)))
            }
            guard registered != nil else { return }
            registered!.setServerSupport(support)
            // A bot mode named only after the channels were joined is asked for late (a server that
            // honours it only outside channels may drop it: `!status` shows whether it was kept).
            if registered!.joinDeadline == nil {
                for line in botModeLines(in: &registered!) { actions.append(.enqueue(line)) }
            }
        case "376", "422":
            // RPL_ENDOFMOTD or ERR_NOMOTD: the end of the welcome burst.
            if registered != nil { welcomeBurstEnded(in: &registered!, into: &actions) }
        case "MODE", "221":
            guard registered != nil else { return }
            // A channel's MODE names the channel; a user MODE names the client's nick.
            if message.command == "MODE", parameters.count >= 2, identityTracker.serverSupport.isChannel(parameters[0])
            {
                channelModesChanged(parameters[0], modes: parameters[1], listed: false, into: &actions)
            } else {
                ownModesChanged(message, in: &registered!)
            }
        case "324":
            // RPL_CHANNELMODEIS: `<own nick> <channel> <modes> [parameters…]`, the answer to the MODE
            // query sent after the client's JOIN.
            if registered != nil, parameters.count >= 3 {
                channelModesChanged(parameters[1], modes: parameters[2], listed: true, into: &actions)
            }
        case "FAIL", "WARN", "NOTE":
            standardReply(message, into: &actions)
        case "730", "731", "734", "600", "601", "604", "605", "512":
            if registered != nil { presenceReported(message, at: inbound.now, in: &registered!, into: &actions) }
        case "311", "317", "330", "318", "401":
            if registered != nil { whoisReplied(message, label: inbound.label, in: &registered!, into: &actions) }
        case "303":
            if registered != nil { isonReplied(message, at: inbound.now, in: &registered!, into: &actions) }
        case "432", "433", "436", "437":
            if registered != nil {
                let refused = parameters.count >= 2 ? parameters[1] : currentNick
                log(.debug, "Nick \(refused) is not available (\(message.command))", into: &actions)
            } else {
                currentNick = registration.nickRefused(message, current: currentNick, into: &actions)
            }
        case "NICK":
            nickChanged(inbound, registered: &registered, into: &actions)
        case "QUIT":
            if registered != nil, let source = message.sourceNick, namesEqual(source, configuration.nick) {
                regainNick(at: inbound.now, in: &registered!, into: &actions)
            }
        case "INVITE":
            if registered != nil { invited(message, into: &actions) }
        case "JOIN", "PART", "KICK", "471", "473", "474", "475", "477":
            membershipChanged(message, ownNickBefore: inbound.ownNickBefore, at: inbound.now, into: &actions)
        case "ERROR":
            let reason = "server error: \(parameters.last ?? "")"
            // After our QUIT the server's ERROR is its goodbye, not a fault.
            log(isStopping ? .debug : .warning, reason, into: &actions)
            // The server closes after ERROR; close from our side too in case it does not.
            actions.append(.closeConnection(reason: reason))
        default:
            break
        }
    }

    /// The server's 001: registering becomes registered (unless registration says the client must
    /// not go on). A second 001 on one connection changes nothing.
    private mutating func welcome(
        as nick: String, at now: ContinuousClock.Instant, registered: inout ConnectionPhase.Registered?,
        into actions: inout [LineAction]
    ) {
        guard case .registering(let link, let registering) = phase else {
            log(.debug, "Ignoring a second welcome (001) on one connection", into: &actions)
            return
        }
        guard registration.welcome(into: &actions) else { return }
        var welcomed = ConnectionPhase.Registered(at: now, support: identityTracker.serverSupport)
        currentNick = nick
        log(.info, "Registered on \(configuration.host) as \(nick)", into: &actions)
        actions.append(.emit(.registered(nick: nick)))
        // Lines queued before (or during) an outage go out after the reconnect only if the outage was
        // short; lines already written to the lost socket are never sent again.
        if let outageStart = registering.outageStart {
            let outage = outageStart.duration(to: now)
            if outage > configuration.reconnect.keepQueuedLinesFor {
                actions.append(.discardQueuedLines(outage: outage))
            }
        }
        if !namesEqual(nick, configuration.nick) {
            welcomed.nextNickRegain = now + configuration.retry.nickRegainInterval
        }
        // The bot mode and the JOINs wait for the end of the welcome burst: the mode's letter comes in
        // the 005 lines after 001, and a server may honour it only while the client is in no channel.
        welcomed.joinDeadline = now + configuration.welcomeBurstTimeout
        phase = .registered(link, welcomed)
        registered = welcomed
    }

    /// The welcome burst ended (376 or 422, or ``IRCClientConfiguration/welcomeBurstTimeout`` passed):
    /// the bot mode is set and read back, then every wanted channel is joined, then the queue starts.
    /// These are written ahead of anything queued, so the server has the mode before the first JOIN and
    /// replies queued for a channel while the connection was down reach it after the rejoin (the server
    /// handles a client's lines in order).
    mutating func welcomeBurstEnded<Action: UpkeepAction>(
        in registered: inout ConnectionPhase.Registered, into actions: inout [Action]
    ) {
        guard registered.joinDeadline != nil else { return }
        registered.joinDeadline = nil
        for line in botModeLines(in: &registered) { actions.append(.write(line)) }
        for join in channels.joinsAfterRegistration { actions.append(.write(.join(join.name, key: join.key))) }
        actions.append(.startSending)
        publishMetadata(into: &actions)
    }

    /// Where the server offers `draft/metadata-2` (with `batch`): the configured keys, within its
    /// limits. A refusal (`FAIL METADATA …`) is logged as information and changes nothing else.
    private func publishMetadata<Action: UpkeepAction>(into actions: inout [Action]) {
        let enabled = enabledCapabilities
        guard !configuration.metadata.isEmpty, enabled.contains("draft/metadata-2"), enabled.contains("batch") else {
            return
        }
        let limits = MetadataPublication(capabilityValue: registration.offeredValue(of: "draft/metadata-2") ?? "")
        let publication = limits.lines(for: configuration.metadata)
        if !publication.skipped.isEmpty {
            log(
                .info,
                "Not publishing metadata \(publication.skipped.joined(separator: ", ")) on \(configuration.host): over the server's limits or not a valid key or value",
                into: &actions)
        }
        for line in publication.lines { actions.append(.enqueue(line)) }
    }

    /// A standard reply (`FAIL`/`WARN`/`NOTE <command> <code> [context…] :text`): logged with its
    /// command, code, context and text (a FAIL and a WARN as warnings, a NOTE as information).
    private func standardReply(_ message: IRCMessage, into actions: inout [LineAction]) {
        let parameters = message.parameters
        guard parameters.count >= 3 else { return }
        let context = parameters.dropFirst(2).dropLast().joined(separator: " ")
        // The text may quote what was sent: no credentials or secret links reach the log.
        let said = parameters[parameters.count - 1]
        let text = LogRedaction.isSensitive(said) ? "<redacted>" : LogRedaction.redactingSecrets(said) ?? said
        let line =
            "\(configuration.host) says \(message.command) \(parameters[0]) \(parameters[1])"
            + (context.isEmpty ? "" : " (\(LogRedaction.redactingSecrets(context) ?? context))") + ": \(text)"
        // Metadata is published where the server lets it: a refusal is no fault.
        let isNotice = message.command == "NOTE" || parameters[0] == "METADATA"
        log(isNotice ? .info : .warning, TextSanitizer.singleLine(line), into: &actions)
    }

    /// The lines that set the bot mode the server names (ISUPPORT `BOT=`) and read it back (the
    /// server's 221 says whether it kept it: a refusal may be silent), once per connection; none
    /// when asked for already or when the server names no bot mode.
    private func botModeLines(in registered: inout ConnectionPhase.Registered) -> [IRCMessage] {
        guard registered.botMode == nil, let mode = identityTracker.serverSupport.botMode else { return [] }
        registered.botMode = BotMode(mode: mode, isSet: false)
        return [
            IRCMessage(command: "MODE", parameters: [currentNick, "+\(mode)"]),
            IRCMessage(command: "MODE", parameters: [currentNick]),
        ]
    }

    /// The client's own user modes changed (`MODE <own nick> +B`) or were listed (221): follows
    /// the bot mode.
    private func ownModesChanged(_ message: IRCMessage, in registered: inout ConnectionPhase.Registered) {
        guard var state = registered.botMode, message.parameters.count >= 2,
            namesEqual(message.parameters[0], currentNick)
        else { return }
        state.answered = true
        if message.command == "221" {
            state.isSet = message.parameters[1].contains(state.mode)
        } else {
            var adding = true
            for character in message.parameters[1] {
                switch character {
                case "+": adding = true
                case "-": adding = false
                case state.mode: state.isSet = adding
                default: break
                }
            }
        }
        registered.botMode = state
    }

    /// A channel's modes were listed (`324`, the whole state) or changed (`MODE #channel …`):
    /// when that changes whether strangers may join it, the change is logged and emitted.
    private mutating func channelModesChanged(
        _ channel: String, modes: String, listed: Bool, into actions: inout [LineAction]
    ) {
        let changed =
            listed ? channelModes.listed(channel, modes: modes) : channelModes.changed(channel, modes: modes)
        guard let access = changed else { return }
        let words =
            access.isOpen
            ? "open to anyone (no key, not invite-only)"
            : [access.isKeyed ? "keyed" : nil, access.isInviteOnly ? "invite-only" : nil].compactMap { $0 }.joined(
                separator: " and ")
        log(.debug, "\(channel) is \(words)", into: &actions)
        actions.append(.emit(.channelAccess(channel: channel, access: access)))
    }

    private mutating func nickChanged(
        _ inbound: Inbound, registered: inout ConnectionPhase.Registered?, into actions: inout [LineAction]
    ) {
        guard let source = inbound.message.sourceNick, let newNick = inbound.message.parameters.first else { return }
        if namesEqual(source, inbound.ownNickBefore) {
            currentNick = newNick
            log(.info, "Nick changed from \(source) to \(newNick)", into: &actions)
            actions.append(.emit(.nickChanged(from: source, to: newNick)))
            if namesEqual(newNick, configuration.nick) { registered?.nextNickRegain = nil }
        } else if registered != nil, namesEqual(source, configuration.nick) {
            regainNick(at: inbound.now, in: &registered!, into: &actions)
        }
    }

    /// An INVITE for the client to a channel it wants and that refused it (one that admits it only
    /// when invited): joined at once, once per refusal, so repeated invitations send no JOIN each.
    /// Invitations anywhere else are not followed: nobody can send the bot where it was not
    /// configured to be (they are logged at debug level only, so that inviting cannot fill the log).
    private mutating func invited(_ message: IRCMessage, into actions: inout [LineAction]) {
        let parameters = message.parameters
        guard parameters.count >= 2, namesEqual(parameters[0], currentNick) else { return }
        let inviter = message.sourceNick ?? "the server"
        guard let join = channels.refusedJoin(parameters[1]), !identityTracker.isInChannel(parameters[1]) else {
            log(.debug, "Invited to \(parameters[1]) by \(inviter); not a channel waiting to be joined", into: &actions)
            return
        }
        log(.info, "Invited to \(join.name) by \(inviter); joining", into: &actions)
        // The retry is spent on this JOIN; a new refusal schedules the next one.
        channels.joined(join.name)
        actions.append(.enqueue(.join(join.name, key: join.key)))
    }

    /// The client's own JOIN, PART or KICK, or a refused JOIN.
    private mutating func membershipChanged(
        _ message: IRCMessage, ownNickBefore: String, at now: ContinuousClock.Instant,
        into actions: inout [LineAction]
    ) {
        let parameters = message.parameters
        switch message.command {
        case "JOIN":
            guard let source = message.sourceNick, let channel = parameters.first, namesEqual(source, ownNickBefore)
            else { return }
            channels.joined(channel)
            log(.info, "Joined \(channel)", into: &actions)
            actions.append(.emit(.joined(channel: channel)))
            actions.append(.enqueue(identityTracker.whoRequest(for: channel)))
            // Whether strangers may join it (its key and invite-only modes): the 324 answers.
            actions.append(.enqueue(IRCMessage(command: "MODE", parameters: [channel])))
        case "PART":
            guard let source = message.sourceNick, let channel = parameters.first, namesEqual(source, ownNickBefore)
            else { return }
            channelModes.left(channel)
            actions.append(.emit(.parted(channel: channel)))
        case "KICK":
            guard parameters.count >= 2, namesEqual(parameters[1], ownNickBefore) else { return }
            let channel = parameters[0]
            let kicker = message.sourceNick ?? ""
            let reason = parameters.count >= 3 ? parameters[2] : ""
            channelModes.left(channel)
            log(.warning, "Kicked from \(channel) by \(kicker): \(reason)", into: &actions)
            actions.append(.emit(.kicked(channel: channel, by: kicker, reason: reason)))
            channels.retry(channel, at: now + configuration.retry.rejoinAfterKick)
        default:
            // 471, 473, 474, 475, 477: a JOIN refused.
            guard parameters.count >= 2 else { return }
            let channel = parameters[1]
            let reason = parameters.last ?? ""
            log(.warning, "Cannot join \(channel) (\(message.command)): \(reason); retrying later", into: &actions)
            actions.append(.emit(.joinRefused(channel: channel, code: message.command, reason: reason)))
            channels.retry(channel, at: now + configuration.retry.rejoinAfterRefusal)
        }
    }

    private func deliverUserMessage(_ message: IRCMessage, into actions: inout [LineAction]) {
        guard message.parameters.count >= 2, let source = message.sourceIdentity, !source.nick.isEmpty,
            source.user != nil || source.host != nil || !source.looksLikeServer
        else { return }
        let target = message.parameters[0]
        let text = message.parameters[message.parameters.count - 1]
        let tracked = identityTracker.identity(ofNick: source.nick)
        let sender = UserIdentity(
            nick: source.nick,
            user: source.user ?? tracked?.user,
            host: source.host ?? tracked?.host,
            account: message.tags["account"] ?? tracked?.account
        )
        let support = identityTracker.serverSupport
        let isPrivate = !support.isChannel(target.drop { support.prefixSymbols.contains($0) })
        let userMessage = IRCUserMessage(
            sender: sender, target: target, text: text, isPrivate: isPrivate, message: message)
        log(
            .debug,
            "\(message.command) from \(sender) to \(target): "
                + (LogRedaction.isSensitive(text) ? "<redacted>" : (LogRedaction.redactingSecrets(text) ?? text)),
            into: &actions)
        actions.append(.emit(message.command == "PRIVMSG" ? .privmsg(userMessage) : .notice(userMessage)))
    }
}
