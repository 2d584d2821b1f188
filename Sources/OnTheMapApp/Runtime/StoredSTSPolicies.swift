import Foundation
import IRCClient
import Logging
import OnTheMapService

/// The IRC client's STS policies kept in the directory's bot state (key ``stateKey``): a JSON object
/// from host name to policy. A store that cannot be read or written is logged and treated as empty
/// (the policy then lasts as long as the process).
struct StoredSTSPolicies: STSPolicyStore {
    static let stateKey = "irc.sts"
    let store: any BotStateStore
    let logger: Logger

    func stsPolicy(forHost host: String) async -> STSPolicy? {
        await policies()[host]
    }

    func setSTSPolicy(_ policy: STSPolicy?, forHost host: String) async {
        var all = await policies()
        all[host] = policy
        do {
            let text = all.isEmpty ? nil : String(decoding: try JSONEncoder().encode(all), as: UTF8.self)
            try await store.setState(Self.stateKey, text)
        } catch {
            logger.warning("the STS policy could not be saved", metadata: ["host": "\(host)", "error": "\(error)"])
        }
    }

    /// Every stored policy by host (what `onthemap-bot sts list` shows).
    func policies() async -> [String: STSPolicy] {
        do {
            guard let text = try await store.state(Self.stateKey) else { return [:] }
            return try JSONDecoder().decode([String: STSPolicy].self, from: Data(text.utf8))
        } catch {
            logger.warning("the stored STS policies could not be read", metadata: ["error": "\(error)"])
            return [:]
        }
    }
}
