import IRCProtocol

/// How texts to send become IRC lines that fit the server's limits.
extension ConnectionStateMachine {
    /// One line of an outgoing text, ready for the send queue.
    struct OutgoingLine: Sendable, Equatable {
        var message: IRCMessage
        /// On whose behalf it goes (folded under the server's casemapping), see ``SendQueue``.
        var fairnessKey: String
        /// Where its reader connects from, see ``OutgoingText/fairnessGroup``.
        var fairnessGroup: String?
        var answer: SendQueue.Answer
    }

    /// The lines that say `texts`: each split on line breaks and at word boundaries so every line fits
    /// after the server's prefix. NUL, CR and LF never reach the wire: the serializer, which makes
    /// every line the client writes (``IRCMessage/serialized()``), writes them as spaces. `shrinking` (the send queue is backed up)
    /// cuts each asker's channel answer to one line (``OutgoingText/shrunk(_:isChannel:)``).
    func lines(for texts: [OutgoingText], shrinking: Bool) -> [OutgoingLine] {
        let support = identityTracker.serverSupport
        let isChannel = { (target: String) in support.isChannel(target) }
        let texts = shrinking ? OutgoingText.shrunk(texts, isChannel: isChannel) : texts
        let textsPerKey = OutgoingText.textsPerKey(texts, caseMapping: support.caseMapping)
        let userHost = ownUserHost
        var lines: [OutgoingLine] = []
        for outgoing in texts {
            let key = support.caseMapping.lowercased(outgoing.fairnessKey ?? outgoing.target)
            let command = outgoing.kind == .notice ? "NOTICE" : "PRIVMSG"
            let target = outgoing.target.asMiddleParameter()
            let messages = split(
                outgoing.text, command: command, target: target, maxLines: outgoing.maxLines, userHost: userHost)
            let budget = LineSplitter(serverSupport: support).textBudget(
                command: command, target: target, nick: currentNick, userHost: userHost)
            let tags =
                isChannel(outgoing.target)
                ? Self.replyTags(to: outgoing.inReplyTo, support: support, capabilities: enabledCapabilities)
                : Self.channelContextTags(
                    outgoing.channelContext, support: support, capabilities: enabledCapabilities)
            for var message in messages {
                message.tags = tags
                let answer = SendQueue.Answer(
                    command: command, target: message.parameters[0], isChannel: isChannel(outgoing.target),
                    text: message.parameters[message.parameters.count - 1], asker: outgoing.fairnessKey,
                    isWholeAnswer: messages.count == 1 && textsPerKey[key] == 1, textBudget: budget,
                    caseMapping: support.caseMapping, tags: tags)
                lines.append(
                    OutgoingLine(
                        message: message, fairnessKey: key, fairnessGroup: outgoing.fairnessGroup, answer: answer))
            }
        }
        return lines
    }

    /// The longest message id a reply tag carries (a server's ids are a few dozen bytes; client
    /// tags may take 4094 bytes in all).
    static let maximumReplyIDBytes = 512

    /// The client-only tags that thread a channel answer under the message `id` it answers: the
    /// ratified `+reply` wherever `CLIENTTAGDENY` lets it through, and the draft's `+draft/reply`
    /// only where the server still names the draft as passed (`-draft/reply`) and not the ratified
    /// tag. None without an id or without the `message-tags` capability. The serializer escapes the
    /// value.
    static func replyTags(
        to id: String?, support: ServerSupport, capabilities: Set<String>
    ) -> [String: String] {
        guard let id, !id.isEmpty, id.utf8.count <= maximumReplyIDBytes, capabilities.contains("message-tags")
        else { return [:] }
        var tags: [String: String] = [:]
        if support.allowsClientTag("reply") { tags["+reply"] = id }
        if support.exemptsClientTag("draft/reply"), !support.exemptsClientTag("reply") { tags["+draft/reply"] = id }
        return tags
    }

    /// The client-only tag that shows a private answer in the window of the channel whose command it
    /// answers (IRCv3 `+channel-context`): none without a channel, without the `message-tags`
    /// capability, where `CLIENTTAGDENY` denies it, or for a name that is not one of the server's
    /// channels.
    static func channelContextTags(
        _ channel: String?, support: ServerSupport, capabilities: Set<String>
    ) -> [String: String] {
        guard let channel, support.isChannel(channel), capabilities.contains("message-tags"),
            support.allowsClientTag("channel-context")
        else { return [:] }
        return ["+channel-context": channel]
    }

    /// The client's own user@host as the server shows it, when known (it counts in the line length).
    private var ownUserHost: String? {
        guard let me = identityTracker.identity(ofNick: currentNick), let user = me.user, let host = me.host else {
            return nil
        }
        return "\(user)@\(host)"
    }

    private func split(
        _ text: String, command: String, target: String, maxLines: Int, userHost: String?
    ) -> [IRCMessage] {
        let splitter = LineSplitter(serverSupport: identityTracker.serverSupport, maxLines: maxLines)
        return splitter.messages(text, command: command, target: target, nick: currentNick, userHost: userHost)
    }
}

extension String {
    /// The text as one middle parameter: a space, NUL, CR or LF becomes `_`, so that a target
    /// stays one word.
    fileprivate func asMiddleParameter() -> String {
        String(
            decoding: utf8.map { $0 == 0x20 || $0 == 0 || $0 == 0x0A || $0 == 0x0D ? 0x5F : $0 }, as: UTF8.self)
    }
}
