import BotKit
import OnTheMapService

/// The students of one network as what reaches a student everywhere sees them: the sessions kept
/// there and what its plugins keep.
public struct NetworkStudents: Sendable {
    /// The network's sessions (and their kept copies).
    public let sessionArchive: SessionArchive
    /// What the network's plugins keep about students, and who hears of a logout there.
    public let keepers: StudentKeepers

    public init(sessionArchive: SessionArchive, keepers: StudentKeepers) {
        self.sessionArchive = sessionArchive
        self.keepers = keepers
    }
}

/// Every network of the bot, for what must reach a student on all of them: `!logout` ending every
/// session of an account, `!forget` erasing a student, an unlinked services account. Seen from one
/// network: its own students and session book, and the other networks' students.
public struct EveryNetwork: Sendable {
    /// This network's students.
    public let here: NetworkStudents
    /// This network's session book.
    let sessions: SessionBook<StudentLogin>
    let directory: any StudentDirectory
    let accounts: (any AccountDirectory)?
    let stateStore: (any BotStateStore)?
    /// The students of the bot's other networks, as they are at each call.
    private let others: @Sendable () -> [NetworkStudents]

    /// `others`: the students of the bot's other networks (none for a bot on one network).
    public init(
        here: NetworkStudents, sessions: SessionBook<StudentLogin>, directory: any StudentDirectory,
        accounts: (any AccountDirectory)?, stateStore: (any BotStateStore)?,
        others: @escaping @Sendable () -> [NetworkStudents] = { [] }
    ) {
        self.here = here
        self.sessions = sessions
        self.directory = directory
        self.accounts = accounts
        self.stateStore = stateStore
        self.others = others
    }

    /// Each network's students, this network's first.
    public var all: [NetworkStudents] { [here] + others() }

    /// Ends every session of the account `accountKey`, wherever it was opened: its IRC logins on
    /// every network of the bot (their kept copies too), its sessions in the directory (the class
    /// map in any browser, the API's clients), its unused sign-in link and the private address of
    /// its own data feed (``DataFeedLinks``). What `!logout` does, so
    /// that a student who logs out leaves no door open behind them. Returns how many directory
    /// sessions ended; a directory that cannot be reached ends none (each expires on its own).
    @discardableResult
    public func endEverySession(ofAccount accountKey: String) async -> Int {
        for network in all {
            let ended = await network.sessionArchive.endSessions(ofAccount: accountKey)
            for owner in Set(ended.map(\.owner)) { await network.keepers.loggedOut(owner) }
        }
        var ended = 0
        if let accounts {
            ended = (try? await accounts.endSessions(accountKey: accountKey)) ?? 0
        }
        if let stateStore {
            try? await SignInLinks(store: stateStore).forget(accountKey: accountKey)
            try? await DataFeedLinks(store: stateStore).revoke(accountKey: accountKey)
        }
        return ended
    }

    /// Ends this network's sessions bound to the services account folded as `foldedAccount` whose
    /// login `matches` (an unlinked link): those the link made and those a `!login` made while the
    /// student was identified to it. Returns the ended ones.
    @discardableResult
    public func endSessions(boundTo foldedAccount: String, where matches: @Sendable (StudentLogin) -> Bool) async
        -> [StudentSession]
    {
        let ended = await sessions.unbindAll(boundTo: foldedAccount, where: matches)
        for bound in ended {
            await here.keepers.loggedOut(bound.owner)
            try? await directory.logOut(bound.session)
        }
        if !ended.isEmpty { await here.sessionArchive.save() }
        return ended
    }
}
