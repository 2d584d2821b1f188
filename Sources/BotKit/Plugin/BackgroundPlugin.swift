import IRCProtocol
import Logging

/// A plugin that also works on its own, outside any command: e.g. the announcer that polls the
/// backend for new pins. The host runs ``run(context:)`` once, in a task it cancels at shutdown.
public protocol BackgroundPlugin: Plugin {
    func run(context: PluginContext) async
}

/// What a background plugin may do: speak in channels, and log.
public struct PluginContext: Sendable {
    public let logger: Logger
    let transport: any BotTransport

    public init(transport: any BotTransport, logger: Logger) {
        self.transport = transport
        self.logger = logger
    }

    /// Says `text` in `channel` (not addressed to anyone).
    public func say(_ text: String, in channel: String) async {
        await transport.send(OutgoingText(.privmsg, to: channel, text: text))
    }

    /// Waits until every line said so far has left for the network (see
    /// ``BotTransport/waitUntilSent()``).
    public func waitUntilSent() async -> Bool {
        await transport.waitUntilSent()
    }

    /// Whether anyone may join `channel` (see ``BotTransport/isOpenChannel(_:)``).
    public func isOpenChannel(_ channel: String) async -> Bool {
        await transport.isOpenChannel(channel)
    }

    /// Sends `text` privately to `nick`.
    public func tell(_ nick: String, _ text: String) async {
        await transport.send(OutgoingText(.privmsg, to: nick, text: text))
    }
}
