import BotKit
import OnTheMapService

extension ClassServices {
    /// Every network of this bot, seen from this one (``EveryNetwork``).
    public var everyNetworkReach: EveryNetwork {
        EveryNetwork(
            here: NetworkStudents(sessionArchive: sessionArchive, keepers: keepers), sessions: sessions,
            directory: directory, accounts: accounts, stateStore: stateStore,
            others: { [weak self] in
                guard let self else { return [] }
                return self.everyNetwork.dropFirst().map {
                    NetworkStudents(sessionArchive: $0.sessionArchive, keepers: $0.keepers)
                }
            })
    }

    /// Ends every session of the account `accountKey`, wherever it was opened
    /// (``EveryNetwork/endEverySession(ofAccount:)``).
    @discardableResult
    public func endEverySession(ofAccount accountKey: String) async -> Int {
        await everyNetworkReach.endEverySession(ofAccount: accountKey)
    }
}
