/// What each user, and each place users connect from, may send the router: the flood rule (too
/// many commands → ignored for a while), the budget of each host, and the commands' declared rate
/// limits, with what they remember.
public struct UserLimits: Sendable {
    /// Too many commands from one user → ignored for a while.
    public var floodGuard: CommandFloodGuard
    /// Commands from one host (or services account), however many connections and user names it
    /// uses.
    public var hostBudget: HostCommandBudget
    /// When each (command, user or venue) last ran, for the commands' ``RateLimit`` declarations.
    public var cooldowns: CommandCooldowns

    public init(
        floodGuard: CommandFloodGuard = CommandFloodGuard(), hostBudget: HostCommandBudget = HostCommandBudget(),
        cooldowns: CommandCooldowns = CommandCooldowns()
    ) {
        self.floodGuard = floodGuard
        self.hostBudget = hostBudget
        self.cooldowns = cooldowns
    }
}
