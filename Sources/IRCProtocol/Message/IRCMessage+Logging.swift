extension IRCMessage {
    /// Commands whose parameters are credentials.
    static let secretCommands: Set<String> = ["PASS", "AUTHENTICATE", "OPER"]
    /// Services commands whose arguments contain a password.
    static let secretServiceVerbs: Set<String> = ["IDENTIFY", "REGISTER", "GHOST", "RECOVER", "RELEASE", "SET"]

    /// The three-digit numeric as an integer (`001` → 1), or `nil` for a named command.
    public var numeric: Int? {
        guard command.utf8.count == 3, command.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        return Int(command)
    }

    /// The serialized line with credentials replaced by `<redacted>`, for logs: every parameter
    /// of `PASS`, `AUTHENTICATE` and `OPER`, and the arguments of a PRIVMSG/NOTICE to a `…Serv`
    /// service whose text starts with IDENTIFY, REGISTER, GHOST, RECOVER, RELEASE or SET.
    public var redactedForLogging: String {
        let upper = command.uppercased()
        var copy = self
        if Self.secretCommands.contains(upper) {
            copy.parameters = parameters.map { _ in "<redacted>" }
        } else if upper == "PRIVMSG" || upper == "NOTICE", parameters.count >= 2,
            parameters[0].uppercased().hasSuffix("SERV")
        {
            let verb = parameters[parameters.count - 1].split(separator: " ", maxSplits: 1).first
            if let verb, Self.secretServiceVerbs.contains(verb.uppercased()) {
                copy.parameters[parameters.count - 1] = verb.uppercased() + " <redacted>"
            }
        }
        return copy.serialized()
    }
}
