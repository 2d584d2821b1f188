import IRCProtocol

/// Strict Transport Security (IRCv3 `sts`): the server's policy in `CAP LS` or `CAP NEW`.
extension ConnectionStateMachine {
    /// Acts on an `sts` capability in `message`, once per connection; true when the connection is
    /// being left for a TLS one (nothing more is done on it).
    mutating func stsAdvertised(in message: IRCMessage, into actions: inout [LineAction]) -> Bool {
        guard let link = phase.link, !link.stsSeen, message.parameters.count >= 3 else { return false }
        let subcommand = message.parameters[1].uppercased()
        guard subcommand == "LS" || subcommand == "NEW", let list = message.parameters.last else { return false }
        guard let token = list.split(separator: " ").first(where: { $0 == "sts" || $0.hasPrefix("sts=") }) else {
            return false
        }
        _ = phase.updateLink { $0.stsSeen = true }
        let value = token.hasPrefix("sts=") ? String(token.dropFirst(4)) : ""
        switch STSAdvertisement.parse(value, secure: link.secure) {
        case .ignored(let reason):
            log(.warning, "Ignoring \(reason) from \(configuration.host)", into: &actions)
            return false
        case .keep(let seconds):
            if seconds == 0 {
                log(.info, "\(configuration.host) removed its STS policy", into: &actions)
            } else {
                log(.info, "\(configuration.host) has an STS policy: TLS only, for \(seconds) s", into: &actions)
            }
            actions.append(.sts(.keepPolicy(seconds: seconds)))
            return false
        case .upgrade(let port):
            let reason = "STS: \(configuration.host) requires TLS; reconnecting over TLS to port \(port)"
            log(.info, reason, into: &actions)
            actions.append(.sts(.upgradeToTLS(port: port)))
            actions.append(.write(.quit("Reconnecting over TLS")))
            actions.append(.closeConnection(reason: reason))
            return true
        }
    }
}
