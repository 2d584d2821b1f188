/// What each user may send the router: the flood rule (too many commands → ignored for a while) and
/// the commands' declared rate limits, with what they remember of each user.
public struct UserLimits: Sendable {
    /// Too many commands from one user → ignored for a while.
    public var floodGuard: CommandFloodGuard
    /// When each (command, user or venue) last ran, for the commands' ``RateLimit`` declarations.
    public var cooldowns: CommandCooldowns

    public init(floodGuard: CommandFloodGuard = CommandFloodGuard(), cooldowns: CommandCooldowns = CommandCooldowns()) {
        self.floodGuard = floodGuard
        self.cooldowns = cooldowns
    }
}
