import IRCClient

extension IRCClientConfiguration {
    /// The connection settings of a bot config's `irc:` section.
    init(_ irc: BotConfiguration.IRCSection) {
        let tls = TLS(
            enabled: irc.tls,
            caFile: irc.tlsCAFile.nonEmpty,
            trustSystemRoots: true,
            pinnedFingerprint: irc.tlsFingerprint.nonEmpty,
            clientCertificateFile: irc.tlsClientCert.nonEmpty,
            clientKeyFile: irc.tlsClientKey.nonEmpty
        )
        let sasl = irc.sasl.map { s in
            SASL(
                mechanisms: s.mechanisms.isEmpty
                    ? .automatic : .inOrder(s.mechanisms.compactMap { SASL.Mechanism(rawValue: $0.rawValue) }),
                username: s.username, password: s.password, required: s.required)
        }
        self.init(
            host: irc.server,
            port: irc.port,
            tls: tls,
            serverPassword: irc.serverPassword.nonEmpty,
            nick: irc.nick,
            altNicks: irc.altNicks,
            username: irc.username,
            realname: irc.registeredRealname,
            sasl: sasl,
            channels: irc.channels.map { ChannelJoin($0.name, key: $0.key) },
            flood: irc.flood.enabled
                ? Flood(burst: irc.flood.burst, linesPerSecond: irc.flood.linesPerSecond)
                : Flood(burst: 1_000_000, linesPerSecond: 1_000_000_000),
            quitMessage: irc.quitMessage,
            shutdownDrainTimeout: .milliseconds(Int64((irc.shutdownDrainSeconds * 1000).rounded()))
        )
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
