import ArgumentParser
import Foundation
import Logging

/// `onthemap-bot sts …`: the Strict Transport Security policies IRC servers gave the bot (kept in
/// the directory's state), for an operator whose server changed its mind.
struct STSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sts", abstract: "Lists or forgets the STS policies (TLS only) IRC servers gave the bot.",
        subcommands: [List.self, Forget.self])

    static func policies(_ options: ConfigOptions) async throws -> (StoredSTSPolicies, ServiceStack) {
        let stack = try await PinsCommand.open(options)
        guard let state = stack.state else {
            await stack.shutdown()
            throw ValidationError(
                "the \(stack.directory.backendName) backend keeps no bot state: STS policies last as long as the process"
            )
        }
        let logger = Logger(label: "onthemap.sts", factory: { _ in SwiftLogNoOpLogHandler() })
        return (StoredSTSPolicies(store: state, logger: logger), stack)
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lists the stored policies: host, TLS port, expiry.")
        @OptionGroup var options: ConfigOptions

        func run() async throws {
            let (store, stack) = try await STSCommand.policies(options)
            let all = await store.policies()
            await stack.shutdown()
            for (host, policy) in all.sorted(by: { $0.key < $1.key }) {
                print("\(host)\t\(policy.port)\t\(ISO8601DateFormatter().string(from: policy.expires))")
            }
            print("\(all.count) polic\(all.count == 1 ? "y" : "ies").")
        }
    }

    struct Forget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Forgets the policy of one host: the bot connects to it as the config says from its next start "
                + "(a running bot keeps what it holds in memory until it restarts).")
        @OptionGroup var options: ConfigOptions
        @Argument(help: "The IRC server's host name, as in irc.server.") var host: String

        func run() async throws {
            let (store, stack) = try await STSCommand.policies(options)
            let key = host.lowercased()
            guard await store.stsPolicy(forHost: key) != nil else {
                await stack.shutdown()
                throw ValidationError("no STS policy is stored for \(host)")
            }
            await store.setSTSPolicy(nil, forHost: key)
            await stack.shutdown()
            print("Forgot the STS policy of \(key).")
        }
    }
}
