import BotKit
import IRCClient
import IRCProtocol
import Logging
import ServiceLifecycle

/// The running bot: the IRC connection feeding the command router, stopped cleanly (QUIT, drain)
/// on SIGINT/SIGTERM through swift-service-lifecycle.
public final class BotService: Service {
    public let client: IRCClient
    public let router: CommandRouter
    private let logger: Logger
    private let quitMessage: String

    public init(client: IRCClient, router: CommandRouter, quitMessage: String, logger: Logger) {
        self.client = client
        self.router = router
        self.quitMessage = quitMessage
        self.logger = logger
    }

    /// Why the bot stopped on its own (a fatal error), or nil after a clean shutdown.
    public enum Outcome: Sendable, Equatable {
        case shutDown
        case fatal(String)
    }

    public func run() async throws {
        let outcome = await runUntilStopped()
        if case .fatal(let reason) = outcome { throw BotStopped(reason: reason) }
    }

    /// Runs until the connection stops; a graceful-shutdown signal sends QUIT first.
    public func runUntilStopped() async -> Outcome {
        let client = self.client
        let quitMessage = self.quitMessage
        return await withGracefulShutdownHandler {
            await withTaskGroup(of: Outcome?.self) { group in
                group.addTask {
                    await client.run()
                    return nil
                }
                group.addTask { await self.pumpEvents() }
                var outcome = Outcome.shutDown
                for await result in group {
                    if let result { outcome = result }
                }
                return outcome
            }
        } onGracefulShutdown: {
            Task { await client.shutdown(quitMessage: quitMessage) }
        }
    }

    /// Stops the bot: QUIT, drain a little, close.
    public func shutdown() async {
        await client.shutdown(quitMessage: quitMessage)
    }

    private func pumpEvents() async -> Outcome {
        for await event in client.events {
            switch event {
            case .privmsg(let message):
                let origin: Origin = message.isPrivate ? .privateMessage : .channel(message.target)
                await router.handle(IncomingLine(sender: Sender(message.sender), origin: origin, text: message.text))
            case .message(let message):
                await track(message)
            case .registered(let nick):
                logger.info("registered", metadata: ["nick": "\(nick)"])
            case .joined(let channel):
                logger.info("joined", metadata: ["channel": "\(channel)"])
            case .saslFailed(let reason):
                logger.error("SASL login failed", metadata: ["reason": "\(reason)"])
            case .connectionFailed(let reason), .disconnected(let reason):
                logger.warning("connection lost", metadata: ["reason": "\(reason)"])
            case .stopped(let reason):
                await router.waitUntilIdle()
                return reason.map(Outcome.fatal) ?? .shutDown
            default:
                break
            }
        }
        return .shutDown
    }

    /// Keeps sessions in step with the network: nick changes move them, a QUIT ends them.
    private func track(_ message: IRCMessage) async {
        switch message.command {
        case "005":
            await router.setCaseMapping(await client.serverSupport.caseMapping)
        case "NICK":
            if let old = message.sourceIdentity?.nick, let new = message.parameters.first {
                await router.sessions.nickChanged(from: old, to: new)
            }
        case "QUIT":
            if let nick = message.sourceIdentity?.nick {
                await router.sessions.userQuit(nick: nick)
            }
        default:
            break
        }
    }
}

/// The bot stopped because of something it cannot fix by retrying (e.g. a required SASL login failed).
public struct BotStopped: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}
