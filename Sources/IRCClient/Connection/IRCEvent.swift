import IRCProtocol

/// Something that happened on the IRC connection, delivered through ``IRCClient/events``.
public enum IRCEvent: Sendable, Equatable {
    /// A connection attempt starts (`attempt` counts from 1 since ``IRCClient/run()``).
    case connecting(host: String, port: Int, attempt: Int)
    /// The TCP (and TLS, if enabled) connection is up; registration starts.
    case connected(host: String, port: Int)
    /// The server accepted the registration (001) under `nick`.
    case registered(nick: String)
    /// Every parsed inbound message, before the more specific events it may cause.
    case message(IRCMessage)
    /// A change in who uses which nick (after the ``message(_:)`` that caused it).
    case identity(IdentityEvent)
    /// A PRIVMSG from a user (to a channel or to the client).
    case privmsg(IRCUserMessage)
    /// A NOTICE from a user.
    case notice(IRCUserMessage)
    /// The client joined `channel`.
    case joined(channel: String)
    /// The client left `channel`.
    case parted(channel: String)
    /// The client was kicked from `channel`; it rejoins after ``IRCClientConfiguration/Retry/rejoinAfterKick``.
    case kicked(channel: String, by: String, reason: String)
    /// A JOIN was refused (471/473/474/475/477); it is retried later.
    case joinRefused(channel: String, code: String, reason: String)
    /// The server said whether `channel`, which the client is in, keeps strangers out (its key and
    /// invite-only modes): once after the client's JOIN, then at each change of either.
    case channelAccess(channel: String, access: ChannelAccess)
    /// The client's nick changed.
    case nickChanged(from: String, to: String)
    /// The server's ISUPPORT (its `005` lines) changed values that matter above the client — its
    /// casemapping, channel types, prefixes, length limits, network name, bot mode or pacing — from
    /// what the last such event said (at first, from the defaults); each change carries its new
    /// value. A reconnect to a server that says the same again causes none.
    case serverSupportChanged([ServerSupport.Change])
    /// SASL succeeded: logged in to `account`.
    case loggedIn(account: String)
    /// SASL failed or was unavailable; reported once, never retried in a loop.
    case saslFailed(reason: String)
    /// A registered connection was lost.
    case disconnected(reason: String)
    /// A connection attempt failed before registration completed (refused, TLS failure, timeout…).
    case connectionFailed(reason: String)
    /// The next attempt starts after `delay`.
    case reconnecting(after: Duration)
    /// ``IRCClient/run()`` returned: after ``IRCClient/shutdown(quitMessage:)`` (`reason` nil) or a fatal
    /// error such as a failed required SASL login or unusable TLS settings.
    case stopped(reason: String?)
}
