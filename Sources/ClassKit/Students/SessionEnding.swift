import BotKit
import OnTheMapService

extension ClassServices {
    /// Ends every session of the account `accountKey`, wherever it was opened: its IRC logins on
    /// every network of the bot (their kept copies too), its sessions in the directory (the class
    /// map in any browser, the API's clients) and its unused sign-in link. What `!logout` does, so
    /// that a student who logs out leaves no door open behind them. Returns how many directory
    /// sessions ended; a directory that cannot be reached ends none (each expires on its own).
    @discardableResult
    public func endEverySession(ofAccount accountKey: String) async -> Int {
        for network in everyNetwork {
            let ended = await network.sessionArchive.endSessions(ofAccount: accountKey)
            for owner in Set(ended.map(\.owner)) { await network.loggedOut(owner) }
        }
        var ended = 0
        if let accounts {
            ended = (try? await accounts.endSessions(accountKey: accountKey)) ?? 0
        }
        if let stateStore { try? await SignInLinks(store: stateStore).forget(accountKey: accountKey) }
        return ended
    }
}
